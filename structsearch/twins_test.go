package structsearch

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"cchub/syntax"
)

func compileFor(tb testing.TB, src, language string) *Pattern {
	tb.Helper()
	p, err := Compile(context.Background(), src, syntax.LanguageByName(language))
	if err != nil {
		tb.Fatalf("Compile(%q, %s): %v", src, language, err)
	}
	tb.Cleanup(p.Close)
	return p
}

// Only `P $X R $X` with one literal run between two single captures gets
// the check; what it cannot see through gets none.
func TestTwinIsFoundOnlyWhereItHolds(t *testing.T) {
	for _, c := range []struct {
		language, pattern string
		twin              bool
	}{
		{"go", `if $X != nil { return $X }`, true},
		{"go", `len($X) == len($X)`, true},
		{"go", `if $X == nil { $X = $Y }`, true},
		{"python", `self.$A = $A`, true},
		{"python", `if $X is None: $X = $Y`, true},
		{"go", `$X = append($X, $Y)`, false},          // nothing before the first
		{"go", `if $X != nil { return $$$X }`, false}, // a list, which may be empty
		{"go", `if $_ != nil { return $_ }`, false},   // no capture
		{"go", `if $X != nil { return $Y }`, false},
		{"go", `f($X, g($Y), $X)`, false}, // another capture between
		{"go", `os.Getenv("$K") + $K`, false},
		{"go", "$A.Lock()\ndefer $A.Unlock()", false}, // a sequence
	} {
		p := compileFor(t, c.pattern, c.language)
		if got := p.twin != nil; got != c.twin {
			t.Errorf("%s (%s): twin %v, want %v (runs %q)", c.pattern, c.language, got, c.twin, p.runs)
		}
	}
}

// The check refuses files that hold every run but no pair with the same
// capture, and lets through each form a pair can take.
func TestTwinsRefuseOnlyWhatCannotMatch(t *testing.T) {
	for _, c := range []struct {
		language, pattern, src string
		may                    bool
	}{
		{"go", `if $X != nil { return $X }`, "package p\nfunc f() error {\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn nil\n}\n", false},
		{"go", `if $X != nil { return $X }`, "package p\nfunc f() error {\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n", true},
		{"go", `if $X != nil { return $X }`, "package p\nfunc f() error {\n\tif e.err != nil { return e.err }\n\treturn nil\n}\n", true},
		// "if" inside "diff" leaves no capture: not a pair.
		{"go", `if $X != nil { return $X }`, "package p\nfunc f() {\n\tdiff != nil { return x }\n}\n", false},
		{"go", `if $X != nil { return $X }`, "package p\nfunc f() error {\n\tif /* why */ err != nil { return err }\n\treturn nil\n}\n", true},
		{"go", `if $X != nil { return $X }`, "package p\nfunc f() error {\n\tif m[\"a//b\"] != nil { return m[ \"a//b\" ] }\n\treturn nil\n}\n", true},
		{"go", `if $X != nil { return $X }`, "package p\nfunc f() error {\n\tif g(a,\n\t\tb) != nil { return g(a, b,) }\n\treturn nil\n}\n", true},
		{"python", `self.$A = $A`, "class C:\n    def __init__(self, a, b):\n        self.a = b\n        self.b = a\n", false},
		{"python", `self.$A = $A`, "class C:\n    def f(self, name):\n        g(name=name)\n        self.x = y\n", false},
		{"python", `self.$A = $A`, "class C:\n    def __init__(self, a):\n        self.a = a\n", true},
		{"python", `self.$A = $A`, "class C:\n    def __init__(self, a):\n        self.a = \\\n            a\n", true},
		{"python", `self.$A = $A`, "class C:\n    def __init__(self, a):\n        self.a = a  # keep\n", true},
		// Parentheses are a node of their own: `(a)` is no `a`.
		{"python", `self.$A = $A`, "class C:\n    def __init__(self, a):\n        self.a = (  # keep\n            a)\n", false},
	} {
		p := compileFor(t, c.pattern, c.language)
		if p.twin == nil {
			t.Fatalf("%s: no twin", c.pattern)
		}
		if got := p.MayMatch([]byte(c.src)); got != c.may {
			t.Errorf("%s: MayMatch = %v, want %v, on\n%s", c.pattern, got, c.may, c.src)
		}
	}
}

