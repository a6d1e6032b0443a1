package hub

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"cchub/ledger"
	"cchub/lspmux"
	"cchub/store"
)

// WriteDiagnostics is what a change caused, as the language servers say:
// the diagnostics it made appear (counted per key: a second copy of an
// old one is new; an old one is never new, in whatever file) that this
// run has not been told, how many it made go away, and notes (a server
// missing or crashed, said once per run). Pending names the servers that
// had not settled within the bound, every time: what they find comes
// with a later answer.
type WriteDiagnostics struct {
	News    ledger.News `json:"news"`
	Notes   []string    `json:"notes,omitempty"`
	Pending []string    `json:"pending,omitempty"`
	// Timeout is the bound Pending's servers missed.
	Timeout time.Duration `json:"timeout_ns,omitempty"`
}

// Text is the block a change's answer ends with: empty when there is
// nothing to say (no server owns the files, or nothing new and no note).
func (d *WriteDiagnostics) Text() string {
	if d == nil {
		return ""
	}
	var b strings.Builder
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "[%s]\n", n)
	}
	if len(d.Pending) > 0 {
		fmt.Fprintf(&b, "[diagnostics pending: %s had not settled after %v; what this change caused comes with your next answer (any tool), or call diagnostics in a few seconds]\n",
			strings.Join(d.Pending, ", "), d.Timeout)
	}
	if len(d.News.Files) > 0 {
		b.WriteString(d.News.Text(maxNewPerFile, maxNewFiles))
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// The bounds of the diagnostics a change's answer lists.
const (
	maxNewPerFile = 10
	maxNewFiles   = 5
)

// afterWrite passes the files a change wrote (or deleted) through their
// language servers and keeps, for r, what the change caused and r has
// not been told. What is not settled within the bound is kept in r and
// told with a later answer (LateNews); a one-shot hub (a CLI command)
// waits for it instead, as there is no later answer.
func (h *Hub) afterWrite(ctx context.Context, r *Run, files []lspmux.File) *WriteDiagnostics {
	mux, err := h.servers()
	if err != nil {
		return r.noted(&WriteDiagnostics{Notes: []string{err.Error()}})
	}
	t0 := time.Now()
	rep, err := mux.AfterWrite(ctx, files)
	stepDone(ctx, "servers", t0)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return r.noted(&WriteDiagnostics{Notes: []string{"diagnostics: " + err.Error()}})
	}
	if rep.All != nil {
		// To every other conversation on this hub (another session of
		// a shared hub), the change is one on disk by someone else.
		what := "changes to " + strings.TrimPrefix(describe(files), "the change to ") + " made by another cchub session,"
		for _, other := range h.runs.all() {
			if other != r {
				other.addDisk(what, rep.All)
			}
		}
	}
	if rep.Late != nil && h.oneShot {
		wctx, cancel := context.WithTimeout(ctx, lateWaitOneShot)
		if more, ok := rep.Late.Wait(wctx); ok {
			rep.Merge(more)
			rep.Late = nil
		}
		cancel()
	}
	d := &WriteDiagnostics{Notes: rep.Notes}
	if rep.Late != nil {
		d.Pending, d.Timeout = rep.Late.Servers, mux.Timeout()
		r.addLate(describe(files), rep.Late)
	}
	d.News, d.Notes = h.news(ctx, r, rep, d.Notes)
	return r.noted(d)
}

// lateWaitOneShot bounds how long a CLI command waits for a server that
// had not settled in the usual bound.
const lateWaitOneShot = 60 * time.Second

// describe names a change by its files, for late news.
func describe(files []lspmux.File) string {
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("%d more", len(names)-3))
	}
	return "the change to " + strings.Join(names, ", ")
}

