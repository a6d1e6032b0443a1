package textedit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/syntax"
)

// guardEdit is one edit of a file: the text before, the text after, and
// the range that changed (before[start:oldEnd] became after[start:newEnd]).
type guardEdit struct {
	name, path     string
	before, after  string
	start, oldEnd  int
	newEnd         int
	wantBreak      bool
	beforeAtLeast1 bool // the file had errors already
}

// replaceOnce makes the edit that replaces old, which occurs once in body,
// with new.
func replaceOnce(tb testing.TB, name, path, body, old, new string) guardEdit {
	tb.Helper()
	at := mustOnce(tb, body, old)
	return guardEdit{
		name: name, path: path,
		before: body, after: body[:at] + new + body[at+len(old):],
		start: at, oldEnd: at + len(old), newEnd: at + len(new),
	}
}

// checkGuard runs an edit through syntaxErrors and every way of the guard,
// and wants them to agree with e.wantBreak.
func checkGuard(t *testing.T, e guardEdit) {
	t.Helper()
	ctx := context.Background()
	language := syntax.LanguageFor(e.path)
	nb, err := syntaxErrors(ctx, language, []byte(e.before))
	if err != nil {
		t.Fatal(err)
	}
	na, err := syntaxErrors(ctx, language, []byte(e.after))
	if err != nil {
		t.Fatal(err)
	}
	if e.beforeAtLeast1 && nb == 0 {
		t.Fatalf("%s: premise: the file before has no syntax errors", e.name)
	}
	if (na > nb) != e.wantBreak {
		t.Errorf("%s: syntax errors %d before, %d after; want a break: %v", e.name, nb, na, e.wantBreak)
	}
	g := newGuard(ctx, e.path, []byte(e.before))
	defer g.close()
	if n, err := g.beforeErrors(); err != nil || n != nb {
		t.Errorf("%s: beforeErrors = %d, %v; want %d", e.name, n, err, nb)
	}
	if n, err := g.afterErrors([]byte(e.after), e.start, e.oldEnd, e.newEnd); err != nil || n != na {
		t.Errorf("%s: incremental count after = %d, %v; a full parse counts %d", e.name, n, err, na)
	}
	for _, way := range []struct {
		name string
		f    func() (bool, error)
	}{
		{"breaks", func() (bool, error) { return g.breaks([]byte(e.after)) }},
		{"breaksEdit", func() (bool, error) { return g.breaksEdit([]byte(e.after), e.start, e.oldEnd, e.newEnd) }},
		{"breaksFull", func() (bool, error) { return g.breaksFull([]byte(e.after)) }},
	} {
		if broke, err := way.f(); err != nil || broke != e.wantBreak {
			t.Errorf("%s: %s = %v, %v; want %v", e.name, way.name, broke, err, e.wantBreak)
		}
	}
}

const pyPairs = "import itertools\ndef pairs(xs):\n    return list(itertools.pairwise(xs))\n"

// Edits that break a file raise its count of syntax errors.
func TestSyntaxGuardBreakingEdits(t *testing.T) {
	server := readGo(t, "net/http/server.go")
	textwrap := readPy(t, "textwrap.py")
	edits := []guardEdit{
		// A method dedented to column 2 under its class: IndentationError
		// for CPython, no ERROR node for tree-sitter-python.
		replaceOnce(t, "python def dedented", "textwrap.py", textwrap,
			"    def _munge_whitespace(self, text):", "  def _munge_whitespace(self, text):"),
		// Two lines glued: the def folds into the comment, its body is left
		// indented under nothing.
		replaceOnce(t, "python lines glued", "pairs.py", pyPairs,
			"import itertools\n", "import itertools# edited"),
		// A block header glued to its first line: the block is commented out.
		replaceOnce(t, "python header glued", "textwrap.py", textwrap,
			"    def _split(self, text):\n        \"\"\"_split(text : string) -> [string]",
			"    def _split(self, text):# edited        \"\"\"_split(text : string) -> [string]"),
		// A Go string literal split by a real newline.
		replaceOnce(t, "go string split", "server.go", server,
			`"http: Server closed"`, "\"http: Server\nclosed\""),
		// Two Go lines glued: the closing brace folds into the comment.
		replaceOnce(t, "go lines glued", "server.go", server,
			"\treturn c.hijackedv\n}\n", "\treturn c.hijackedv // edited}\n"),
		// A Go brace lost.
		replaceOnce(t, "go brace lost", "server.go", server,
			"func (c *conn) hijacked() bool {\n", "func (c *conn) hijacked() bool\n"),
	}
	for _, e := range edits {
		e.wantBreak = true
		checkGuard(t, e)
	}
}

