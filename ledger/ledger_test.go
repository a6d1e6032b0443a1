package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"cchub/store"
	"cchub/workspace"
)

// openLedger opens the store of the workspace at dir (a fresh one if dir
// is empty), as one CLI call would, and returns its ledger.
func openLedger(t *testing.T, dir string) (*Ledger, *store.Store, string) {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	st, err := store.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(st), st, dir
}

func run(t *testing.T, st *store.Store, name string) store.RunID {
	t.Helper()
	id, err := st.Run(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func d(sev, code, msg string, line, col int) Diagnostic {
	return Diagnostic{Key: Key{Severity: sev, Code: code, Message: msg}, Line: line, Col: col, Source: "compiler"}
}

func report(t *testing.T, l *Ledger, r store.RunID, current map[string][]Diagnostic) News {
	t.Helper()
	n, err := l.Report(context.Background(), r, current)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func wantText(t *testing.T, n News, want string) {
	t.Helper()
	if got := n.Text(10, 10); got != want {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
}

var (
	undefined = d(Error, "UndeclaredName", "undefined: foo", 12, 5)
	mismatch  = d(Error, "IncompatibleAssign", "cannot use x (variable of type int) as string value in assignment", 20, 9)
	unused    = d(Warning, "SA4006", "this value of x is never used", 30, 2)
)

func moved(x Diagnostic, line, col int) Diagnostic {
	x.Line, x.Col = line, col
	return x
}

// The life of one file's diagnostics through a run's edits.
func TestTheRunIsToldOnlyWhatIsNew(t *testing.T) {
	l, st, _ := openLedger(t, "")
	r := run(t, st, "edit")

	// Introduced: reported, with its place.
	n := report(t, l, r, map[string][]Diagnostic{"store/store.go": {undefined}})
	wantText(t, n, "diagnostics: 1 new error in store/store.go\n"+
		"store/store.go\n"+
		"  12:5 error [compiler UndeclaredName] undefined: foo\n")

	// The same again: not repeated.
	n = report(t, l, r, map[string][]Diagnostic{"store/store.go": {undefined}})
	wantText(t, n, "diagnostics: nothing new (1 already reported still present)\n")

	// Moved by an edit above it: the same diagnostic, not news.
	n = report(t, l, r, map[string][]Diagnostic{"store/store.go": {moved(undefined, 15, 5)}})
	if n.NewCount() != 0 || n.AlreadyCount() != 1 {
		t.Fatalf("after a move: %d new, %d already; want 0, 1", n.NewCount(), n.AlreadyCount())
	}

	// A second, distinct error: only it is news.
	n = report(t, l, r, map[string][]Diagnostic{"store/store.go": {moved(undefined, 15, 5), mismatch}})
	wantText(t, n, "diagnostics: 1 new error in store/store.go (1 already reported still present)\n"+
		"store/store.go\n"+
		"  20:9 error [compiler IncompatibleAssign] cannot use x (variable of type int) as string value in assignment\n")

	// The first fixed: gone, nothing new.
	n = report(t, l, r, map[string][]Diagnostic{"store/store.go": {mismatch}})
	wantText(t, n, "diagnostics: nothing new (1 already reported still present)\n"+
		"gone: error [UndeclaredName] undefined: foo (store/store.go)\n")

	// Reintroduced: news again.
	n = report(t, l, r, map[string][]Diagnostic{"store/store.go": {undefined, mismatch}})
	if n.NewCount() != 1 || n.Files[0].New[0].Key != undefined.withPath("store/store.go") {
		t.Fatalf("a reintroduced error was not reported again: %+v", n)
	}

	// Another file's new diagnostic is reported for that file; the file
	// left out of the call keeps what it was told.
	n = report(t, l, r, map[string][]Diagnostic{"cmd/main.go": {d(Error, "MissingReturn", "missing return", 7, 1)}})
	wantText(t, n, "diagnostics: 1 new error in cmd/main.go\n"+
		"cmd/main.go\n"+
		"  7:1 error [compiler MissingReturn] missing return\n")
	n = report(t, l, r, map[string][]Diagnostic{"store/store.go": {undefined, mismatch}})
	if n.NewCount() != 0 || n.AlreadyCount() != 2 {
		t.Fatalf("store/store.go after another file's report: %d new, %d already; want 0, 2", n.NewCount(), n.AlreadyCount())
	}

	// All fixed (an empty list): everything forgotten.
	n = report(t, l, r, map[string][]Diagnostic{"store/store.go": nil, "cmd/main.go": {}})
	wantText(t, n, "diagnostics: nothing new\n"+
		"gone: error [MissingReturn] missing return (cmd/main.go)\n"+
		"gone: error [IncompatibleAssign] cannot use x (variable of type int) as string value in assignment (store/store.go)\n"+
		"gone: error [UndeclaredName] undefined: foo (store/store.go)\n")
	n = report(t, l, r, map[string][]Diagnostic{"store/store.go": nil})
	wantText(t, n, "diagnostics: nothing new\n")
	if len(n.Files) != 0 {
		t.Fatalf("files with nothing to say are listed: %+v", n.Files)
	}
}

func (x Diagnostic) withPath(p string) Key {
	k := x.Key
	k.Path = p
	return k
}

// One key at several places of a file is one diagnostic: told once, at its
// first place, with the others named; a third place later is not news.
func TestOneKeyAtSeveralPlacesIsToldOnce(t *testing.T) {
	l, st, _ := openLedger(t, "")
	r := run(t, st, "dups")
	dup := d(Error, "UndeclaredName", "undefined: foo", 40, 3)
	n := report(t, l, r, map[string][]Diagnostic{"a.go": {dup, moved(dup, 12, 5), moved(dup, 12, 9)}})
	wantText(t, n, "diagnostics: 3 new errors in a.go\n"+
		"a.go\n"+
		"  12:5 error [compiler UndeclaredName] undefined: foo (also 12:9, 40:3)\n")
	n = report(t, l, r, map[string][]Diagnostic{"a.go": {dup, moved(dup, 50, 1)}})
	if n.NewCount() != 0 || n.AlreadyCount() != 1 {
		t.Fatalf("%d new, %d already; want 0, 1", n.NewCount(), n.AlreadyCount())
	}
	many := []Diagnostic{}
	for i := range 6 {
		many = append(many, d(Warning, "", "shadowed", 10*(i+1), 1))
	}
	n = report(t, l, r, map[string][]Diagnostic{"b.go": many})
	wantText(t, n, "diagnostics: 6 new warnings in b.go\n"+
		"b.go\n"+
		"  10:1 warning [compiler] shadowed (also 20:1, 30:1, 40:1 and 2 more places)\n")
}

// Errors come first: in a file, before its warnings whatever their lines;
// among files, those with new errors first.
func TestErrorsComeFirst(t *testing.T) {
	l, st, _ := openLedger(t, "")
	r := run(t, st, "order")
	hint := d(Hint, "", "could be simplified", 1, 1)
	hint.Source = ""
	n := report(t, l, r, map[string][]Diagnostic{
		"a.go": {unused, hint},
		"b.go": {unused, undefined, d(Info, "x", "note", 2, 2)},
	})
	wantText(t, n, "diagnostics: 1 new error, 1 warning, 1 info in b.go; 1 new warning, 1 hint in a.go\n"+
		"b.go\n"+
		"  12:5 error [compiler UndeclaredName] undefined: foo\n"+
		"  30:2 warning [compiler SA4006] this value of x is never used\n"+
		"  2:2 info [compiler x] note\n"+
		"a.go\n"+
		"  30:2 warning [compiler SA4006] this value of x is never used\n"+
		"  1:1 hint could be simplified\n")
}

// Two CLI calls with one --run are two processes opening the same file:
// they share the run's ledger. Another run has its own.
func TestRunsShareByNameAndOnlyByName(t *testing.T) {
	first, st1, dir := openLedger(t, "")
	second, st2, _ := openLedger(t, dir)
	current := map[string][]Diagnostic{"a.go": {undefined}}
	if n := report(t, first, run(t, st1, "ci"), current); n.NewCount() != 1 {
		t.Fatalf("first call: %d new, want 1", n.NewCount())
	}
	if n := report(t, second, run(t, st2, "ci"), current); n.NewCount() != 0 || n.AlreadyCount() != 1 {
		t.Fatalf("second call of the same run: %d new, %d already; want 0, 1", n.NewCount(), n.AlreadyCount())
	}
	if n := report(t, second, run(t, st2, "other"), current); n.NewCount() != 1 {
		t.Fatalf("another named run: %d new, want 1", n.NewCount())
	}
	session, err := st2.NewRun(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := report(t, second, session, current); n.NewCount() != 1 {
		t.Fatalf("an MCP session's run: %d new, want 1", n.NewCount())
	}
	// The session ends: its ledger goes with it, and a late report says so.
	if err := st2.DropRun(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Report(context.Background(), session, current); !errors.Is(err, store.ErrNoRun) {
		t.Fatalf("report for an ended run: %v, want store.ErrNoRun", err)
	}
	var left int
	if err := st1.DB().QueryRow(`SELECT count(*) FROM ledger_keys WHERE run = ?`, session).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d keys of an ended run left (%v)", left, err)
	}
}

// Two reports racing for one run, from two stores (two processes' worth of
// connections), tell each new key exactly once between them. Both go
// through the same files, each with one diagnostic that stays, from
// opposite ends, so they meet in the middle: whichever reports a file
// first tells it.
func TestRacingReportsTellEachKeyOnce(t *testing.T) {
	a, sta, dir := openLedger(t, "")
	b, stb, _ := openLedger(t, dir)
	ra, rb := run(t, sta, "race"), run(t, stb, "race")
	const files = 40
	var mu sync.Mutex
	toldBy := map[string][]int{}
	var wg sync.WaitGroup
	for i, l := range []*Ledger{a, b} {
		r := []store.RunID{ra, rb}[i]
		wg.Go(func() {
			for k := range files {
				if i == 1 {
					k = files - 1 - k
				}
				p := fmt.Sprintf("f%02d.go", k)
				n, err := l.Report(context.Background(), r, map[string][]Diagnostic{p: {undefined}})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, f := range n.Files {
					for range f.New {
						toldBy[f.Path] = append(toldBy[f.Path], i)
					}
				}
				mu.Unlock()
				// A writer that commits and at once begins again keeps
				// the lock from one waiting in SQLite's busy loop (which
				// sleeps between tries); a pause, as between a model's
				// calls, lets both in.
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	var byLedger [2]int
	for k := range files {
		p := fmt.Sprintf("f%02d.go", k)
		if by := toldBy[p]; len(by) != 1 {
			t.Errorf("%s's error was told by reports of %v, want exactly one", p, by)
		} else {
			byLedger[by[0]]++
		}
	}
	t.Logf("files first reported by each ledger: %v", byLedger)
}

// Text stays short: a cap per file and on files, each saying what it left
// out, and long messages cut.
func TestTextIsBounded(t *testing.T) {
	l, st, _ := openLedger(t, "")
	r := run(t, st, "caps")
	var ds []Diagnostic
	for i := range 3 {
		ds = append(ds, d(Error, "E", fmt.Sprint("error ", i), 100+i, 1))
	}
	for i := range 2 {
		ds = append(ds, d(Warning, "W", fmt.Sprint("warning ", i), i+1, 1))
	}
	for i := range 2 {
		ds = append(ds, d(Hint, "H", fmt.Sprint("hint ", i), i+1, 1))
	}
	long := d(Error, "Long", "first line\n"+strings.Repeat("é", 300)+"\nthird\nfourth\nfifth\nsixth", 1, 1)
	n := report(t, l, r, map[string][]Diagnostic{
		"a.go": ds,
		"b.go": {long},
		"c.go": {unused},
		"d.go": {unused, d(Hint, "", "h", 1, 1)},
	})
	got := n.Text(3, 2)
	want := "diagnostics: 3 new errors, 2 warnings, 2 hints in a.go; 1 new error in b.go; and 3 new diagnostics in 2 more files not listed (c.go, d.go: diagnostics paths=c.go lists them)\n" +
		"a.go\n" +
		"  100:1 error [compiler E] error 0\n" +
		"  101:1 error [compiler E] error 1\n" +
		"  102:1 error [compiler E] error 2\n" +
		"  (and 4 more: 2 warnings, 2 hints; diagnostics paths=a.go lists every one)\n" +
		"b.go\n" +
		"  1:1 error [compiler Long] first line\n" +
		"      " + strings.Repeat("é", maxLineRunes) + "…\n" +
		"      third\n" +
		"      fourth\n" +
		"      …\n"
	if got != want {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
	if all := n.Text(0, 0); strings.Count(all, "\n") != 1+(1+7)+(1+5)+(1+1)+(1+2) || !strings.Contains(all, "  2:1 hint [compiler H] hint 1\n") {
		t.Fatalf("unbounded text:\n%s", all)
	}
}

// What crosses the boundary is checked: a 0-based place, an unknown
// severity, a path that does not match its file.
func TestReportRefusesMalformedInput(t *testing.T) {
	l, st, _ := openLedger(t, "")
	r := run(t, st, "strict")
	for _, c := range []struct {
		current map[string][]Diagnostic
		want    string
	}{
		{map[string][]Diagnostic{"a.go": {d(Error, "", "x", 0, 1)}}, "1-based"},
		{map[string][]Diagnostic{"a.go": {d("Error", "", "x", 1, 1)}}, `severity "Error"`},
		{map[string][]Diagnostic{"a.go": {{Key: Key{Path: "b.go", Severity: Error}, Line: 1, Col: 1}}}, "listed under a.go"},
		{map[string][]Diagnostic{"/abs/a.go": nil}, "relative to the workspace root"},
	} {
		_, err := l.Report(context.Background(), r, c.current)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Report(%v) = %v, want an error saying %q", c.current, err, c.want)
		}
	}
	// Nothing was recorded by the refused calls.
	if n := report(t, l, r, map[string][]Diagnostic{"a.go": {d(Error, "", "x", 1, 1)}}); n.NewCount() != 1 {
		t.Fatalf("%d new after refused calls, want 1", n.NewCount())
	}
}

// Reset makes everything news again, for that run only.
func TestResetForgetsOneRun(t *testing.T) {
	l, st, _ := openLedger(t, "")
	r, other := run(t, st, "r"), run(t, st, "other")
	current := map[string][]Diagnostic{"a.go": {undefined, unused}}
	report(t, l, r, current)
	report(t, l, other, current)
	if err := l.Reset(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if n := report(t, l, r, current); n.NewCount() != 2 {
		t.Fatalf("after Reset: %d new, want 2", n.NewCount())
	}
	if n := report(t, l, other, current); n.NewCount() != 0 {
		t.Fatalf("another run after Reset: %d new, want 0", n.NewCount())
	}
}

// What was there when the run first looked and came back is counted and
// marked apart from what is new.
func TestTextTellsBackApart(t *testing.T) {
	n := News{Files: []FileNews{{Path: "w.go", New: []Reported{
		{Diagnostic: d(Error, "E", "new one", 3, 1)},
		{Diagnostic: d(Warning, "W", "old one", 6, 2), Back: true, Also: []Place{{Line: 9, Col: 2}}},
	}}}}
	want := "diagnostics: 1 new error, 2 warnings back (there before your changes) in w.go\n" +
		"w.go\n" +
		"  3:1 error [compiler E] new one\n" +
		"  6:2 warning [compiler W] old one (also 9:2)\n" +
		"      back: it was there before your changes, hidden for a while\n"
	if got := n.Text(0, 0); got != want {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
	only := News{Files: []FileNews{{Path: "w.go", New: n.Files[0].New[1:]}}}
	if got := only.Text(0, 0); !strings.HasPrefix(got, "diagnostics: 2 warnings back (there before your changes) in w.go\n") {
		t.Fatalf("back alone:\n%s", got)
	}
}
