package astedit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cchub/structsearch"
	"cchub/workspace"
)

// templateRewrite writes src to a workspace as name, searches it for
// pattern, and returns the file with each outermost match replaced by the
// template's expansion, as a rewrite would leave it.
func templateRewrite(t *testing.T, name, src, pattern, tmpl string) string {
	t.Helper()
	ms, tp := templateMatches(t, name, src, pattern, tmpl)
	out := []byte(src)
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		text, err := tp.Expand([]byte(src), m)
		if err != nil {
			t.Fatalf("Expand at %s:%d: %v", m.Path, m.StartLine, err)
		}
		out = slices.Concat(out[:m.StartByte], []byte(text), out[m.EndByte:])
	}
	return string(out)
}

// templateMatches is the outermost matches of pattern in src (a file
// named name) and the template parsed against the pattern's metavariables.
func templateMatches(t *testing.T, name, src, pattern, tmpl string) ([]structsearch.Match, *Template) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	bound, err := structsearch.Metavars(pattern)
	if err != nil {
		t.Fatalf("Metavars(%q): %v", pattern, err)
	}
	tp, err := ParseTemplate(tmpl, bound)
	if err != nil {
		t.Fatalf("ParseTemplate(%q): %v", tmpl, err)
	}
	res, err := structsearch.Search(context.Background(), root, structsearch.Options{Pattern: pattern})
	if err != nil {
		t.Fatalf("Search(%q): %v", pattern, err)
	}
	if len(res.Matches) == 0 {
		t.Fatalf("%q matches nothing in %s", pattern, name)
	}
	var outer []structsearch.Match
	end := -1
	for _, m := range res.Matches { // by start
		if m.StartByte >= end {
			outer = append(outer, m)
			end = m.EndByte
		}
	}
	return outer, tp
}

func checkRewrite(t *testing.T, name, src, pattern, tmpl, want string) {
	t.Helper()
	if got := templateRewrite(t, name, src, pattern, tmpl); got != want {
		t.Errorf("%q → %q in %s:\n%s\nwant:\n%s", pattern, tmpl, name, show(got), show(want))
	}
}

// show makes tabs and carriage returns visible in a failure.
func show(s string) string {
	return strings.NewReplacer("\t", "→   ", "\r", "␍").Replace(s)
}

const goErrs = `package p

import "fmt"

func f() error {
	err := g()
	if err != nil { return err }
	for {
		if err := h(); err != nil {
			if err != nil {
				return err
			}
		}
	}
	return nil
}
`

const goErrsWrapped = `package p

import "fmt"

func f() error {
	err := g()
	if err != nil {
		return fmt.Errorf("wrap: %w", err)
	}
	for {
		if err := h(); err != nil {
			if err != nil {
				return fmt.Errorf("wrap: %w", err)
			}
		}
	}
	return nil
}
`

// A template written with spaces lands in a Go file with tabs, at the
// depth of each match, however the template itself is indented.
func TestTemplateGoTabs(t *testing.T) {
	pattern := `if $X != nil { return $X }`
	for _, tmpl := range []string{
		"if $X != nil {\n    return fmt.Errorf(\"wrap: %w\", $X)\n}",
		// Copied from code two levels deep, first line trimmed or not.
		"if $X != nil {\n            return fmt.Errorf(\"wrap: %w\", $X)\n        }",
		"        if $X != nil {\n            return fmt.Errorf(\"wrap: %w\", $X)\n        }",
		// Written with tabs, or with a final newline.
		"if $X != nil {\n\treturn fmt.Errorf(\"wrap: %w\", $X)\n}",
		"if $X != nil {\n  return fmt.Errorf(\"wrap: %w\", $X)\n}\n",
	} {
		checkRewrite(t, "p.go", goErrs, pattern, tmpl, goErrsWrapped)
	}
}

