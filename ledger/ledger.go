package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"cchub/store"
)

// Severities, as LSP's 1 to 4 are written in cchub.
const (
	Error   = "error"
	Warning = "warning"
	Info    = "info"
	Hint    = "hint"
)

// Rank orders severities for a reader: errors first.
func Rank(severity string) int {
	switch severity {
	case Error:
		return 0
	case Warning:
		return 1
	case Info:
		return 2
	}
	return 3
}

// Key is what a diagnostic is known by: the same key at another position
// is the same diagnostic, moved.
type Key struct {
	Path     string // relative to the root, slash-separated
	Severity string // Error, Warning, Info or Hint
	Code     string // the tool's code ("UndeclaredName", "SA4006"); may be empty
	Message  string
}

// Diagnostic is one diagnostic as a language server or tool reports it.
type Diagnostic struct {
	Key
	Line, Col       int // 1-based start
	EndLine, EndCol int // 1-based end; 0 when unknown
	Source          string
}

// Place is a 1-based line and column.
type Place struct{ Line, Col int }

// Reported is a diagnostic the run has not been told: its first place, and
// the other places in the file where the same key is.
type Reported struct {
	Diagnostic
	Also []Place
	// Fix is the title of a quick fix the server offers for it, if any.
	Fix string `json:"fix,omitempty"`
	// Back says the file had it when the run first looked: hidden for a
	// while (another error masked it), it is back, not new.
	Back bool `json:"back,omitempty"`
}

// FileNews is what one file's current diagnostics mean to the run.
type FileNews struct {
	Path string
	// New are the diagnostics the run has not been told, errors first,
	// then warnings, then the rest; by place within a severity.
	New []Reported
	// Already counts the keys still present that the run was told before.
	Already int
	// Gone counts the keys the run was told that are no longer present
	// (now forgotten, so they will be news if they return).
	Gone int
	// GoneKeys names what went away, most severe first, with how many
	// copies of each (a caller that counts copies, as a change does,
	// may count more than Gone's keys).
	GoneKeys []GoneKey `json:",omitempty"`
}

// GoneKey is a diagnostic that went away from its file: its key, and
// how many copies of it.
type GoneKey struct {
	Key
	Count int
}

// NewDiagnostics counts f's new diagnostics, each place of a key once:
// three places of one error are 3.
func (f FileNews) NewDiagnostics() int {
	n := 0
	for _, r := range f.New {
		n += 1 + len(r.Also)
	}
	return n
}

// News is the outcome of one Report: the files that have anything new,
// anything already told, or anything gone; those with the most severe news
// first, then by path.
type News struct {
	Files []FileNews
}

// NewCount is the number of new diagnostics (keys) in every file.
func (n News) NewCount() int {
	c := 0
	for _, f := range n.Files {
		c += len(f.New)
	}
	return c
}

// AlreadyCount is the number of still-present keys told before.
func (n News) AlreadyCount() int {
	c := 0
	for _, f := range n.Files {
		c += f.Already
	}
	return c
}

// GoneCount is the number of told keys that disappeared.
func (n News) GoneCount() int {
	c := 0
	for _, f := range n.Files {
		c += f.Gone
	}
	return c
}

// Ledger is the diagnostics ledger of every run in one store. It holds no
// state of its own: two Ledgers on one database (two processes) agree.
type Ledger struct {
	st *store.Store
}

// New returns the ledger kept in st.
func New(st *store.Store) *Ledger { return &Ledger{st: st} }

// Report compares current, the complete diagnostics now of each file in
// it (by path relative to the root; an empty list means the file has
// none), with what run has been told of those files, records the new keys
// as told and forgets the keys that are gone, and returns the news. Files
// not in current are left as they were. A Diagnostic's Path may be empty
// (it is the map's key); a different one is an error, as are a severity
// cchub does not know and a 0-based place.
func (l *Ledger) Report(ctx context.Context, run store.RunID, current map[string][]Diagnostic) (News, error) {
	return l.report(ctx, run, current, nil)
}

// ReportCaused is Report for a change: current is still the complete
// state of each file (what was told and is gone is forgotten), but only
// the keys in caused can be news and be recorded as told; the others were
// there before the change, and the run was never told them.
func (l *Ledger) ReportCaused(ctx context.Context, run store.RunID, current map[string][]Diagnostic, caused map[Key]bool) (News, error) {
	return l.report(ctx, run, current, caused)
}

func (l *Ledger) report(ctx context.Context, run store.RunID, current map[string][]Diagnostic, only map[Key]bool) (News, error) {
	files := make([]fileNow, 0, len(current))
	for p, ds := range current {
		f, err := group(p, ds)
		if err != nil {
			return News{}, err
		}
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b fileNow) int { return strings.Compare(a.path, b.path) })

	var news News
	err := l.st.Write(ctx, func(tx *sql.Tx) error {
		news = News{}
		if err := store.TouchRun(ctx, tx, run); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		st, err := prepare(ctx, tx)
		if err != nil {
			return err
		}
		defer st.close()
		now := time.Now().UnixMilli()
		for _, f := range files {
			fn, err := st.reconcile(ctx, run, f, now, only)
			if err != nil {
				return err
			}
			if len(fn.New) > 0 || fn.Already > 0 || fn.Gone > 0 {
				news.Files = append(news.Files, fn)
			}
		}
		return nil
	})
	if err != nil {
		return News{}, err
	}
	slices.SortStableFunc(news.Files, func(a, b FileNews) int {
		return cmp.Compare(a.Worst(), b.Worst()) // paths are already in order
	})
	return news, nil
}

