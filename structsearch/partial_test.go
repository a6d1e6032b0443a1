package structsearch

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"cchub/syntax"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

func TestPyLogicalLines(t *testing.T) {
	type line struct {
		text   string // from its code to its end
		header bool
	}
	for _, c := range []struct {
		name string
		src  string
		want []line // nil: not read
	}{
		{"simple", "a = 1\n\n  # c\nb = 2", []line{{"a = 1\n", false}, {"b = 2", false}}},
		{"header", "if x:  # why\n    y\n", []line{{"if x:  # why\n", true}, {"y\n", false}}},
		{"one-liner", "if x: y\n", []line{{"if x: y\n", false}}},
		{"colon in brackets", "d = {a:\n  b}\nx[1:]\n", []line{{"d = {a:\n  b}\n", false}, {"x[1:]\n", false}}},
		{"continuation", "x = 1 + \\\n    2\ny\n", []line{{"x = 1 + \\\n    2\n", false}, {"y\n", false}}},
		{"crlf", "a = (1,\r\n 2)\r\nb\r\n", []line{{"a = (1,\r\n 2)\r\n", false}, {"b\r\n", false}}},
		{"hash in string", "s = '#('  # )\nt\n", []line{{"s = '#('  # )\n", false}, {"t\n", false}}},
		{"triple", "s = \"\"\"\nx = (\n\"\"\"\nt\n", []line{{"s = \"\"\"\nx = (\n\"\"\"\n", false}, {"t\n", false}}},
		{"triple single", "'''a\n'' '\n'''\n", []line{{"'''a\n'' '\n'''\n", false}}},
		{"escaped quote", `s = "a\"b(" ; t` + "\nu\n", []line{{`s = "a\"b(" ; t` + "\n", false}, {"u\n", false}}},
		{"raw escaped quote", `s = r"\"(" ` + "\nu\n", []line{{`s = r"\"(" ` + "\n", false}, {"u\n", false}}},
		{"prefixes", "x = rb'(' + BR\"[\" + Rb'''{''' + u'(' \ny\n", []line{{"x = rb'(' + BR\"[\" + Rb'''{''' + u'(' \ny\n"[:len("x = rb'(' + BR\"[\" + Rb'''{''' + u'(' \n")], false}, {"y\n", false}}},
		{"name then string", "print 'a('\nb\n", []line{{"print 'a('\n", false}, {"b\n", false}}},
		{"f-string field", `x = f"{d["k"]}(" + f'{a!r:>{w}}' + f"{{(" ` + "\ny\n", []line{{`x = f"{d["k"]}(" + f'{a!r:>{w}}' + f"{{(" ` + "\n", false}, {"y\n", false}}},
		{"f-string spec quote", `x = f"{a:'>10}"` + "\ny\n", []line{{`x = f"{a:'>10}"` + "\n", false}, {"y\n", false}}},
		{"f-string dict in field", `x = f"{ {'a': 1}['a'] }"` + "\nif y:\n", []line{{`x = f"{ {'a': 1}['a'] }"` + "\n", false}, {"if y:\n", true}}},
		{"triple f-string", "x = f'''{\na}\n'''\ny\n", []line{{"x = f'''{\na}\n'''\n", false}, {"y\n", false}}},
		{"backtick", "x = `a(`\ny\n", []line{{"x = `a(`\n", false}, {"y\n", false}}},
		{"dict colon last", "x = {1:\n 2}\n", []line{{"x = {1:\n 2}\n", false}}},
		{"lambda", "f = lambda: 0\n", []line{{"f = lambda: 0\n", false}}},
		{"string then colon", "if 'a:':\n  b\n", []line{{"if 'a:':\n", true}, {"b\n", false}}},
		{"form feed", "\f\nx\n", []line{{"x\n", false}}},
		{"unterminated", "s = 'abc\nt\n", nil},
		{"unterminated triple", "s = '''abc\n", nil},
		{"unclosed bracket", "x = (1,\n", nil},
		{"closed unopened", "x = 1)\n", nil},
		{"stray backslash", "x = 1 \\ 2\n", nil},
		{"lone cr", "x = 1\ry = 2\n", nil},
		{"trailing comma", "A,\nself.a = a\n", nil},
		{"trailing dot", "A.\nself.a = a\n", nil},
		{"trailing operator", "x = a +\nb\n", nil},
		{"trailing keyword", "x = a if b else\nc\n", nil},
		{"ellipsis", "x = ...\ny\n", []line{{"x = ...\n", false}, {"y\n", false}}},
		{"import star", "from a import *  # all\ny\n", []line{{"from a import *  # all\n", false}, {"y\n", false}}},
		{"star", "x = a *\ny\n", nil},
		{"float", "x = 1.\ny\n", []line{{"x = 1.\n", false}, {"y\n", false}}},
		{"name then dot", "x = a1.\ny\n", nil},
		{"colon of no block", "A:\n 0\n", nil},
		{"ends with keyword that may end", "return\nx = None\n", []line{{"return\n", false}, {"x = None\n", false}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			lines, ok := pyLogicalLines([]byte(c.src), nil)
			if c.want == nil {
				if ok {
					t.Fatalf("read %q as %d lines; want refused", c.src, len(lines))
				}
				return
			}
			if !ok {
				t.Fatalf("refused %q", c.src)
			}
			var got []line
			for _, l := range lines {
				got = append(got, line{c.src[l.code:l.end], l.header})
				if strings.TrimLeft(c.src[l.start:l.code], " \t\f") != "" {
					t.Errorf("line %q starts at %d, its code at %d", c.src[l.code:l.end], l.start, l.code)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("lines of %q:\n got %+v\nwant %+v", c.src, got, c.want)
			}
		})
	}
}

// pyTricky is valid Python that puts the lines a match can be on in every
// kind of place: clauses, decorators, one-line blocks, match statements,
// strings and comments that look like code.
const pyTricky = `import os


@decorator(isinstance(a, b))
@other
class K(Base, metaclass=isinstance(m, type)):
    """self.a = a
    isinstance(x, y)
    """

    def __init__(self, a, b=isinstance(c, d)):
        self.a = a  # self.b = b
        s = "self.c = c"
        if a: self.b = b
        elif isinstance(b, int):
            self.c = c
        elif b:
            pass
        else: self.d = d
        try:
            self.e = e
        except (isinstance(e, E) and E) as err:
            self.f = f
        except OSError: self.g = g
        else:
            x = isinstance(q, r)
        finally:
            self.h = h
        for i in isinstance(j, k):
            pass
        else:
            self.i = i
        while isinstance(w, W): self.j = j
        with open(p) as f, isinstance(t, u):
            self.k = k
        match cmd:
            case Point(x=0) if isinstance(z, Z):
                self.l = l
            case _:
                self.m = (m)
        self.n = \
            n
        self.o = (
            o)
        t = f"{isinstance(a, b)} {self.p}"
        async def inner(self, q):
            self.q = q
            await isinstance(aw, AW)
        lambda: isinstance(l1, l2)
        return [isinstance(v, V) for v in vs if isinstance(v, W)]


def top():
	if x:
		self.tab = tab
	else:
	    self.mix = mix
`

// lineCase checks that matchLines finds in src what matching the whole
// file's tree finds; it says whether matchLines parsed lines (false: it
// left the file to the whole parse).
func lineCase(t testing.TB, src []byte, p *Pattern) bool {
	t.Helper()
	tree, err := syntax.ParseOnce(context.Background(), p.Lang, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Release()
	if tree.RootNode().HasError() {
		t.Fatalf("the source does not parse cleanly")
	}
	return lineCaseIn(t, src, tree, p)
}

// lineCaseIn is lineCase with the whole file's tree.
func lineCaseIn(t testing.TB, src []byte, tree *syntax.Tree, p *Pattern) bool {
	t.Helper()
	ctx := context.Background()
	want, err := p.Match(ctx, tree.RootNode(), src)
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := p.matchParts(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the lines found %d matches, the whole file %d", p.Source, len(got), len(want))
		for i := range max(len(got), len(want)) {
			var g, w Match
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("first difference: lines %d:%d %q, whole %d:%d %q", g.StartLine, g.StartCol, g.Text, w.StartLine, w.StartCol, w.Text)
				break
			}
		}
	}
	return ok
}

func TestMatchLinesFindsWhatTheWholeParseFinds(t *testing.T) {
	py := syntax.LanguageByName("python")
	for _, c := range []struct {
		pattern string
		matches int
	}{
		{`self.$A = $A`, 15},
		{`isinstance($X, $T)`, 15},
		{`self.$A`, 0}, // matches not counted
		{`$F($$$)`, 0},
	} {
		p, err := Compile(context.Background(), c.pattern, py)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if !p.partly() {
			t.Fatalf("%s: not line-bound", c.pattern)
		}
		if !lineCase(t, []byte(pyTricky), p) {
			t.Errorf("%s: the lines were not parsed alone", c.pattern)
		}
		if c.matches > 0 {
			ms, _, _ := p.matchParts(context.Background(), []byte(pyTricky))
			if len(ms) != c.matches {
				for _, m := range ms {
					t.Logf("%d:%d %s", m.StartLine, m.StartCol, m.Text)
				}
				t.Errorf("%s: %d matches, want %d", c.pattern, len(ms), c.matches)
			}
		}
	}
	// Patterns a match of which may span lines are parsed whole.
	for _, pat := range []string{"if $X:\n    $$$", "def $F($$$):\n    $$$", "$X", "self.a = a\nself.b = b"} {
		p, err := Compile(context.Background(), pat, py)
		if err != nil {
			t.Fatal(err)
		}
		if p.partly() {
			t.Errorf("%q is taken as line-bound", pat)
		}
		p.Close()
	}
}

// On the whole of Python's standard library (and what is installed with
// it; every eighth file under the race detector), for patterns of several
// kinds of line-bound root, the lines parsed alone find what the whole
// parse does, and nearly every file that can match is parsed by its lines.
func TestMatchLinesOnTheStdlib(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the standard library")
	}
	partsOnCorpus(t, pythonStdlib(t), "python", ".py",
		`self.$A = $A`, `isinstance($X, $T)`, `raise $E($$$)`, `import $M`, `lambda $$$A: $B`, `f"$$$"`)
}