// news turns what a change caused (rep.New, rep.Gone) into what r is
// told: the caused diagnostics it has not been told before in this run
// (the ledger, given the whole current state of the files, says which),
// and a new copy of a key the file already had, always. Files follow the
// ledger's order: the most severe news first.
func (h *Hub) news(ctx context.Context, r *Run, rep *lspmux.Report, notes []string) (ledger.News, []string) {
	var out ledger.News
	// What the run's starting point had of each key caused: as many
	// copies now as then is back, not new.
	had := map[ledger.Key]int{}
	t0 := time.Now()
	h.loadStart(ctx, r)
	r.mu.Lock()
	r.start.see(rep)
	for _, ds := range rep.New {
		for _, d := range ds {
			had[keyOf(d)] = r.start.had(keyOf(d))
		}
	}
	r.mu.Unlock()
	h.saveStart(ctx, r)
	stepDone(ctx, "start", t0)
	if len(rep.Files) == 0 && len(rep.New) == 0 && len(rep.Gone) == 0 {
		return out, notes
	}
	caused := map[ledger.Key]bool{}
	newAll, nowAll := toLedger(rep.New), toLedger(rep.Files)
	for _, ds := range newAll {
		for _, d := range ds {
			caused[d.Key] = true
		}
	}
	t0 = time.Now()
	led, id, err := h.ledgerFor(ctx, r)
	var ln ledger.News
	if err == nil {
		ln, err = led.ReportCaused(ctx, id, nowAll, caused)
	}
	stepDone(ctx, "ledger", t0)
	if err != nil {
		notes = append(notes, "diagnostics could not be checked against what this run was told ("+err.Error()+"); what the change caused is listed")
	}
	fresh := map[ledger.Key]bool{} // keys the ledger has not told before
	for _, f := range ln.Files {
		for _, n := range f.New {
			fresh[n.Key] = true
		}
	}
	already := map[string]int{}
	for _, f := range ln.Files {
		already[f.Path] = f.Already
	}
	paths := map[string]bool{}
	for p := range rep.New {
		paths[p] = true
	}
	for p := range rep.Gone {
		paths[p] = true
	}
	for p := range rep.Files {
		if already[p] > 0 {
			paths[p] = true // nothing new in it, but what was told is still there
		}
	}
	for p := range paths {
		fn := ledger.FileNews{Path: p, Gone: rep.Gone[p], Already: already[p], GoneKeys: goneKeys(rep.GoneKeys[p])}
		caused := newAll[p]
		// Copies each key had before the change: a key with some is a
		// new copy of an old problem, news whatever the ledger says.
		causedCount := map[ledger.Key]int{}
		for _, d := range caused {
			causedCount[d.Key]++
		}
		nowCount := map[ledger.Key]int{}
		for _, d := range nowAll[p] {
			nowCount[d.Key]++
		}
		byKey := map[ledger.Key]int{}
		for _, d := range caused {
			newCopy := nowCount[d.Key] > causedCount[d.Key]
			if err == nil && !newCopy && !fresh[d.Key] {
				continue // told before in this run (late news already given)
			}
			if i, ok := byKey[d.Key]; ok {
				fn.New[i].Also = append(fn.New[i].Also, ledger.Place{Line: d.Line, Col: d.Col})
				continue
			}
			byKey[d.Key] = len(fn.New)
			fn.New = append(fn.New, ledger.Reported{Diagnostic: d, Back: nowCount[d.Key] <= had[d.Key]})
		}
		sort.SliceStable(fn.New, func(i, j int) bool {
			a, b := fn.New[i], fn.New[j]
			if ledger.Rank(a.Severity) != ledger.Rank(b.Severity) {
				return ledger.Rank(a.Severity) < ledger.Rank(b.Severity)
			}
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Col < b.Col
		})
		if len(fn.New) > 0 || fn.Gone > 0 || fn.Already > 0 {
			out.Files = append(out.Files, fn)
		}
	}
	// Each file's quick fixes are asked at once, not one file after
	// another: a signature change that breaks callers in five files
	// waits for the slowest ask, not for the five.
	t0 = time.Now()
	var asks sync.WaitGroup
	for i := range out.Files {
		asks.Go(func() { h.quickFixes(ctx, &out.Files[i]) })
	}
	asks.Wait()
	stepDone(ctx, "fixes", t0)
	sort.Slice(out.Files, func(i, j int) bool {
		a, b := out.Files[i], out.Files[j]
		if wa, wb := a.Worst(), b.Worst(); wa != wb {
			return wa < wb
		}
		return a.Path < b.Path
	})
	return out, notes
}

