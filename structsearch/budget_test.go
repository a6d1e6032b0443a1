package structsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cchub/syntax"
	"cchub/textfmt"
	"cchub/workspace/wstest"
)

// hostile lists the inputs of a security probe that found the memory of a
// search growing with the square of the nesting depth (3.2 GB for 64 KB of
// nested parentheses, the OOM killer for 400 KB), and what the answer must
// be now: the file refused in words, or its few matches.
var hostile = []struct {
	name, file, pattern string
	src                 func() string
	matches             int      // in the hostile file; -1: refused
	refusal             []string // what the refusal says (nil: too complex)
}{
	{"parentheses 64 KB", "deep.py", `($X)`, func() string { return "x = " + nest("(", "1", ")", 32000) + "\n" }, -1, nil},
	{"plus 80 KB", "deep.js", `$A + $B`, func() string { return "x = " + chain(20000) + ";\n" }, -1, nil},
	{"parentheses 400 KB", "deep.go", `($X)`, func() string { return "package p\n\nvar x = " + nest("(", "1", ")", 200000) + "\n" }, -1, nil},
	{"plus 400 KB", "deep.py", `$A + $B`, func() string { return "x = " + chain(100000) + "\n" }, -1, nil},
	// A name used twice compares a whole operand at every level.
	{"plus, a name used twice, 400 KB", "deep.js", `$A + $A`, func() string { return "x = " + chain(100000) + ";\n" }, 1, nil},
	// Anchored on a rare token, the walk goes all the way down.
	{"parentheses around a call 400 KB", "deep.go", `f($X)`, func() string { return "package p\n\nvar x = " + nest("(", "f(1)", ")", 200000) + "\n" }, 1, nil},
	// Issue 26: one-character lines cost 300 times their size to parse
	// (600 MB for this file): refused before parsing.
	{"one-character lines 2 MB", "lines.py", `($X)`, func() string { return "y = (a)\n" + strings.Repeat("x\n", 1<<20) }, -1,
		[]string{"[not searched: lines.py: too large to parse: 1048578 lines", "grep path=lines.py searches its text]"}},
}

// nest is mid inside n of open and close.
func nest(open, mid, close string, n int) string {
	return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
}

// chain is `1 + 1 + …` of n terms: a tree n levels deep.
func chain(n int) string {
	return "1" + strings.Repeat(" + 1", n-1)
}

// hostileEnv names the case a child process searches.
const hostileEnv = "CCHUB_STRUCTSEARCH_HOSTILE"

// hostileReport is what the child tells its parent.
type hostileReport struct {
	Matches map[string]int // by file
	Refused []RefusedFile
	Text    string // as an agent reads it
	Err     string
}

// maxHostileRSS bounds the peak memory of a child that searched one
// hostile file. The child is this test binary: the Go runtime and the
// grammars take about 20 MB, tree-sitter's tree of a 400 KB file of
// nesting about 60 MB more, and the search itself a few MB. Before the
// fix, the 64 KB file took 3.2 GB and the 400 KB ones more than 6 GB.
const maxHostileRSS = 400 << 20

// Each hostile file is searched in a child process, whose peak memory
// (the kernel's account of it, tree-sitter's included) stays small, and
// whose answer is the file refused in words, or its matches, next to the
// matches of an ordinary file searched alongside it.
func TestHostileFilesStaySmall(t *testing.T) {
	if os.Getenv(hostileEnv) != "" {
		t.Skip("in the child")
	}
	bound := int64(maxHostileRSS)
	if raceEnabled {
		bound *= 8 // the race detector's shadow memory
	}
	for i, c := range hostile {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostileChild$", "-test.v")
			cmd.Env = append(os.Environ(), hostileEnv+"="+strconv.Itoa(i))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, tail(out))
			}
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
			t.Logf("%s, %s: peak RSS %d MB", c.file, c.pattern, rss>>20)
			if rss > bound {
				t.Errorf("peak RSS %d MB, want at most %d MB", rss>>20, bound>>20)
			}
			var r hostileReport
			_, line, ok := strings.Cut(string(out), "HOSTILE ")
			if !ok {
				t.Fatalf("the child did not report:\n%s", tail(out))
			}
			line, _, _ = strings.Cut(line, "\n")
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			if r.Err != "" {
				t.Fatalf("Search failed: %s", r.Err)
			}
			if r.Matches["ok"+filepath.Ext(c.file)] != 1 {
				t.Errorf("matches %v: the ordinary file's match is missing", r.Matches)
			}
			if c.matches >= 0 {
				if got := r.Matches[c.file]; got != c.matches || len(r.Refused) != 0 {
					t.Errorf("%d matches in %s (refused %v), want %d", got, c.file, r.Refused, c.matches)
				}
				return
			}
			if len(r.Refused) != 1 || r.Refused[0].Path != c.file || r.Matches[c.file] != 0 {
				t.Fatalf("refused %v and %d matches in %s, want it refused", r.Refused, r.Matches[c.file], c.file)
			}
			want := c.refusal
			if want == nil {
				want = []string{
					"[not searched: " + c.file + ": too complex for structural search: ",
					" levels deep (at line ", "search its text with grep]",
				}
			}
			for _, w := range want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, r.Text)
				}
			}
		})
	}
}