// A $$$ capture keeps the separators and comments between its nodes, and
// a multi-line one keeps its lines where they were.
func TestTemplateArgsKeepComments(t *testing.T) {
	src := "package p\n\nfunc f(ctx context.Context) {\n\tfoo(a, /* b */ b)\n\tfoo(\n\t\ta, // first\n\t\t/* second */ b,\n\t)\n\tfoo(x,\n\t\ty)\n}\n"
	checkRewrite(t, "p.go", src, `foo($$$ARGS)`, `bar(ctx, $$$ARGS)`,
		"package p\n\nfunc f(ctx context.Context) {\n\tbar(ctx, a, /* b */ b)\n\tbar(ctx, a, // first\n\t\t/* second */ b)\n\tbar(ctx, x,\n\t\ty)\n}\n")
	// On lines of their own, the arguments stand one level deeper than
	// the call, as they did.
	checkRewrite(t, "p.go", src, `foo($$$ARGS)`, "bar(\n    ctx,\n    $$$ARGS,\n)",
		"package p\n\nfunc f(ctx context.Context) {\n\tbar(\n\t\tctx,\n\t\ta, /* b */ b,\n\t)\n\tbar(\n\t\tctx,\n\t\ta, // first\n\t\t/* second */ b,\n\t)\n\tbar(\n\t\tctx,\n\t\tx,\n\t\ty,\n\t)\n}\n")
}

const goRun = "package p\n\nfunc f() {\n\trun(func() {\n\t\twork()\n\t})\n\tif ready {\n\t\trun(func() {\n\t\t\tq := `\nselect 1\n`\n\t\t\twork(q)\n\t\t})\n\t}\n}\n"

// A multi-line capture moves with the line it lands on: deeper, or
// shallower, its relative depth kept; a raw string's lines at column zero
// stay there.
func TestTemplateCaptureMoves(t *testing.T) {
	checkRewrite(t, "p.go", goRun, `run($F)`, "if ready {\n    run($F)\n}",
		"package p\n\nfunc f() {\n\tif ready {\n\t\trun(func() {\n\t\t\twork()\n\t\t})\n\t}\n\tif ready {\n\t\tif ready {\n\t\t\trun(func() {\n\t\t\t\tq := `\nselect 1\n`\n\t\t\t\twork(q)\n\t\t\t})\n\t\t}\n\t}\n}\n")
	checkRewrite(t, "p.go", goRun, `if ready { run($F) }`, "go $F()",
		"package p\n\nfunc f() {\n\trun(func() {\n\t\twork()\n\t})\n\tgo func() {\n\t\tq := `\nselect 1\n`\n\t\twork(q)\n\t}()\n}\n")
	// Taken from its own line onto the call's, and the other way.
	own := "package p\n\nfunc f() {\n\trun(\n\t\tfunc() {\n\t\t\twork()\n\t\t},\n\t)\n}\n"
	checkRewrite(t, "p.go", own, `run($F)`, "start($F)",
		"package p\n\nfunc f() {\n\tstart(func() {\n\t\twork()\n\t})\n}\n")
	checkRewrite(t, "p.go", goRun[:strings.Index(goRun, "\tif")]+"}\n", `run($F)`, "start(\n    $F,\n)",
		"package p\n\nfunc f() {\n\tstart(\n\t\tfunc() {\n\t\t\twork()\n\t\t},\n\t)\n}\n")
}

// Python: levels of the template become the file's unit, 4 or 2 spaces.
func TestTemplatePython(t *testing.T) {
	four := "def f(x):\n    if x:\n        print(x)\n    print(\n        x)\n"
	for _, tmpl := range []string{"if $X is not None:\n    log($X)", "if $X is not None:\n  log($X)", "if $X is not None:\n\tlog($X)"} {
		checkRewrite(t, "m.py", four, `print($X)`, tmpl,
			"def f(x):\n    if x:\n        if x is not None:\n            log(x)\n    if x is not None:\n        log(x)\n")
	}
	two := "class K:\n  def m(self):\n    print(self)\n"
	checkRewrite(t, "k.py", two, `print($X)`, "if $X is not None:\n    log($X)",
		"class K:\n  def m(self):\n    if self is not None:\n      log(self)\n")
	// A body moved a level deeper keeps its own nesting.
	body := "def f(a):\n    x = 1\n    if a:\n        x = 2\n    return x\n\n\ndef g():\n    pass\n"
	checkRewrite(t, "b.py", body, "def f($$$P):\n    $$$BODY", "def f($$$P):\n    with lock:\n        $$$BODY",
		"def f(a):\n    with lock:\n        x = 1\n        if a:\n            x = 2\n        return x\n\n\ndef g():\n    pass\n")
}