// The same on GOROOT/src, declarations parsed alone.
func TestMatchDeclsOnGoroot(t *testing.T) {
	if testing.Short() {
		t.Skip("parses GOROOT")
	}
	partsOnCorpus(t, wstest.GoSrc(t), "go", ".go",
		`if $X != nil { return $X }`, `$A.Lock()`, `if err != nil { return $$$ }`, `errors.New("$S")`,
		`func ($R *$T) Close() error { $$$ }`, `type $T struct { $$$ }`)
}

// partsOnCorpus checks, on every file of dir with extension ext, that
// each pattern's matches from the parts parsed alone are those of the
// whole parse, and that at least 97% of the clean files that may match
// are parsed in part.
func partsOnCorpus(t *testing.T, dir, language, ext string, patterns ...string) {
	l := syntax.LanguageByName(language)
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ext) {
			files = append(files, path)
		}
		return nil
	})
	if raceEnabled {
		for i := range len(files) / 8 {
			files[i] = files[8*i]
		}
		files = files[:len(files)/8]
	}
	var ps []*Pattern
	for _, pat := range patterns {
		p, err := Compile(context.Background(), pat, l)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if !p.partly() {
			t.Fatalf("%s: not to be parsed in part", pat)
		}
		ps = append(ps, p)
	}
	var mu sync.Mutex
	may := make([]int, len(ps))
	lined := make([]int, len(ps))
	broken := make([]int, len(ps))
	work := make(chan string)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for path := range work {
				src, err := os.ReadFile(path)
				if err != nil || workspace.IsBinary(src) {
					continue
				}
				var tree *syntax.Tree
				for i, p := range ps {
					if !p.MayMatch(src) {
						continue
					}
					if tree == nil {
						if tree, err = syntax.ParseOnce(context.Background(), l, src); err != nil {
							break
						}
					}
					clean := !tree.RootNode().HasError()
					ok := clean && lineCaseIn(t, src, tree, p)
					mu.Lock()
					may[i]++
					if !clean {
						broken[i]++
					}
					if ok {
						lined[i]++
					}
					mu.Unlock()
				}
				if tree != nil {
					tree.Release()
				}
			}
		}()
	}
	for _, f := range files {
		work <- f
	}
	close(work)
	wg.Wait()
	for i, p := range ps {
		t.Logf("%-36s %5d files may match, %d of them do not parse cleanly, %d were parsed in part", p.Source, may[i], broken[i], lined[i])
		if may[i] == 0 || lined[i] < (may[i]-broken[i])*97/100 {
			t.Errorf("%s: only %d of %d clean files that may match were parsed in part", p.Source, lined[i], may[i]-broken[i])
		}
	}
}