// TestHostileChild is the child of TestHostileFilesStaySmall: it searches
// one hostile file, and an ordinary one beside it, as the MCP tool does,
// and prints what it found.
func TestHostileChild(t *testing.T) {
	which := os.Getenv(hostileEnv)
	if which == "" {
		t.Skip("only as the child of TestHostileFilesStaySmall")
	}
	i, _ := strconv.Atoi(which)
	c := hostile[i]
	ordinary := map[string]string{
		".py": "y = (a + b)\n", ".js": "y = (a + b);\n", ".go": "package p\n\nvar y = (a + b)\n",
	}
	ext := filepath.Ext(c.file)
	okSrc := ordinary[ext]
	switch c.pattern {
	case `f($X)`:
		okSrc = strings.Replace(okSrc, "(a + b)", "f(a)", 1)
	case `$A + $A`:
		okSrc = strings.Replace(okSrc, "a + b", "a + a", 1)
	}
	root := writeTree(t, map[string]string{c.file: c.src(), "ok" + ext: okSrc})
	rep := hostileReport{Matches: map[string]int{}}
	r, err := SearchWith(context.Background(), root, Options{Pattern: c.pattern}, Sources{Cache: syntax.NewParseCache(0)})
	if err != nil {
		rep.Err = err.Error()
	} else {
		for _, m := range r.Matches {
			rep.Matches[m.Path]++
		}
		rep.Refused = r.Refused
		rep.Text = r.Text(TextOptions{Limit: 50})
		r.Text(TextOptions{}) // as the CLI prints it
		if err := r.WriteJSONLines(io.Discard); err != nil {
			rep.Err = err.Error()
		}
	}
	b, _ := json.Marshal(rep)
	fmt.Printf("HOSTILE %s\n", b)
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// A file that takes more steps than its budget is refused with an error
// that says which budget and what to do, and a file whose matches nest
// deeper than real code says how deep and where.
func TestBudgetErrorsSayWhy(t *testing.T) {
	many := distinctStatements(300) // every pair compared: 45,000 steps
	deep := "package p\n\nvar x =\n\t" + nest("(", "1", ")", 3000) + "\n"
	for _, c := range []struct {
		name, pattern, src string
		m                  meter
		want               []string
	}{
		{"steps", twice, many, meter{limit: 10000, matchedLimit: 1 << 30},
			[]string{"too complex for structural search: matching `" + twice + "` takes more than 10,000 steps, the budget for a file of " + textfmt.Thousands(len(many)) + " bytes",
				"because its lists can be shared out among the pattern's $$$ in too many ways; give a pattern with fewer $$$ or without a name used twice"}},
		{"matched", "($X)", deep, meter{limit: 1 << 30, matchedLimit: 100000},
			[]string{"the matches of `($X)` would hold more than 100,000 bytes of text, the budget for a file of 6,022 bytes",
				"because its code nests 3,00", "levels deep (at line 4; real code stays under 2,000)", "search its text with grep"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := compile(t, "go", c.pattern)
			defer p.Close()
			ctx := context.Background()
			tree, err := syntax.ParseOnce(ctx, p.Lang, []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Release()
			cands, err := p.candidates(ctx, tree.RootNode(), tree.Source)
			if err != nil {
				t.Fatal(err)
			}
			mt := c.m
			mt.ctx, mt.next = ctx, checkEvery
			m := p.matcher(tree.Source, &mt)
			if ms := p.run(m, cands); m.err == nil {
				t.Fatalf("%d matches within the budget, want it spent", len(ms))
			}
			err = overBudget(ctx, p, tree.RootNode(), m.meter, len(tree.Source))
			if !errors.Is(err, ErrTooComplex) {
				t.Errorf("error does not wrap ErrTooComplex: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// The deepest real files (generated tables of one long `+` chain, tests
// of deep nesting, a stub of thousands of constants) are searched with the
// patterns that cost them most, well within their budgets.
func TestBudgetFitsRealCode(t *testing.T) {
	if testing.Short() {
		t.Skip("parses large real files")
	}
	gosrc := wstest.GoSrc(t)
	for _, c := range []struct {
		language, path string
		patterns       []string
	}{
		// 947 levels deep; 381 KB of one expression.
		{"go", filepath.Join(gosrc, "cmd/vendor/golang.org/x/text/unicode/norm/tables13.0.0.go"), []string{"$X", "$A + $B", "$A + $A"}},
		// Statements nested a thousand levels deep.
		{"go", filepath.Join(gosrc, "internal/coverage/cfile/testdata/issue59563/repro.go"), []string{"$X", "$$$\n$A\n$$$\n$A\n$$$"}},
		// 200 KB of one function's statements.
		{"go", filepath.Join(gosrc, "cmd/compile/internal/ssagen/simdintrinsics.go"), []string{"$$$\n$A\n$$$\n$A\n$$$", "$F($$$, $A, $$$, $A, $$$)"}},
		{"go", filepath.Join(gosrc, "cmd/vendor/rsc.io/markdown/tables.go"), []string{"$F($$$, $A, $$$, $A, $$$)"}},
		// 808 levels deep.
		{"python", filepath.Join(pythonStdlib(t), "test/test_exceptions.py"), []string{"$X", "$A + $B", "$$$\n$A\n$$$\n$A\n$$$"}},
	} {
		src, err := os.ReadFile(c.path)
		if errors.Is(err, os.ErrNotExist) {
			t.Logf("%s is not here: skipped", c.path)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		language := syntax.LanguageByName(c.language)
		tree, err := syntax.ParseOnce(context.Background(), language, src)
		if err != nil {
			t.Fatal(err)
		}
		depth, _ := deepest(context.Background(), tree.RootNode())
		for _, pattern := range c.patterns {
			p := compile(t, c.language, pattern)
			cands, err := p.candidates(context.Background(), tree.RootNode(), src)
			if err != nil {
				t.Fatal(err)
			}
			m := p.matcher(src, newMeter(context.Background(), src))
			ms := p.run(m, cands)
			if m.err != nil {
				t.Errorf("%s, %q: %v", c.path, pattern, m.err)
			}
			// A quarter of either budget is the most a real file may use.
			if m.steps > m.limit/4 || m.matched > m.matchedLimit/4 {
				t.Errorf("%s, %q: %d of %d steps, %d of %d matched bytes: too close to the budget",
					c.path, pattern, m.steps, m.limit, m.matched, m.matchedLimit)
			}
			t.Logf("%s (%d bytes, %d deep), %q: %d matches, %.1f steps and %.1f matched bytes a byte",
				filepath.Base(c.path), len(src), depth, pattern, len(ms), float64(m.steps)/float64(len(src)), float64(m.matched)/float64(len(src)))
			p.Close()
		}
		if depth >= deepNesting {
			t.Errorf("%s nests %d deep, more than deepNesting (%d), which messages call deeper than real code", c.path, depth, deepNesting)
		}
		tree.Release()
	}
}

// pythonStdlib is where python3 keeps its standard library.
func pythonStdlib(tb testing.TB) string {
	tb.Helper()
	dirs := pythonDirs(".")(tb)
	return dirs[0]
}

// cancelAfter is a context that is cancelled at the nth time it is asked
// for its error: a cancellation at a point of the work that does not
// depend on timing.
type cancelAfter struct {
	context.Context
	mu   sync.Mutex
	left int
	done chan struct{}
}

func newCancelAfter(n int) *cancelAfter {
	return &cancelAfter{Context: context.Background(), left: n, done: make(chan struct{})}
}

func (c *cancelAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left > 0 {
		if c.left--; c.left == 0 {
			close(c.done)
		}
	}
	if c.left == 0 {
		return context.Canceled
	}
	return nil
}

func (c *cancelAfter) Done() <-chan struct{} { return c.done }

// distinctStatements is a Go file of one block of n different calls: for
// `$$$ $A $$$ $A $$$` (a statement twice) every pair is compared.
func distinctStatements(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\nfunc f() {\n")
	for i := range n {
		fmt.Fprintf(&b, "\tx%d()\n", i)
	}
	b.WriteString("}\n")
	return b.String()
}

const twice = "$$$\n$A\n$$$\n$A\n$$$"

// Matching looks at its context every checkEvery steps and stops there:
// a cancelled match ends within a few thousand steps, whatever it was
// doing.
func TestMatchStopsWhenCancelled(t *testing.T) {
	p := compile(t, "go", twice)
	defer p.Close()
	tree, err := syntax.ParseOnce(context.Background(), p.Lang, []byte(distinctStatements(2000)))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Release()
	const looks = 10
	ms, err := p.Match(newCancelAfter(looks), tree.RootNode(), tree.Source)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Match = %d matches, %v; want context.Canceled", len(ms), err)
	}
	// The same, with the steps in view.
	cands, err := p.candidates(context.Background(), tree.RootNode(), tree.Source)
	if err != nil {
		t.Fatal(err)
	}
	m := p.matcher(tree.Source, newMeter(newCancelAfter(looks), tree.Source))
	p.run(m, cands)
	// The block's 2000 statements are counted at once, so a few looks
	// come later than every checkEvery steps.
	if limit := (looks + 4) * checkEvery; !errors.Is(m.err, context.Canceled) || m.steps > limit {
		t.Errorf("stopped with %v after %d steps, want context.Canceled within %d", m.err, m.steps, limit)
	}
	// Finding candidates stops too.
	if _, err := p.queryCandidates(newCancelAfter(1), tree.RootNode()); !errors.Is(err, context.Canceled) {
		t.Errorf("queryCandidates: %v, want context.Canceled", err)
	}
}

// A search cancelled while it matches returns the context's error soon
// after, not when the files it was given are done.
func TestSearchStopsWhenCancelled(t *testing.T) {
	// 30 files that take a second or more each.
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.go", i)] = distinctStatements(2000)
	}
	root := writeTree(t, files)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		cancelled <- time.Now()
		cancel()
	}()
	start := time.Now()
	r, err := Search(ctx, root, Options{Pattern: twice, Workers: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Search = %v, %v after %v; want context.Canceled", r, err, time.Since(start))
	}
	// Seconds of slack for a loaded machine; the search would take
	// half a minute or more.
	if after := time.Since(<-cancelled); after > 10*time.Second {
		t.Errorf("Search returned %v after it was cancelled", after)
	}
}

// Past the depth where tree-sitter's query cursor goes wrong, candidates
// are found by a walk from Go; on ordinary files both find the same nodes.
func TestWalkCandidatesAgreeWithQuery(t *testing.T) {
	gosrc := wstest.GoSrc(t)
	files := []string{"net/http/server.go", "go/ast/ast.go", "sort/sort.go"}
	for _, pattern := range []string{"$X", "$A + $B", "if $X != nil { return $X }", "$A.Lock()\n$$$\n$A.Unlock()", "return"} {
		p := compile(t, "go", pattern)
		for _, f := range files {
			src, err := os.ReadFile(filepath.Join(gosrc, f))
			if err != nil {
				t.Fatal(err)
			}
			tree, err := syntax.ParseOnce(context.Background(), p.Lang, src)
			if err != nil {
				t.Fatal(err)
			}
			q, err := p.queryCandidates(context.Background(), tree.RootNode())
			if err != nil {
				t.Fatal(err)
			}
			w, err := p.walkCandidates(context.Background(), tree.RootNode())
			if err != nil {
				t.Fatal(err)
			}
			if len(q) == 0 && pattern != "return" {
				t.Errorf("%s, %q: no candidates", f, pattern)
			}
			same := len(q) == len(w)
			for i := 0; same && i < len(q); i++ {
				same = q[i].StartByte() == w[i].StartByte() && q[i].EndByte() == w[i].EndByte() && q[i].Type() == w[i].Type()
			}
			if !same {
				t.Errorf("%s, %q: the query found %d candidates, the walk %d, or others", f, pattern, len(q), len(w))
			}
			tree.Release()
		}
		p.Close()
	}
}