// loadStart reads, once per process, the starting point a named run's
// earlier calls kept. A store that cannot be read leaves it to start
// afresh (what was there is then new to this call alone).
func (h *Hub) loadStart(ctx context.Context, r *Run) {
	if r.Name == "" {
		return
	}
	r.mu.Lock()
	loaded := r.start.loaded
	r.start.loaded = true
	r.mu.Unlock()
	if loaded {
		return
	}
	db, err := h.state(ctx)
	if err != nil {
		return
	}
	_, id, err := h.ledgerFor(ctx, r)
	if err != nil {
		return
	}
	data, err := db.RunStart(ctx, id)
	if err != nil || data == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.start.servers) == 0 {
		_ = r.start.decode(data) // a damaged one is started afresh
	}
}

// saveStart keeps a named run's starting point when it grew.
func (h *Hub) saveStart(ctx context.Context, r *Run) {
	if r.Name == "" {
		return
	}
	r.mu.Lock()
	changed := r.start.changed
	r.start.changed = false
	data, err := r.start.encode()
	r.mu.Unlock()
	if !changed || err != nil {
		return
	}
	db, err := h.state(ctx)
	if err != nil {
		return
	}
	if _, id, err := h.ledgerFor(ctx, r); err == nil {
		_ = db.SaveRunStart(ctx, id, data) // lost, the next call starts afresh
	}
}

// maxFixesAsked bounds the new errors of one file a server is asked quick
// fixes for.
const maxFixesAsked = 5

// quickFixes puts on fn's new errors the title of the quick fix their
// server offers, if it offers one (a bounded ask of a running server).
func (h *Hub) quickFixes(ctx context.Context, fn *ledger.FileNews) {
	var ds []lspmux.Diagnostic
	var at []int
	for i, r := range fn.New {
		if r.Severity != ledger.Error || len(ds) == maxFixesAsked {
			continue
		}
		ds = append(ds, lspmux.Diagnostic{Path: fn.Path, Line: r.Line, Col: r.Col, EndLine: r.EndLine, EndCol: r.EndCol,
			Severity: r.Severity, Code: r.Code, Source: r.Source, Message: r.Message})
		at = append(at, i)
	}
	if len(ds) == 0 {
		return
	}
	mux, err := h.servers()
	if err != nil {
		return
	}
	for i, title := range mux.QuickFixes(ctx, fn.Path, ds) {
		if i >= 0 && i < len(at) {
			fn.New[at[i]].Fix = title
		}
	}
}

// addLate keeps a change's late diagnostics for a later answer.
func (r *Run) addLate(what string, l *lspmux.Late) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.late = append(r.late, lateChange{what: what, late: l})
}

// addDisk keeps what another process's change on disk caused, measured
// in the background, for the run's next answer.
func (r *Run) addDisk(what string, l *lspmux.Late) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.late = append(r.late, lateChange{what: what, late: l, disk: true})
}

// lateChange is a change of the run whose servers had not settled when
// it was answered, or a change on disk by another process (disk), whose
// servers were still settling.
type lateChange struct {
	what string
	late *lspmux.Late
	disk bool
}

// diskNewsWait bounds how long an answer waits for the servers to settle
// after a change on disk by another process, so that what it caused leads
// this answer rather than a later one.
const diskNewsWait = 2 * time.Second