// Edits that keep a file's syntax do not raise its count.
func TestSyntaxGuardKeepingEdits(t *testing.T) {
	server := readGo(t, "net/http/server.go")
	textwrap := readPy(t, "textwrap.py")
	edits := []guardEdit{
		replaceOnce(t, "go rename", "server.go", server,
			"\treturn c.hijackedv\n}\n", "\tv := c.hijackedv\n\treturn v\n}\n"),
		replaceOnce(t, "go comment", "server.go", server,
			"func (c *conn) hijacked() bool {\n", "func (c *conn) hijacked() bool { // edited\n"),
		replaceOnce(t, "go string", "server.go", server,
			`"http: Server closed"`, `"http: server closed"`),
		replaceOnce(t, "python body", "textwrap.py", textwrap,
			"    def _munge_whitespace(self, text):\n",
			"    def _munge_whitespace(self, text):\n        text = str(text)  # edited\n"),
		replaceOnce(t, "python method added", "textwrap.py", textwrap,
			"    def _split(self, text):\n",
			"    def _noop(self):\n        pass\n\n    def _split(self, text):\n"),
		replaceOnce(t, "python lines kept apart", "pairs.py", pyPairs,
			"import itertools\n", "import itertools  # edited\n"),
	}
	for _, e := range edits {
		checkGuard(t, e)
	}
}

// A file that has errors already may keep them: only more errors break it.
func TestSyntaxGuardFileWithErrors(t *testing.T) {
	textwrap := readPy(t, "textwrap.py")
	broken := strings.Replace(textwrap, "    def _split(self, text):\n", "    def _split(self, text:\n", 1)
	server := readGo(t, "net/http/server.go")
	goBroken := strings.Replace(server, `"http: Server closed"`, `"http: Server closed`, 1)
	for _, e := range []guardEdit{
		replaceOnce(t, "python edit elsewhere", "textwrap.py", broken,
			"    def _munge_whitespace(self, text):\n",
			"    def _munge_whitespace(self, text):\n        text = str(text)\n"),
		replaceOnce(t, "python error fixed", "textwrap.py", broken,
			"    def _split(self, text:\n", "    def _split(self, text):\n"),
		replaceOnce(t, "go edit elsewhere", "server.go", goBroken,
			"\treturn c.hijackedv\n}\n", "\tv := c.hijackedv\n\treturn v\n}\n"),
	} {
		e.beforeAtLeast1 = true
		checkGuard(t, e)
	}
	for _, e := range []guardEdit{
		replaceOnce(t, "python second error", "textwrap.py", broken,
			"    def _munge_whitespace(self, text):", "  def _munge_whitespace(self, text):"),
		replaceOnce(t, "go second error", "server.go", goBroken,
			"func (c *conn) hijacked() bool {\n", "func (c *conn) hijacked() bool\n"),
	} {
		e.beforeAtLeast1, e.wantBreak = true, true
		checkGuard(t, e)
	}
}

// A file in a language cchub cannot parse is never broken.
func TestSyntaxGuardUnknownLanguage(t *testing.T) {
	for _, path := range []string{"notes.txt", "Makefile", "README.md", "data.json"} {
		g := newGuard(context.Background(), path, []byte("a {\n"))
		if g != nil {
			t.Errorf("%s: a guard for a language cchub does not know", path)
		}
		if broke, err := g.breaks([]byte("a {{{\n\"")); broke || err != nil {
			t.Errorf("%s: breaks = %v, %v", path, broke, err)
		}
		if broke, err := g.breaksEdit([]byte("a {{{\n\""), 0, 1, 3); broke || err != nil {
			t.Errorf("%s: breaksEdit = %v, %v", path, broke, err)
		}
		if broke, err := g.breaksFull([]byte("a {{{\n\"")); broke || err != nil {
			t.Errorf("%s: breaksFull = %v, %v", path, broke, err)
		}
		g.close()
	}
}

// A range that does not cover the change is refused, not trusted.
func TestSyntaxGuardBadRange(t *testing.T) {
	g := newGuard(context.Background(), "pairs.py", []byte(pyPairs))
	defer g.close()
	after := []byte(strings.Replace(pyPairs, "itertools\n", "itertools# edited", 1))
	start, oldEnd, newEnd := changedRange([]byte(pyPairs), after)
	for _, r := range [][3]int{
		{start + 1, oldEnd, newEnd},
		{start, oldEnd - 1, newEnd},
		{start, oldEnd, newEnd + 1},
		{-1, oldEnd, newEnd},
		{start, len(pyPairs) + 1, newEnd},
	} {
		if _, err := g.breaksEdit(after, r[0], r[1], r[2]); err == nil {
			t.Errorf("breaksEdit took the range %v of a change at %d..%d -> %d", r, start, oldEnd, newEnd)
		}
	}
	if broke, err := g.breaksEdit(after, 0, len(pyPairs), len(after)); err != nil || !broke {
		t.Errorf("breaksEdit over the whole file = %v, %v", broke, err)
	}
}

