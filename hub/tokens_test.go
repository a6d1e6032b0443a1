package hub

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cchub/locate"
	"cchub/structsearch"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// copyCorpus copies a real source tree into a temp dir, waits for its
// files to settle (the token index does not trust a file written just
// now: workspace.RacyWindow), and opens a one-shot hub on it. Symbolic links are copied as links and left
// as they are: a corpus may hold relative links that dangle in the copy
// (Debian's Python has config-3.*/libpython3.*.so and sitecustomize.py),
// so every copy is given such links on purpose, named as sources, and a
// test sees them on every machine, not only where the corpus has them.
func copyCorpus(t *testing.T, src string, o Options) *Hub {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "corpus")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{
		"zz_dangling.py":        "../no/such/dir/sitecustomize.py",
		"zz_dangling.go":        "no_such_file.go",
		"zz_dangling_dir/x.txt": "../../nowhere",
	} {
		p := filepath.Join(dst, link)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
	}
	wstest.Settle(workspace.RacyWindow)
	h, err := Open(dst, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func pythonStdlib(t testing.TB) string {
	out, err := exec.Command("python3", "-c", `import sysconfig;print(sysconfig.get_path("stdlib"))`).Output()
	if err != nil {
		t.Skip("python3's standard library:", err)
	}
	return strings.TrimSpace(string(out))
}

// counted wraps the hub's token index answer, counting its "cannot hold"
// answers (one per file skipped; for a grep of several alternatives, one
// per alternative ruled out).
func counted(h *Hub, skipped *atomic.Int64) workspace.TokenFilter {
	lacks := h.lacks(context.Background())
	return func(rel string, d fs.DirEntry, lits [][]byte) bool {
		if lacks(rel, d, lits) {
			skipped.Add(1)
			return true
		}
		return false
	}
}

// With a token index, search and grep answer exactly what they answer
// without one (the same matches in the same order, the same counts), on
// the whole of GOROOT/src and of Python's standard library, while reading
// fewer files; and a file changed since the index, by a shell, is read.
func TestIndexedSearchAndGrepAnswerAsUnindexed(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes two real source trees")
	}
	patientFlush(t)
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		dir      func(testing.TB) string
		lang     string
		patterns []string
		greps    []locate.GrepOptions
	}{
		{"goroot", wstest.GoSrc, "go",
			[]string{`atomic.AddInt64($A, $B)`, `if $X != nil { return $X }`, `errors.New("$S")`, `$A.Lock()`},
			[]locate.GrepOptions{
				{Pattern: "ErrAbortHandler"}, {Pattern: `func \(\w+ \*\w+\) Serve`}, {Pattern: "content-type", IgnoreCase: true},
				{Pattern: `[A-Z]{3}[0-9]{3}`}, {Pattern: "x := ", Literal: true}, {Pattern: "NoSuchNameAnywhere"},
				{Pattern: `(Read|Write)Deadline\(`}, {Pattern: "^(errors|fmt)$", IgnoreCase: true},
			}},
		{"stdlib", pythonStdlib, "python",
			[]string{`os.fsencode($A)`, `isinstance($X, str)`, `raise NotImplementedError($$$)`, `self.$A = $A`, "def $F(self):\n    return $X"},
			[]locate.GrepOptions{{Pattern: "def __init__"}, {Pattern: "fsencode|fsdecode"}, {Pattern: "NOTIMPLEMENTED", IgnoreCase: true}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := copyCorpus(t, c.dir(t), Options{OneShot: true})
			st, err := h.indexTokens(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s", st)
			if st.Syntax == 0 || st.Syntax != st.Parsed {
				t.Errorf("the syntax of %d files recorded, %d of them parsed for it; want every %s file, each parsed (no graph was built)", st.Syntax, st.Parsed, c.lang)
			}
			var skipped, byLines atomic.Int64
			for _, pat := range c.patterns {
				skipped.Store(0)
				byLines.Store(0)
				opts := structsearch.Options{Pattern: pat, Lang: c.lang}
				plain, err := structsearch.Search(ctx, h.Root, opts)
				if err != nil {
					t.Fatal(err)
				}
				src := h.searchSources(ctx)
				src.Lacks = counted(h, &skipped)
				clean := src.Clean
				src.Clean = func(rel string, d fs.DirEntry, lits [][]byte) bool {
					yes := clean(rel, d, lits)
					if yes {
						byLines.Add(1)
					}
					return yes
				}
				indexed, err := structsearch.SearchWith(ctx, h.Root, opts, src)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(plain, indexed) {
					t.Errorf("search %s: with the index %d matches (%d files, %d parsed), without %d (%d, %d)",
						pat, len(indexed.Matches), indexed.Files, indexed.Parsed, len(plain.Matches), plain.Files, plain.Parsed)
				}
				t.Logf("search %-35s %5d matches, %5d of %d files skipped unread, %d parsed in part", pat, len(plain.Matches), skipped.Load(), plain.Files, byLines.Load())
				// The clean files that may match are parsed in part (lines
				// of Python, declarations of Go); a Python block is parsed
				// whole.
				if partly := !strings.HasPrefix(pat, "def "); partly != (byLines.Load() > int64(plain.Parsed)*9/10) {
					t.Errorf("search %s: %d of %d files parsed in part", pat, byLines.Load(), plain.Parsed)
				}
			}
			// A CLI grep reads the pack per question; the MCP server's
			// hub holds the index, over the walk its watcher vouches for.
			live, err := Open(h.Root.Dir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer live.Close()
			for _, g := range c.greps {
				g.Limit = 100000
				plain, err := locate.Grep(ctx, h.Root, g)
				if err != nil {
					t.Fatal(err)
				}
				for _, hub := range []*Hub{h, live} {
					skipped.Store(0)
					src := hub.grepSources(ctx)
					src.Lacks = counted(hub, &skipped)
					indexed, err := locate.GrepWith(ctx, hub.Root, g, src)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(plain, indexed) {
						t.Errorf("grep %s (one-shot %v): with the index %d lines (%d files, %d searched), without %d (%d, %d)",
							g.Pattern, hub.oneShot, indexed.Total, indexed.Files, indexed.Searched, plain.Total, plain.Files, plain.Searched)
					}
				}
				t.Logf("grep %-37s %5d lines in %d files; %5d answers of cannot hold", g.Pattern, plain.Total, plain.Searched, skipped.Load())
			}
			live.list.mu.Lock()
			walks := live.list.walks
			live.list.mu.Unlock()
			if live.DiskWatch().Note == "" && walks != 1 {
				t.Errorf("the MCP server's hub walked the disk %d times for its Listing, want once", walks)
			}
			if c.name == "goroot" && skipped.Load() == 0 {
				t.Error("the index let no file be skipped")
			}
		})
	}
}

// A file changed after `cchub index` (by the agent's shell, say) is read,
// not answered for by the index: a match added to it is found, by a
// one-shot CLI call (which reads the index per call) and by a long-lived
// hub (which keeps it in memory, and loads it again once it is rebuilt).
func TestAFileChangedSinceTheIndexIsRead(t *testing.T) {
	for _, oneShot := range []bool{true, false} {
		t.Run(fmt.Sprint("oneShot=", oneShot), func(t *testing.T) {
			ctx := context.Background()
			h := copyCorpus(t, filepath.Join("..", "testdata", "workspaces", "go"), Options{OneShot: oneShot})
			if _, err := h.indexTokens(ctx); err != nil {
				t.Fatal(err)
			}
			target := "store/store.go"
			grep := func(pat string) int {
				r, err := h.Grep(ctx, locate.GrepOptions{Pattern: pat})
				if err != nil {
					t.Fatal(err)
				}
				return r.Total
			}
			search := func() int {
				r, err := h.Search(ctx, structsearch.Options{Pattern: `AddedByTheShell($A)`, Lang: "go"})
				if err != nil {
					t.Fatal(err)
				}
				return len(r.Matches)
			}
			if grep("AddedByTheShell") != 0 || search() != 0 {
				t.Fatal("the workspace already holds AddedByTheShell")
			}
			f, err := os.OpenFile(filepath.Join(h.Root.Dir(), target), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(f, "\nvar _ = AddedByTheShell(1)")
			f.Close()
			if n := grep("AddedByTheShell"); n != 1 {
				t.Errorf("grep after the change: %d lines, want 1", n)
			}
			if n := search(); n != 1 {
				t.Errorf("search after the change: %d matches, want 1", n)
			}
			// Indexed again once the change has settled: the new
			// content is in the index, and a long-lived hub answers
			// from it.
			wstest.Settle(workspace.RacyWindow)
			if st, err := h.indexTokens(ctx); err != nil || st.Read != 1 {
				t.Fatalf("index again: %+v, %v", st, err)
			}
			if n := grep("AddedByTheShell"); n != 1 {
				t.Errorf("grep after indexing again: %d lines, want 1", n)
			}
			var skipped atomic.Int64
			src := h.grepSources(ctx)
			src.Lacks = counted(h, &skipped)
			r, err := locate.GrepWith(ctx, h.Root, locate.GrepOptions{Pattern: "AddedByTheShell"}, src)
			if err != nil || r.Total != 1 || skipped.Load() != int64(r.Searched-1) {
				t.Errorf("grep after indexing again: %d lines, %d of %d files skipped (%v); want every file but %s skipped", r.Total, skipped.Load(), r.Searched, err, target)
			}
		})
	}
}

// `cchub index` records which Python and Go files parse without a syntax
// error, from the code graph's own parse (nothing is parsed twice); search
// parses only the lines of those, and of no other file: not one with a
// syntax error, not one changed since (by the agent's shell). Either way
// it finds what a search without the index finds.
func TestTheIndexVouchesOnlyForCleanFiles(t *testing.T) {
	for _, oneShot := range []bool{true, false} {
		t.Run(fmt.Sprint("oneShot=", oneShot), func(t *testing.T) {
			ctx := context.Background()
			patientFlush(t)
			dir := t.TempDir()
			old := time.Now().Add(-time.Hour)
			write := func(rel, content string, at time.Time) {
				t.Helper()
				p := filepath.Join(dir, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, at, at); err != nil {
					t.Fatal(err)
				}
			}
			write("pkg/clean.py", "class K:\n    def __init__(self, a):\n        self.a = a\n", old)
			write("pkg/broken.py", "class B:\n    def __init__(self, b):\n        self.b = b\n\ndef oops(:\n    self.c = c\n", old)
			write("main.go", "package main\n\nfunc main() {}\n", old)
			wstest.Settle(workspace.RacyWindow)
			h, err := Open(dir, Options{OneShot: oneShot})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			st, err := h.Index(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.Tokens.Syntax != 3 || st.Tokens.Parsed != 0 {
				t.Errorf("the syntax of %d files recorded, %d parsed for it; want the three files', all known from the graph's parse", st.Tokens.Syntax, st.Tokens.Parsed)
			}
			vouched := func() []string {
				_, clean := h.answers(ctx)
				var out []string
				if err := h.Root.Walk(ctx, ".", func(rel string, d fs.DirEntry) error {
					if !d.IsDir() && clean(rel, d, nil) {
						out = append(out, rel)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				return out
			}
			same := func(when string, want int) {
				t.Helper()
				opts := structsearch.Options{Pattern: `self.$A = $A`, Lang: "python"}
				plain, err := structsearch.Search(ctx, h.Root, opts)
				if err != nil {
					t.Fatal(err)
				}
				indexed, err := h.Search(ctx, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(plain, indexed) || len(plain.Matches) != want {
					t.Errorf("%s: %d matches with the index, %d without; want %d alike", when, len(indexed.Matches), len(plain.Matches), want)
				}
			}
			if got := vouched(); !reflect.DeepEqual(got, []string{"main.go", "pkg/clean.py"}) {
				t.Errorf("vouched for %v, want main.go and pkg/clean.py", got)
			}
			same("indexed", 3)

			// Rewritten by a shell, still clean: not vouched for until
			// indexed again.
			write("pkg/clean.py", "class K:\n    def __init__(self, a, d):\n        self.a = a\n        self.d = d\n", time.Now())
			if got := vouched(); !reflect.DeepEqual(got, []string{"main.go"}) {
				t.Errorf("after a shell's change to pkg/clean.py, vouched for %v, want main.go", got)
			}
			same("changed", 4)
		})
	}
}