// JavaScript and TypeScript: `$1`, `${x}`, `$x` and `$$` are the
// language's own and stay as written.
func TestTemplateJavaScript(t *testing.T) {
	src := "function f(a) {\n  if (a) {\n    console.log(a, 'x');\n  }\n}\n"
	checkRewrite(t, "a.js", src, `console.log($$$ARGS)`, "logger.debug(`${ctx} $1 $x $$`, $$$ARGS)",
		"function f(a) {\n  if (a) {\n    logger.debug(`${ctx} $1 $x $$`, a, 'x');\n  }\n}\n")
	ts := "export function load(id: string): void {\n    if (id) {\n        console.log(id);\n    }\n}\n"
	checkRewrite(t, "a.ts", ts, `console.log($$$ARGS);`, "if (debug) {\n  console.log($$$ARGS);\n}",
		"export function load(id: string): void {\n    if (id) {\n        if (debug) {\n            console.log(id);\n        }\n    }\n}\n")
	// A line of nothing but a $$$ that captured nothing is left out.
	checkRewrite(t, "e.js", "foo();\nfoo(a);\n", `foo($$$ARGS)`, "bar(\n  $$$ARGS\n)",
		"bar(\n);\nbar(\n    a\n);\n")
}

// In a CRLF file, the lines a template introduces end with CRLF too.
func TestTemplateCRLF(t *testing.T) {
	src := strings.ReplaceAll(goErrs, "\n", "\r\n")
	want := strings.ReplaceAll(goErrsWrapped, "\n", "\r\n")
	checkRewrite(t, "p.go", src, `if $X != nil { return $X }`, "if $X != nil {\n    return fmt.Errorf(\"wrap: %w\", $X)\n}", want)
	checkRewrite(t, "p.go", src, `if $X != nil { return $X }`, "if $X != nil {\r\n    return fmt.Errorf(\"wrap: %w\", $X)\r\n}", want)
	// A capture's own CRLF lines move with it.
	checkRewrite(t, "p.go", strings.ReplaceAll(goRun, "\n", "\r\n"), `run($F)`, "if ready {\n    run($F)\n}",
		strings.ReplaceAll("package p\n\nfunc f() {\n\tif ready {\n\t\trun(func() {\n\t\t\twork()\n\t\t})\n\t}\n\tif ready {\n\t\tif ready {\n\t\t\trun(func() {\n\t\t\t\tq := `\nselect 1\n`\n\t\t\t\twork(q)\n\t\t\t})\n\t\t}\n\t}\n}\n", "\n", "\r\n"))
}

// A match that starts after other text on its line takes the line's
// indentation; one at the top level of a Go file, gofmt's tabs.
func TestTemplateMidLineAndTopLevel(t *testing.T) {
	checkRewrite(t, "p.go", "package p\n\nfunc f() {\n\tx := foo(a)\n}\n", `foo($A)`, "func() int {\n    return $A\n}()",
		"package p\n\nfunc f() {\n\tx := func() int {\n\t\treturn a\n\t}()\n}\n")
	checkRewrite(t, "p.go", "package p\n\nvar x = foo(a)\n", `foo($A)`, "func() int {\n    return $A\n}()",
		"package p\n\nvar x = func() int {\n\treturn a\n}()\n")
}

// A one-line template changes nothing but the match's span, its own
// spaces included.
func TestTemplateOneLineExact(t *testing.T) {
	src := "package p\n\nvar v = foo(a,\n\tb) // end\n"
	checkRewrite(t, "p.go", src, `foo($X, $Y)`, ` bar($Y,  $X) `, "package p\n\nvar v =  bar(b,  a)  // end\n")
	checkRewrite(t, "p.go", src, `foo($X, $Y)`, ``, "package p\n\nvar v =  // end\n")
}