// A cancelled context stops the count and the guard with its error.
func TestSyntaxGuardCancelled(t *testing.T) {
	server := []byte(readGo(t, "net/http/server.go"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := syntaxErrors(ctx, syntax.LanguageFor("server.go"), server); !errors.Is(err, context.Canceled) {
		t.Errorf("syntaxErrors: %v, want context.Canceled", err)
	}
	g := newGuard(ctx, "server.go", server)
	if _, err := g.breaks(server); !errors.Is(err, context.Canceled) {
		t.Errorf("breaks: %v, want context.Canceled", err)
	}
	g.close()

	// Cancelled after the file before was parsed.
	ctx, cancel = context.WithCancel(context.Background())
	g = newGuard(ctx, "server.go", server)
	defer g.close()
	if _, err := g.beforeErrors(); err != nil {
		t.Fatal(err)
	}
	cancel()
	for name, f := range map[string]func() (bool, error){
		"breaks":     func() (bool, error) { return g.breaks(server) },
		"breaksEdit": func() (bool, error) { return g.breaksEdit(server, 0, 0, 0) },
		"breaksFull": func() (bool, error) { return g.breaksFull(server) },
	} {
		if _, err := f(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", name, err)
		}
	}
}

// The guard answers as a full parse of the result would, over many random
// edits of real files (some with errors already): deletions, insertions of
// the file's own text and of syntax that breaks things, lines glued,
// indentation changed. The incremental count itself may differ from a
// fresh parse's where error recovery differs (see breaksEdit), rarely.
func TestSyntaxGuardIncrementalMatchesFull(t *testing.T) {
	textwrap := readPy(t, "textwrap.py")
	strs := readGo(t, "strings/strings.go")
	files := []struct{ path, text string }{
		{"strings.go", strs},
		{"strings.go", strings.Replace(strs, "func Count(", "func Count", 1)},
		{"builder.go", readGo(t, "strings/builder.go")},
		{"textwrap.py", textwrap},
		{"textwrap.py", strings.Replace(textwrap, "    def _split(self, text):\n", "    def _split(self, text:\n", 1)},
		{"colorsys.py", readPy(t, "colorsys.py")},
		{"argparse.py", readCopy(t, "argparse_excerpt.py")},
	}
	edits := 80
	if testing.Short() {
		edits = 20
	}
	ctx := context.Background()
	for fi, f := range files {
		t.Run(fmt.Sprintf("%d-%s", fi, f.path), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(fi), 1))
			g := newGuard(ctx, f.path, []byte(f.text))
			language := syntax.LanguageFor(f.path)
			nb, err := g.beforeErrors()
			if err != nil {
				t.Fatal(err)
			}
			broke, differ := 0, 0
			for range edits {
				after, start, oldEnd, newEnd := randomEdit(rng, f.text)
				full, err := syntaxErrors(ctx, language, after)
				if err != nil {
					t.Fatal(err)
				}
				inc, err := g.afterErrors(after, start, oldEnd, newEnd)
				if err != nil {
					t.Fatal(err)
				}
				// A range wider than the change, as a caller may pass.
				wide, err := g.afterErrors(after, start/2, oldEnd+(len(f.text)-oldEnd)/2, newEnd+(len(f.text)-oldEnd)/2)
				if err != nil {
					t.Fatal(err)
				}
				if inc != full || wide != full {
					differ++
					t.Logf("%s: edit %d..%d -> %q: %d syntax errors by a full parse, %d incrementally, %d over a wider range",
						f.path, start, oldEnd, after[start:newEnd], full, inc, wide)
				}
				b1, err1 := g.breaks(after)
				b2, err2 := g.breaksEdit(after, start, oldEnd, newEnd)
				if err1 != nil || err2 != nil || b1 != (full > nb) || b2 != (full > nb) {
					t.Errorf("%s: edit %d..%d -> %q: %d syntax errors before, %d after; breaks %v, %v; breaksEdit %v, %v",
						f.path, start, oldEnd, after[start:newEnd], nb, full, b1, err1, b2, err2)
				}
				if full > nb {
					broke++
				}
			}
			g.close()
			t.Logf("%s (%d errors before): %d of %d random edits break it; %d incremental counts differ", f.path, nb, broke, edits, differ)
			if broke == 0 || broke == edits {
				t.Errorf("%s: premise: %d of %d random edits break the file; want some of each", f.path, broke, edits)
			}
			if differ > edits/20 {
				t.Errorf("%s: %d of %d incremental counts differ from a full parse's", f.path, differ, edits)
			}
		})
	}
}