// Reset forgets everything run has been told, so every diagnostic is news
// again (a model whose context was cut down no longer has what it was told).
func (l *Ledger) Reset(ctx context.Context, run store.RunID) error {
	return l.st.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM ledger_keys WHERE run = ?`, run); err != nil {
			return fmt.Errorf("ledger: reset run %d: %w", run, err)
		}
		return nil
	})
}

// Worst is the rank of a file's most severe news; files without news
// come after every file with some.
func (f FileNews) Worst() int {
	if len(f.New) == 0 {
		return 4
	}
	return Rank(f.New[0].Severity)
}

// fileNow is one file's current diagnostics, one entry per key.
type fileNow struct {
	path string
	keys []Reported // sorted for reading: severity, then place
}

// SortGone orders gone keys for a reader: most severe first, then by
// code and message.
func SortGone(gs []GoneKey) {
	slices.SortFunc(gs, func(a, b GoneKey) int {
		return cmp.Or(cmp.Compare(Rank(a.Severity), Rank(b.Severity)),
			strings.Compare(a.Path, b.Path), strings.Compare(a.Code, b.Code), strings.Compare(a.Message, b.Message))
	})
}

// group checks one file's diagnostics and folds those with one key into
// one, at its first place.
func group(p string, ds []Diagnostic) (fileNow, error) {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, `\`) {
		return fileNow{}, fmt.Errorf("ledger: file %q: give the path relative to the workspace root, with /", p)
	}
	sorted := slices.Clone(ds)
	for i := range sorted {
		d := &sorted[i]
		if d.Path == "" {
			d.Path = p
		}
		switch {
		case d.Path != p:
			return fileNow{}, fmt.Errorf("ledger: a diagnostic of %s is listed under %s", d.Path, p)
		case d.Severity != Error && d.Severity != Warning && d.Severity != Info && d.Severity != Hint:
			return fileNow{}, fmt.Errorf("ledger: %s:%d:%d: severity %q; want %s, %s, %s or %s", p, d.Line, d.Col, d.Severity, Error, Warning, Info, Hint)
		case d.Line < 1 || d.Col < 1:
			return fileNow{}, fmt.Errorf("ledger: %s:%d:%d: lines and columns are 1-based", p, d.Line, d.Col)
		}
	}
	slices.SortStableFunc(sorted, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(Rank(a.Severity), Rank(b.Severity)),
			cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col),
			strings.Compare(a.Code, b.Code), strings.Compare(a.Message, b.Message))
	})
	f := fileNow{path: p}
	at := map[Key]int{}
	for _, d := range sorted {
		if i, ok := at[d.Key]; ok {
			f.keys[i].Also = append(f.keys[i].Also, Place{d.Line, d.Col})
			continue
		}
		at[d.Key] = len(f.keys)
		f.keys = append(f.keys, Reported{Diagnostic: d})
	}
	return f, nil
}

// stmts are Report's statements, prepared once per transaction.
type stmts struct {
	told, insert, forget *sql.Stmt
}

func prepare(ctx context.Context, tx *sql.Tx) (*stmts, error) {
	var s stmts
	var err error
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&s.told, `SELECT severity, code, message FROM ledger_keys WHERE run = ? AND path = ?`},
		{&s.insert, `INSERT INTO ledger_keys(run, path, severity, code, message, told) VALUES (?, ?, ?, ?, ?, ?)`},
		{&s.forget, `DELETE FROM ledger_keys WHERE run = ? AND path = ? AND severity = ? AND code = ? AND message = ?`},
	} {
		if *p.st, err = tx.PrepareContext(ctx, p.sql); err != nil {
			s.close()
			return nil, fmt.Errorf("ledger: prepare: %w", err)
		}
	}
	return &s, nil
}

func (s *stmts) close() {
	for _, st := range []*sql.Stmt{s.told, s.insert, s.forget} {
		if st != nil {
			st.Close()
		}
	}
}

// reconcile brings the ledger of one file of run in line with f and says
// what changed.
func (s *stmts) reconcile(ctx context.Context, run store.RunID, f fileNow, now int64, only map[Key]bool) (FileNews, error) {
	told := map[Key]bool{}
	rows, err := s.told.QueryContext(ctx, run, f.path)
	if err != nil {
		return FileNews{}, fmt.Errorf("ledger: read what run %d was told of %s: %w", run, f.path, err)
	}
	for rows.Next() {
		k := Key{Path: f.path}
		if err := rows.Scan(&k.Severity, &k.Code, &k.Message); err != nil {
			rows.Close()
			return FileNews{}, fmt.Errorf("ledger: read what run %d was told of %s: %w", run, f.path, err)
		}
		told[k] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return FileNews{}, fmt.Errorf("ledger: read what run %d was told of %s: %w", run, f.path, err)
	}

	fn := FileNews{Path: f.path}
	for _, r := range f.keys {
		if told[r.Key] {
			fn.Already++
			delete(told, r.Key) // what is left in told is gone
			continue
		}
		if only != nil && !only[r.Key] {
			continue // not this change's: never told
		}
		if _, err := s.insert.ExecContext(ctx, run, f.path, r.Severity, r.Code, r.Message, now); err != nil {
			return FileNews{}, fmt.Errorf("ledger: record a diagnostic of %s told to run %d: %w", f.path, run, err)
		}
		fn.New = append(fn.New, r)
	}
	for k := range told {
		if _, err := s.forget.ExecContext(ctx, run, f.path, k.Severity, k.Code, k.Message); err != nil {
			return FileNews{}, fmt.Errorf("ledger: forget a diagnostic of %s for run %d: %w", f.path, run, err)
		}
		fn.Gone++
		fn.GoneKeys = append(fn.GoneKeys, GoneKey{Key: k, Count: 1})
	}
	SortGone(fn.GoneKeys)
	return fn, nil
}