// FuzzMatchLines: any bytes are split into logical lines or refused,
// never a panic, the lines in order inside the source; and in source that
// parses cleanly, the lines parsed alone find what the whole parse finds.
func FuzzMatchLines(f *testing.F) {
	for _, s := range []string{pyTricky, pySrc, "if x:\n  y = isinstance(a, b)\nelse:\n  self.a = a\n",
		"x = f\"{a:'>{w}}\" + f'{d[\"k\"]}'\nself.b = b\n", "try:\n    self.a = a\nexcept E:\n    pass\nelse:\n    self.b = b\n",
		"@d(isinstance(a, b))\ndef f(self, a):\n\tself.a = a\n", "match x:\n    case 1:\n        self.c = c\n", "a = (1,\r\n 2)\r\n"} {
		f.Add([]byte(s))
	}
	py := syntax.LanguageByName("python")
	var ps []*Pattern
	for _, pat := range []string{`self.$A = $A`, `isinstance($X, $T)`, `$F($$$)`} {
		p, err := Compile(context.Background(), pat, py)
		if err != nil {
			f.Fatal(err)
		}
		ps = append(ps, p)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		lines, ok := pyLogicalLines(src, nil)
		at := 0
		for _, l := range lines {
			if !ok || l.start < at || l.code < l.start || l.end <= l.code || l.end > len(src) {
				t.Fatalf("lines out of order: %+v (ok %v) in %q", lines, ok, src)
			}
			at = l.end
		}
		partsCase(t, src, py, ps)
	})
}

