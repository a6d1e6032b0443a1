package structsearch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cchub/syntax"
)

// Errors teach: each names what was wrong and what to write instead.
func TestCompileErrors(t *testing.T) {
	for _, c := range []struct {
		language, pattern string
		want              []string
	}{
		{"go", `$x.Close()`, []string{"`$x`", "upper case", "write $X"}},
		{"javascript", `$$$args`, []string{"upper case", "write $$$ARGS"}},
		{"javascript", `obj.on$EVENT($H)`, []string{"`$EVENT`", `"on$EVENT"`, "whole node"}},
		{"go", `$A$B`, []string{"whole node"}},
		{"go", `foo(`, []string{"`foo(` is not valid go", "expression: syntax error at its end", "statement: syntax error at 1:4 near `(`", "top level:", "set lang to the language it is written in"}},
		{"go", "if $X {\n\treturn $X $X\n}", []string{"statement: syntax error at 2:"}},
		{"python", `def f(:`, []string{"not valid python", "statement: syntax error at 1:7"}},
		{"java", `class { $$$ }`, []string{"not valid java", "class member:"}},
		{"go", `   `, []string{"empty"}},
		{"go", `µX`, []string{"reserves"}},
		// A pattern made to stress the parser is refused before it is
		// parsed (50,000 parentheses took time quadratic in the depth).
		{"go", strings.Repeat("(", 50000) + "$X" + strings.Repeat(")", 50000), []string{"nests brackets 50000 deep", "more than the 200", "$X standing for what is inside"}},
		{"python", "f(" + strings.Repeat("[", 201) + strings.Repeat("]", 201) + ")", []string{"nests brackets 202 deep"}},
		// A keyword read as a name is no reading of Go.
		{"go", `import $I`, []string{"read the keyword `import` as a name"}},
		// Several siblings that are no statements of a block cannot be a
		// sequence: cchub says so, instead of answering nothing.
		{"go", "case 1:\n\t$$$\ncase 2:\n\t$$$", []string{"not valid go", "side by side in an expression_switch_statement", "does not match as a sequence"}},
	} {
		name := c.pattern
		if len(name) > 40 {
			name = name[:40] + "…"
		}
		t.Run(c.language+"/"+name, func(t *testing.T) {
			p, err := Compile(context.Background(), c.pattern, syntax.LanguageByName(c.language))
			if err == nil {
				t.Fatalf("Compile(%q) = %s, want an error", c.pattern, p)
			}
			if !errors.Is(err, ErrBadPattern) {
				t.Errorf("error does not wrap ErrBadPattern: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// A lone $ is the language's own (jQuery), and $1 is not a metavariable.
func TestDollarsThatAreNotMetavariables(t *testing.T) {
	got := found(t, "javascript", `$("#id").hide()`, "$(\"#id\").hide();\n$(\"#other\").hide();\n")
	if len(got) != 1 || got[0] != "1:1" {
		t.Errorf("found %q, want one match at 1:1", got)
	}
}

func TestSearchErrors(t *testing.T) {
	root := writeTree(t, map[string]string{"a.go": "package a\n", "b.py": "x = 1\n"})
	for _, c := range []struct {
		name string
		opts Options
		want []string
	}{
		{"unknown language", Options{Pattern: `f($A)`, Lang: "cobol"}, []string{`unknown language "cobol"`, "go, java, javascript, python"}},
		{"valid nowhere", Options{Pattern: `foo(`}, []string{"`foo(` is valid code in none of", "c, cpp, go", "search with lang=LANG"}},
		{"invalid in the language asked", Options{Pattern: `$X is None`, Lang: "go"}, []string{"not valid go", "this pattern parses as python: search with lang=python", "(as go: expression: "}},
		{"python for go", Options{Pattern: "def f(x):\n    return x", Lang: "go"}, []string{
			"`def f(x):\n    return x` is not valid go, but this pattern parses as python: search with lang=python (as go: expression: syntax error"}},
		{"javascript for python", Options{Pattern: "($X) => $Y", Lang: "python"}, []string{
			"is not valid python, but this pattern parses as javascript, tsx, typescript: search with lang=javascript, lang=tsx or lang=typescript"}},
		{"valid in no language", Options{Pattern: `foo(`, Lang: "go"}, []string{"is not valid go in any context cchub tries (expression: syntax error at its end"}},
		{"bad metavariable", Options{Pattern: `f($a)`}, []string{"upper case"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Search(context.Background(), root, c.opts)
			if err == nil {
				t.Fatalf("Search(%+v) = %d matches, want an error", c.opts, len(r.Matches))
			}
			if !errors.Is(err, ErrBadPattern) {
				t.Errorf("error does not wrap ErrBadPattern: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}