func TestParseTemplateErrors(t *testing.T) {
	bound := []string{"$A", "$$$ARGS"}
	for _, c := range []struct {
		tmpl string
		want []string
	}{
		{"f($Y)", []string{"$Y", "does not bind", "the pattern binds $A, $$$ARGS", "use one of those or add $Y to the pattern"}},
		{"f($A,\n\t$$$REST)", []string{"$$$REST", "add $$$REST to the pattern"}},
		{"f($ARGS)", []string{"writes $ARGS", "binds $$$ARGS", "write $$$ARGS"}},
		{"f($$$A)", []string{"writes $$$A", "binds $A, a single node", "write $A"}},
		{"f($_)", []string{"`$_` captures nothing", "e.g. $ARG"}},
		{"f($$$_)", []string{"`$$$_` captures nothing", "e.g. $$$ARG"}},
		{"f($$$)", []string{"`$$$` captures nothing", "e.g. $$$ARGS"}},
	} {
		tp, err := ParseTemplate(c.tmpl, bound)
		if err == nil {
			t.Errorf("ParseTemplate(%q) = %v, want an error", c.tmpl, tp.Names())
			continue
		}
		if !errors.Is(err, ErrBadTemplate) {
			t.Errorf("ParseTemplate(%q): %v does not wrap ErrBadTemplate", c.tmpl, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseTemplate(%q): %v\nwant it to say %q", c.tmpl, err, w)
			}
		}
	}
	_, err := ParseTemplate("f($X)", nil)
	if err == nil || !strings.Contains(err.Error(), "binds no metavariables") {
		t.Errorf("a template with $X for a pattern without metavariables: %v", err)
	}
}