// partsCase checks each of ps on src with lineCaseIn, if src (in lang) is
// small and parses cleanly.
func partsCase(t *testing.T, src []byte, language *syntax.Language, ps []*Pattern) {
	if len(src) > 4096 {
		return
	}
	tree, err := syntax.ParseOnce(context.Background(), language, src)
	if err != nil {
		return
	}
	defer tree.Release()
	if tree.RootNode().HasError() {
		return
	}
	for _, p := range ps {
		lineCaseIn(t, src, tree, p)
	}
}

// Where tree-sitter reads a line on into the next where Python would not
// (a lambda left without its body, here), the file is parsed whole.
func TestALineTreeSitterReadsOnFromIsParsedWhole(t *testing.T) {
	p, err := Compile(context.Background(), `isinstance($X, $T)`, syntax.LanguageByName("python"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, src := range []string{
		"if x: f = lambda:\n    isinstance(a, b)\n", // a header to pyLogicalLines; withinLines sees the join
		"A.\nisinstance(a, b)\n",                    // mayEnd
		"A:\n isinstance(a, b)\n",                   // a ':' of no block
	} {
		if lineCase(t, []byte(src), p) {
			t.Errorf("%q was parsed by its lines", src)
		}
	}
}

func TestGoDecls(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // the head, then each declaration; nil: not read
	}{
		{"plain", "// Package x.\npackage x\n\nimport \"os\"\n\nfunc A() {}\n\n// B is.\ntype B int\n",
			[]string{"// Package x.\npackage x\n\n", "import \"os\"\n\n", "func A() {}\n\n// B is.\n", "type B int\n"}},
		{"raw string", "package x\n\nvar s = `\nfunc not() {}\n`\n\nfunc A() {}\n",
			[]string{"package x\n\n", "var s = `\nfunc not() {}\n`\n\n", "func A() {}\n"}},
		{"block comment", "package x\n/*\nfunc not() {}\n*/\nvar a = '`'\nconst b = \"`\\\"\"\n",
			[]string{"package x\n/*\nfunc not() {}\n*/\n", "var a = '`'\n", "const b = \"`\\\"\"\n"}},
		{"in brackets", "package x\n\nvar (\n\ta = 1\nfunc\n)\n", []string{"package x\n\n", "var (\n\ta = 1\nfunc\n)\n"}},
		{"no package", "func A() {}\n", nil},
		{"declaration first", "func A() {}\npackage x\n", nil},
		{"raw string open", "package x\nvar s = `\n", nil},
		{"comment open", "package x\n/* x\n", nil},
		{"string across lines", "package x\nvar s = \"a\nb\"\n", nil},
		{"bracket open", "package x\nfunc A() {\n", nil},
		{"bracket unopened", "package x\n}\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			head, decls, ok := goDecls([]byte(c.src))
			if c.want == nil {
				if ok {
					t.Fatalf("read %q", c.src)
				}
				return
			}
			if !ok {
				t.Fatalf("refused %q", c.src)
			}
			got := []string{c.src[head.start:head.end]}
			for _, d := range decls {
				got = append(got, c.src[d.start:d.end])
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("parts of %q:\n got %q\nwant %q", c.src, got, c.want)
			}
		})
	}
}

// FuzzMatchDecls: any bytes are split into declarations or refused,
// never a panic, the parts in order and covering the source; and in
// source that parses cleanly, the declarations parsed alone find what the
// whole parse finds.
func FuzzMatchDecls(f *testing.F) {
	for _, s := range []string{goGuards, goSeqSrc, "package x\n\nvar s = `\nfunc f() { if err != nil { return err } }\n`\n\nfunc g() error {\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n",
		"package x\n/*\n*/\nfunc (r *R) Close() error { r.mu.Lock(); return nil }\n", "package x\ntype T struct{ a int }\n"} {
		f.Add([]byte(s))
	}
	g := syntax.LanguageByName("go")
	var ps []*Pattern
	for _, pat := range []string{`if $X != nil { return $X }`, `$A.Lock()`, `type $T struct { $$$ }`} {
		p, err := Compile(context.Background(), pat, g)
		if err != nil {
			f.Fatal(err)
		}
		ps = append(ps, p)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		head, decls, ok := goDecls(src)
		if ok {
			at := head.end
			if head.start != 0 {
				t.Fatalf("the head starts at %d", head.start)
			}
			for _, d := range decls {
				if d.start != at || d.end <= d.start {
					t.Fatalf("parts out of order: %+v %+v in %q", head, decls, src)
				}
				at = d.end
			}
			if at != len(src) {
				t.Fatalf("parts end at %d of %d", at, len(src))
			}
		}
		partsCase(t, src, g, ps)
	})
}
