package structsearch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cchub/syntax"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// writeTree makes a workspace of the given files.
func writeTree(t *testing.T, files map[string]string) *workspace.Root {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

var mixed = map[string]string{
	".gitignore":     "gen/\n",
	"main.go":        "package main\n\nfunc main() {\n\tdispose(x)\n\tdispose(\n\t\ty,\n\t)\n\t_ = \"dispose(z)\"\n}\n",
	"lib/util.py":    "def f(x):\n    dispose(x)  # dispose(y)\n    return x is None\n",
	"web/app.js":     "// dispose(a)\ndispose(a);\n",
	"web/app.ts":     "dispose(b as Thing);\n",
	"src/lib.rs":     "fn f() { dispose(c); }\n",
	"gen/gen.go":     "package gen\n\nfunc g() { dispose(ignored) }\n",
	"notes/notes.md": "dispose(x)\n",
}

func locations(r *Result) []string {
	var out []string
	for _, m := range r.Matches {
		out = append(out, fmt.Sprintf("%s:%d:%d", m.Path, m.StartLine, m.StartCol))
	}
	return out
}

// Without a language, each file is searched in its own, the pattern
// compiled once per language; .gitignore is honoured.
func TestSearchEveryLanguage(t *testing.T) {
	root := writeTree(t, mixed)
	r, err := Search(context.Background(), root, Options{Pattern: `dispose($X)`})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lib/util.py:2:5", "main.go:4:2", "main.go:5:2", "src/lib.rs:1:10", "web/app.js:2:1", "web/app.ts:1:1"}
	if got := locations(r); !slices.Equal(got, want) {
		t.Errorf("matches %q\nwant    %q", got, want)
	}
	if r.Files != 5 {
		t.Errorf("Files = %d, want 5 (gen/ is ignored, .md is no language)", r.Files)
	}
	if len(r.Invalid) != 0 {
		t.Errorf("Invalid = %v, want none", r.Invalid)
	}
	text := r.Text(TextOptions{})
	for _, w := range []string{"Found 6 matches in 5 files", "main.go:5:2  $X = y\n5\t\tdispose(\n6\t\t\ty,\n7\t\t)\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
	counts := r.Text(TextOptions{Counts: true})
	if !strings.Contains(counts, "main.go: 2\n") {
		t.Errorf("counts lack main.go: 2:\n%s", counts)
	}
	if limited := r.Text(TextOptions{Limit: 2}); !strings.Contains(limited, "[showing 2 of 6 matches") {
		t.Errorf("a limited text does not say what it left out:\n%s", limited)
	}
}

func TestSearchLanguageAndPaths(t *testing.T) {
	root := writeTree(t, mixed)
	r, err := Search(context.Background(), root, Options{Pattern: `dispose($X)`, Lang: "ts", Paths: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := locations(r); !slices.Equal(got, []string{"web/app.ts:1:1"}) {
		t.Errorf("matches %q, want only web/app.ts", got)
	}
	if !slices.Equal(r.Languages, []string{"typescript"}) {
		t.Errorf("Languages = %q", r.Languages)
	}
	r, err = Search(context.Background(), root, Options{Pattern: `dispose($X)`, Paths: []string{"main.go", "src"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := locations(r); !slices.Equal(got, []string{"main.go:4:2", "main.go:5:2", "src/lib.rs:1:10"}) {
		t.Errorf("matches %q", got)
	}
	if _, err := Search(context.Background(), root, Options{Pattern: `dispose($X)`, Paths: []string{"../elsewhere"}}); err == nil {
		t.Error("a path outside the root was searched")
	}
}

// A pattern valid in some languages only searches those, and says which
// files it skipped; an empty result says what was searched.
func TestSearchSaysWhatItSkipped(t *testing.T) {
	root := writeTree(t, mixed)
	r, err := Search(context.Background(), root, Options{Pattern: `$X is None`})
	if err != nil {
		t.Fatal(err)
	}
	if got := locations(r); !slices.Equal(got, []string{"lib/util.py:3:12"}) {
		t.Errorf("matches %q", got)
	}
	if _, ok := r.Invalid["go"]; !ok {
		t.Errorf("Invalid = %v, want go (there are .go files it was not searched in)", r.Invalid)
	}
	if _, ok := r.Invalid["java"]; ok {
		t.Errorf("Invalid names java, but there are no .java files")
	}
	if text := r.Text(TextOptions{}); !strings.Contains(text, "(not valid ") || !strings.Contains(text, "go") {
		t.Errorf("text does not say which files were not searched:\n%s", text)
	}

	r, err = Search(context.Background(), root, Options{Pattern: `undisposed($X)`})
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text(TextOptions{})
	if len(r.Matches) != 0 || !strings.Contains(text, "No matches for `undisposed($X)`") || !strings.Contains(text, "0 of 5 files could match") {
		t.Errorf("no-match text:\n%s", text)
	}
	r, err = Search(context.Background(), root, Options{Pattern: `dispose($X)`, Lang: "java"})
	if err != nil {
		t.Fatal(err)
	}
	if text := r.Text(TextOptions{}); !strings.Contains(text, "No file in those languages was searched") {
		t.Errorf("a search of no files does not say so:\n%s", text)
	}
}

// A long-lived hub passes its parse cache: the second search parses
// nothing and finds the same.
func TestSearchUsesTheParseCache(t *testing.T) {
	root := writeTree(t, mixed)
	cache := syntax.NewParseCache(0)
	defer cache.Close()
	opts, src := Options{Pattern: `dispose($X)`}, Sources{Cache: cache}
	first, err := SearchWith(context.Background(), root, opts, src)
	if err != nil {
		t.Fatal(err)
	}
	s1 := cache.Stats()
	if s1.Misses != first.Parsed || s1.Hits != 0 {
		t.Fatalf("after one search: %+v, parsed %d", s1, first.Parsed)
	}
	second, err := SearchWith(context.Background(), root, opts, src)
	if err != nil {
		t.Fatal(err)
	}
	s2 := cache.Stats()
	if s2.Hits != second.Parsed || s2.Misses != s1.Misses {
		t.Errorf("second search: stats %+v (before %+v), parsed %d: want every tree from the cache", s2, s1, second.Parsed)
	}
	if !slices.Equal(locations(first), locations(second)) {
		t.Errorf("cached search found %q, first %q", locations(second), locations(first))
	}
}

// Searches one after another find the same: no search leaves the shared
// parsers unable to parse (go-tree-sitter can arm a pooled parser's
// cancellation flag after a parse returns, when the search's context is
// cancelled at its end).
func TestSearchIsRepeatable(t *testing.T) {
	if testing.Short() {
		t.Skip("parses part of GOROOT")
	}
	root, err := workspace.Open(wstest.GoSrc(t))
	if err != nil {
		t.Fatal(err)
	}
	var first []string
	for i := 0; i < 6; i++ {
		r, err := Search(context.Background(), root, Options{Pattern: `$A.Lock()`, Lang: "go", Paths: []string{"net/http", "sync"}})
		if err != nil {
			t.Fatal(err)
		}
		got := locations(r)
		if i == 0 {
			first = got
			if len(first) == 0 {
				t.Fatal("no $A.Lock() in net/http and sync")
			}
		} else if !slices.Equal(got, first) {
			t.Fatalf("search %d found %d matches, the first %d", i+1, len(got), len(first))
		}
	}
}

// Each match shows its first lines as LINE<TAB>text, the number not
// padded, and says how many more it has and where it ends.
func TestTextLines(t *testing.T) {
	root := writeTree(t, map[string]string{
		"long.py": "x = 1\ndispose(\n    a,\n    b,\n    c,\n    d,\n    e,\n    f,\n)\n",
	})
	r, err := Search(context.Background(), root, Options{Pattern: `dispose($$$)`})
	if err != nil {
		t.Fatal(err)
	}
	want := "long.py:2:1\n2\tdispose(\n3\t    a,\n4\t    b,\n5\t    c,\n6\t    d,\n…\t(3 more lines, to line 9)\n"
	if text := r.Text(TextOptions{}); !strings.Contains(text, want) {
		t.Errorf("text:\n%s\nwant it to hold:\n%s", text, want)
	}
}

// Windows line endings and text that is not all UTF-8 are searched like
// the rest; the lines shown carry no carriage returns, and a long capture
// is cut between characters, not inside one.
func TestSearchOddText(t *testing.T) {
	long := strings.Repeat("é", 100)
	root := writeTree(t, map[string]string{
		"crlf.go":   "package p\r\n\r\nfunc f() {\r\n\tdispose(\r\n\t\tx,\r\n\t)\r\n}\r\n",
		"latin1.py": "# caf\xe9\ndispose(y)\n",
		"long.py":   "dispose(\"" + long + "\")\n",
		"bin.py":    "dispose(z)\x00\n",
	})
	r, err := Search(context.Background(), root, Options{Pattern: `dispose($X)`})
	if err != nil {
		t.Fatal(err)
	}
	if got := locations(r); !slices.Equal(got, []string{"crlf.go:4:2", "latin1.py:2:1", "long.py:1:1"}) {
		t.Errorf("matches %q, want crlf.go, latin1.py and long.py (bin.py is binary)", got)
	}
	text := r.Text(TextOptions{})
	if strings.Contains(text, "\r") {
		t.Errorf("text holds a carriage return:\n%q", text)
	}
	if !strings.Contains(text, "\n6\t\t)\n") {
		t.Errorf("text lacks the call's last line:\n%s", text)
	}
	if !strings.Contains(text, `$X = "`+strings.Repeat("é", 76)+"...") {
		t.Errorf("a long capture is not cut to 77 characters:\n%s", text)
	}
}

// A directory the walk cannot read is named in the answer, not passed over.
func TestSearchSaysWhatItCouldNotRead(t *testing.T) {
	root := writeTree(t, map[string]string{"a.go": "package a\n\nfunc f() { g() }\n"})
	bad, reason := wstest.UnreadableDir(t, root.Dir())
	r, err := Search(context.Background(), root, Options{Pattern: "g()", Lang: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Unreadable) != 1 || r.Unreadable[0].Path != bad {
		t.Fatalf("unreadable = %v, want %s", r.Unreadable, bad)
	}
	if want := "(" + reason + "); their files were not searched]"; !strings.Contains(r.Text(TextOptions{}), want) {
		t.Errorf("text lacks %q:\n%s", want, r.Text(TextOptions{}))
	}
}