func TestTemplateNames(t *testing.T) {
	tp, err := ParseTemplate("$B($$$ARGS, $B, $1, $x, ${y}, $$C, $Foo)", []string{"$$$ARGS", "$B", "$C"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tp.Names(), []string{"$B", "$$$ARGS", "$C"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

// A name the pattern writes but that captured nothing (inside a longer
// string) is an error, not an empty substitution.
func TestExpandUncaptured(t *testing.T) {
	ms, tp := templateMatches(t, "p.go", "package p\n\nvar v = open(\"$HOME/x\")\n", `open("$HOME/x")`, `open($HOME)`)
	_, err := tp.Expand([]byte("package p\n\nvar v = open(\"$HOME/x\")\n"), ms[0])
	if !errors.Is(err, ErrBadTemplate) || !strings.Contains(err.Error(), "captured nothing for $HOME") {
		t.Errorf("Expand: %v, want an error that $HOME captured nothing", err)
	}
}

func TestIndentUnit(t *testing.T) {
	for _, c := range []struct {
		src, base, path, want string
	}{
		{"a\n  b\n    c\n  d\n", "", "x.py", "  "},
		{"a\n    b\n        c\n", "", "x.py", "    "},
		{"x = f(a,\n      b)\nif a:\n   b\n", "", "x.py", "   "}, // a tie: the smaller
		{"a\nb\n", "", "x.py", "    "},
		{"a\nb\n", "", "x.go", "\t"},
		{"a\n\tb\n", "", "x.c", "\t"},
		{"/*\n * a\n */\nf() {\n\tb\n}\n", "", "x.c", "\t"},
		{"a\n  b\n", "\t", "x.py", "\t"},
		{"a\n\tb\n", "  ", "x.py", "    "},
	} {
		if got := indentUnit([]byte(c.src), c.base, c.path); got != c.want {
			t.Errorf("indentUnit(%q, %q, %s) = %q, want %q", c.src, c.base, c.path, got, c.want)
		}
	}
}

// Whatever the template, parsing it and expanding it at real matches
// never panics, and expanding changes nothing but whitespace: the
// expansion holds the template's text and the captures' in order.
func FuzzParseTemplate(f *testing.F) {
	src := "package p\n\nfunc f() {\n\tif ok {\n\t\tfoo(\n\t\t\tfunc() {\n\t\t\t\tx()\n\t\t\t}, // c\n\t\t\tb,\n\t\t)\n\t}\n\tfoo(y)\n}\n"
	pattern := `foo($F, $$$REST)`
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		f.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	res, err := structsearch.Search(context.Background(), root, structsearch.Options{Pattern: pattern})
	root.Close()
	if err != nil || len(res.Matches) != 2 {
		f.Fatalf("Search: %v, %d matches", err, len(res.Matches))
	}
	bound, err := structsearch.Metavars(pattern)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"bar($F, $$$REST)", "if x {\n    $F()\n}\n", "$$$REST\n\t$F", "$1 ${x} $$ $$$ $_ $X",
		"\n", "  \n\t\n", "$$$$F $$F", "a\r\nb\r\n", "/*\n * $F\n */", "if x:\n        $F\n    else:\n  $$$REST",
	} {
		f.Add(s)
	}
	noSpace := func(s string) string {
		return strings.Join(strings.Fields(s), "")
	}
	f.Fuzz(func(t *testing.T, tmpl string) {
		tp, err := ParseTemplate(tmpl, bound)
		if err != nil {
			if !errors.Is(err, ErrBadTemplate) {
				t.Fatalf("ParseTemplate(%q): %v does not wrap ErrBadTemplate", tmpl, err)
			}
			return
		}
		for _, m := range res.Matches {
			got, err := tp.Expand([]byte(src), m)
			if err != nil {
				t.Fatalf("Expand(%q): %v", tmpl, err)
			}
			var want strings.Builder
			for _, l := range tp.lines {
				for _, s := range l.segs {
					want.WriteString(s.text)
					for _, c := range m.Captures {
						if c.Name == s.ref {
							want.WriteString(c.Text)
						}
					}
				}
			}
			if noSpace(got) != noSpace(want.String()) {
				t.Fatalf("Expand(%q) = %q: not the template's text and the captures'", tmpl, got)
			}
			if !strings.ContainsAny(tmpl, "$\r\n") && got != tmpl {
				t.Fatalf("Expand(%q) = %q, want the template itself", tmpl, got)
			}
		}
	})
}

// The lines after the first are indented relative to the first, which is
// taken to open them, or to stand level with them, as the text says.
func TestTemplateRelativeIndent(t *testing.T) {
	for _, c := range []struct {
		tmpl string
		want []string // the lines after the first, relative
		unit int
	}{
		{"if x {\n    y()\n}", []string{"    y()", "}"}, 4},
		{"if x {\n            y()\n        }", []string{"    y()", "}"}, 4}, // copied, first line trimmed
		{"    if x {\n        y()\n    }", []string{"    y()", "}"}, 4},
		{"if x:\n    y()", []string{"    y()"}, 4},
		{"if x:\n  y()\n  z()", []string{"  y()", "  z()"}, 2},
		{"if x:\n        if y:\n            z()\n        w()", []string{"    if y:", "        z()", "    w()"}, 4},
		{"if x:\n        a()\n    else:\n        b()", []string{"    a()", "else:", "    b()"}, 4},
		{"foo(a,\n        b)", []string{"    b)"}, 4},
		{"a()\n    b()", []string{"b()"}, 4},
		{"p\n  .then(f)\n  .catch(g)", []string{"  .then(f)", "  .catch(g)"}, 2},
		{"/*\n * $X\n */", []string{" * $X", " */"}, 4},
		{"\n    a()\n    b()", []string{"a()", "b()"}, 4},
		{"if x {\n\ty()\n}", []string{"\ty()", "}"}, 4},
	} {
		tp, err := ParseTemplate(c.tmpl, []string{"$X"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range tp.lines[1:] {
			var b strings.Builder
			b.WriteString(l.indent)
			for _, s := range l.segs {
				b.WriteString(s.text + s.ref)
			}
			got = append(got, b.String())
		}
		if !slices.Equal(got, c.want) || tp.unit != c.unit {
			t.Errorf("%q: lines %q, unit %d; want %q, unit %d", c.tmpl, got, tp.unit, c.want, c.unit)
		}
	}
}