// LateNews is what the run's earlier changes caused that was not ready
// when they were answered and is now: "" when there is none (yet). Each is
// told once; one still not ready waits for a later answer.
func (h *Hub) LateNews(ctx context.Context, r *Run) string {
	if r == nil {
		return ""
	}
	// What other processes changed on disk reaches the servers first
	// (a watcher's flush is quick when nothing is under way).
	fctx, cancel := context.WithTimeout(ctx, diskNewsWait)
	defer cancel()
	if h.lspMade.Load() {
		h.flushWatcher(fctx)
	}
	r.mu.Lock()
	pending := r.late
	r.late = nil
	notes := r.notes
	r.notes = nil
	var b strings.Builder
	if r.heard == nil {
		r.heard = map[string]bool{}
	}
	for _, n := range notes {
		if !r.heard[n] {
			r.heard[n] = true
			fmt.Fprintf(&b, "[%s]\n", n)
		}
	}
	r.mu.Unlock()
	if len(pending) == 0 {
		return b.String()
	}
	var still []lateChange
	for _, lc := range pending {
		rep, ok := lc.late.Ready()
		if !ok && lc.disk {
			rep, ok = lc.late.Wait(fctx)
		}
		if !ok {
			still = append(still, lc)
			continue
		}
		news, notes := h.news(ctx, r, rep, rep.Notes)
		d := r.noted(&WriteDiagnostics{News: news, Notes: notes})
		switch {
		case lc.disk && (d == nil || len(d.Notes) == 0 && d.News.NewCount() == 0 && d.News.GoneCount() == 0):
			// Nothing the run was not told: no news.
		case lc.disk:
			fmt.Fprintf(&b, "[%s caused:]\n%s", lc.what, d.Text())
		case d == nil:
			fmt.Fprintf(&b, "[diagnostics of %s, pending when it was answered, have settled]\n", lc.what)
			b.WriteString("diagnostics: nothing new\n")
		default:
			fmt.Fprintf(&b, "[diagnostics of %s, pending when it was answered, have settled]\n", lc.what)
			b.WriteString(d.Text())
		}
	}
	if len(still) > 0 {
		r.mu.Lock()
		r.late = append(still, r.late...)
		r.mu.Unlock()
	}
	return b.String()
}

// goneKeys groups the copies of diagnostics that went away by key.
func goneKeys(ds []lspmux.Diagnostic) []ledger.GoneKey {
	var out []ledger.GoneKey
	at := map[ledger.Key]int{}
	for _, d := range ds {
		k := keyOf(d)
		if i, ok := at[k]; ok {
			out[i].Count++
			continue
		}
		at[k] = len(out)
		out = append(out, ledger.GoneKey{Key: k, Count: 1})
	}
	ledger.SortGone(out)
	return out
}

func toLedger(files map[string][]lspmux.Diagnostic) map[string][]ledger.Diagnostic {
	out := make(map[string][]ledger.Diagnostic, len(files))
	for p, ds := range files {
		l := make([]ledger.Diagnostic, 0, len(ds))
		for _, d := range ds {
			l = append(l, ledger.Diagnostic{
				Key:  keyOf(d),
				Line: d.Line, Col: d.Col, EndLine: d.EndLine, EndCol: d.EndCol, Source: d.Source,
			})
		}
		out[p] = l
	}
	return out
}

// noted drops from d the notes r has heard already, and records the
// rest as heard. It returns nil when nothing is left to say.
func (r *Run) noted(d *WriteDiagnostics) *WriteDiagnostics {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.heard == nil {
		r.heard = map[string]bool{}
	}
	kept := d.Notes[:0]
	for _, n := range d.Notes {
		if !r.heard[n] {
			r.heard[n] = true
			kept = append(kept, n)
		}
	}
	d.Notes = kept
	if len(d.Notes) == 0 && len(d.News.Files) == 0 && len(d.Pending) == 0 {
		return nil // pending is said every time: it is not a note
	}
	return d
}

// ledgerFor is the ledger and r's id in the store, made on first need: an
// MCP session's run is anonymous, a CLI run named.
func (h *Hub) ledgerFor(ctx context.Context, r *Run) (*ledger.Ledger, store.RunID, error) {
	db, err := h.state(ctx)
	if err != nil {
		return nil, 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.id == 0 {
		if r.Name != "" {
			r.id, err = db.Run(ctx, r.Name)
		} else {
			r.id, err = db.NewRun(ctx)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	return ledger.New(db), r.id, nil
}