// randomEdit changes text in one place at random: the new text, and the
// changed range.
func randomEdit(rng *rand.Rand, text string) (after []byte, start, oldEnd, newEnd int) {
	breakers := []string{"\n", "\"", "'", "{", "}", "(", ")", ":", "  ", "\t", "# ", "//", "def ", "\n    ", "func ", "`", "\"\"\"", "\\"}
	start = rng.IntN(len(text))
	oldEnd = start
	var ins string
	switch rng.IntN(6) {
	case 0: // delete a span
		oldEnd = min(len(text), start+rng.IntN(40))
	case 1: // insert a span of the file's own text
		from := rng.IntN(len(text))
		ins = text[from:min(len(text), from+rng.IntN(60))]
	case 2: // insert a breaker
		ins = breakers[rng.IntN(len(breakers))]
	case 3: // glue a line to the next
		if k := strings.IndexByte(text[start:], '\n'); k >= 0 {
			start += k
			oldEnd = start + 1
			ins = []string{"", " # edited", " // edited"}[rng.IntN(3)]
		}
	case 4: // change a line's indentation
		start = strings.LastIndexByte(text[:start], '\n') + 1
		oldEnd = start + len(text[start:]) - len(strings.TrimLeft(text[start:], " \t"))
		ins = strings.Repeat(" ", rng.IntN(10))
	case 5: // replace a span with the file's own text
		oldEnd = min(len(text), start+rng.IntN(40))
		from := rng.IntN(len(text))
		ins = text[from:min(len(text), from+rng.IntN(40))]
	}
	after = []byte(text[:start] + ins + text[oldEnd:])
	return after, start, oldEnd, start + len(ins)
}

// pyIndentErrors finds what CPython calls indentation errors, once or
// twice each, and nothing in Python's own standard library.
func TestSyntaxPyIndentErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{"x = 1\ny = 2\n", 0},
		{"x = 1\n  y = 2\n", 1},                              // unexpected indent
		{"if x:\nfoo()\n", 1},                                // expected an indented block
		{"if x:\n", 1},                                       // the same, at the end
		{"if x:\n    # only a comment\n", 1},                 // the same
		{"if x: foo()\nbar()\n", 0},                          // a block on the header's line
		{"def f():\n    if a:\n        b()\n      c()\n", 1}, // unindent does not match
		{"class A:\n    def f(self):\n        return 1\n\n  def g(self):\n        return 2\n\n    def h(self):\n        return 3\n", 2},
		{"x = (1,\n  2,\n      3)\ny = 4\n", 0},      // brackets
		{"x = 1 + \\\n    2\ny = 3\n", 0},            // a backslash continuation
		{"s = '''\n  a\n b:\n'''\nt = 1\n", 0},       // a string over lines
		{"s = \"a\\\"b:\"\nt = r'\\'' \nu = 1\n", 0}, // escaped quotes
		{"d = {1:\n 2}\n", 0},                        // a colon in brackets
		{"if x:  # a comment\n    y()\n", 0},         // a comment after the colon
		{"if x:\r\n    y()\r\n  z()\r\n", 1},         // CRLF
		{"if x:\n\tif y:\n\t\tz()\n\tw()\n", 0},      // tabs
		{"x = 1\n\n   \n# c\n    # indented comment\ny = 2\n", 0},
	} {
		if got := pyIndentErrors([]byte(c.src)); got != c.want {
			t.Errorf("pyIndentErrors(%q) = %d, want %d", c.src, got, c.want)
		}
	}
	dir := pyStdlib(t)
	names, _ := filepath.Glob(filepath.Join(dir, "*.py"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*.py"))
	checked := 0
	for _, name := range append(names, more...) {
		if strings.Contains(filepath.Base(name), "bad") || strings.Contains(name, "lib2to3") {
			continue // test data that is meant not to parse, or Python 2
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if n := pyIndentErrors(data); n != 0 {
			t.Errorf("%s: %d indentation errors in Python's own source", name, n)
		}
	}
	if checked < 100 {
		t.Errorf("premise: only %d stdlib files", checked)
	}
}