// twinLayouts renders an expression's tokens with what a match may hold
// between them: layout, comments (with quotes and comment characters in
// them), separators, and strings that hold comment characters.
func twinLayout(r *rand.Rand, toks []string, python bool) string {
	var b strings.Builder
	fillers := []string{"", " ", "  ", "\n\t\t", " /* c */ ", " /* \"it's\" // */ ", "\t"}
	if python {
		// Inside brackets Python takes line breaks and comments; the
		// tokens here are all inside a call's parentheses or a subscript.
		fillers = []string{"", " ", "  ", "\n            ", "  # it's // a comment\n            ", "\\\n    "}
	}
	for i, tok := range toks {
		if i > 0 {
			b.WriteString(fillers[r.IntN(len(fillers))])
		}
		b.WriteString(tok)
	}
	return b.String()
}

// Every source that matches is let through, however the two captures are
// laid out: random layouts of captures of every shape, each side drawn on
// its own, in files with decoys around them.
func TestTwinsSeeThroughLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	goCaptures := [][]string{
		{"err"}, {"e", ".", "err"}, {"m", "[", `"a//b"`, "]"}, {"g", "(", "a", ",", "b", ")"},
		{"s", "[", "i", ":", "]"}, {"x", "/", "y"}, {"'/'"}, {"`#//`"}, {"diff"}, {"f", "(", ")", ".", "Err", "(", ")"},
	}
	pyCaptures := [][]string{
		{"a"}, {"name"}, {"'#'"}, {"\"//\""}, {"f", "(", "a", ",", "b", ")"}, {"d", "[", "'k#'", "]"}, {"x", "/", "y"},
	}
	cases := []struct {
		language, pattern string
		captures          [][]string
		render            func(r *rand.Rand, a, b string) string
	}{
		{"go", `if $X != nil { return $X }`, goCaptures, func(_ *rand.Rand, a, b string) string {
			return "package p\n\nfunc f() error {\n\t// if x != nil { return y }\n\tif diff != nil { return nil, diff }\n\tif " + a + " != nil {\n\t\treturn " + b + "\n\t}\n\treturn nil\n}\n"
		}},
		{"go", `len($X) == len($X)`, goCaptures, func(_ *rand.Rand, a, b string) string {
			return "package p\n\nvar ok = len(" + a + ") == len(" + b + ")\n"
		}},
		{"python", `self.$A = $A`, pyCaptures[:2], func(r *rand.Rand, a, b string) string {
			eq := []string{" = ", "=", " = \\\n            ", "  =  "}[r.IntN(4)]
			end := []string{"", "  # self.b = b", " ;", "; x = 1"}[r.IntN(4)]
			return "class C:\n    def __init__(self, a, name):\n        self.x = y  # self.a = a\n        self." + a + eq + b + end + "\n"
		}},
		{"python", `len($X) == len($X)`, pyCaptures, func(_ *rand.Rand, a, b string) string {
			return "ok = len(" + a + ") == len(" + b + ")\n"
		}},
	}
	for _, c := range cases {
		p := compileFor(t, c.pattern, c.language)
		language := syntax.LanguageByName(c.language)
		matched, refused := 0, 0
		for range 300 {
			toks := c.captures[r.IntN(len(c.captures))]
			src := c.render(r, twinLayout(r, toks, c.language == "python"), twinLayout(r, toks, c.language == "python"))
			tree, err := syntax.ParseOnce(context.Background(), language, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			ms := matchOf(t, p, tree.RootNode(), tree.Source)
			tree.Release()
			if len(ms) == 0 {
				continue // the parser read this layout otherwise
			}
			matched++
			if !p.MayMatch([]byte(src)) {
				refused++
				if refused <= 3 {
					t.Errorf("%s: MayMatch refused a source with %d matches:\n%s", c.pattern, len(ms), src)
				}
			}
		}
		if matched < 100 {
			t.Errorf("%s: only %d of 300 layouts matched; the generator tests too little", c.pattern, matched)
		}
		t.Logf("%s (%s): %d layouts matched, %d refused", c.pattern, c.language, matched, refused)
	}
}
