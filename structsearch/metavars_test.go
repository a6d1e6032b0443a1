package structsearch

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"cchub/syntax"
)

func TestMetavars(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    []string
	}{
		{`$A.Close()`, []string{"$A"}},
		{`foo($X, $$$ARGS)`, []string{"$X", "$$$ARGS"}},
		// First appearance decides the order; a repeat is listed once.
		{`$B = $A; $A = $B`, []string{"$B", "$A"}},
		// $_, $$$ and $$$_ capture nothing.
		{`f($_, $$$, $$$_, $Y)`, []string{"$Y"}},
		// $X and $$$X are different metavariables.
		{`f($X, $$$X)`, []string{"$X", "$$$X"}},
		{`f($_X, $X1)`, []string{"$_X", "$X1"}},
		// A lone '$' is the language's own (jQuery's $, Go's "$").
		{`$("a").on($EV)`, []string{"$EV"}},
		{`$$X`, []string{"$X"}}, // '$' then $X, as Compile reads it
		{`x := 1`, nil},
		// A statement sequence, indented as in the file.
		{"\t$A.mu.Lock()\n\tdefer $A.mu.Unlock()\n\t$$$BODY", []string{"$A", "$$$BODY"}},
	} {
		got, err := Metavars(c.pattern)
		if err != nil {
			t.Errorf("Metavars(%q): %v", c.pattern, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Metavars(%q) = %q, want %q", c.pattern, got, c.want)
		}
	}
}

// A pattern Compile refuses in every language is refused with the same
// error.
func TestMetavarsErrors(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    string
	}{
		{`$x.Close()`, "write $X"},
		{`f($$$args)`, "write $$$ARGS"},
		{`obj.on$EVENT()`, "whole node"},
		{`  `, "empty"},
		{`µX`, "reserves"},
	} {
		names, err := Metavars(c.pattern)
		if err == nil {
			t.Errorf("Metavars(%q) = %q, want an error", c.pattern, names)
			continue
		}
		if !errors.Is(err, ErrBadPattern) {
			t.Errorf("Metavars(%q): %v does not wrap ErrBadPattern", c.pattern, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Metavars(%q): %v, want it to say %q", c.pattern, err, c.want)
		}
		_, cerr := Compile(context.Background(), c.pattern, syntax.LanguageByName("go"))
		if cerr == nil || cerr.Error() != err.Error() {
			t.Errorf("Metavars(%q): %v; Compile says %v", c.pattern, err, cerr)
		}
	}
}

// Metavars names exactly the captures a match of the pattern carries.
func TestMetavarsAgreeWithMatches(t *testing.T) {
	src := []byte("package p\n\nfunc f() {\n\tfoo(a, b, c)\n\tif err != nil {\n\t\treturn err\n\t}\n\tx.mu.Lock()\n\tdefer x.mu.Unlock()\n\tg()\n}\n")
	language := syntax.LanguageByName("go")
	for _, pattern := range []string{
		`foo($X, $$$REST)`,
		`foo($_, $$$)`,
		`if $E != nil { return $E }`,
		"$A.mu.Lock()\ndefer $A.mu.Unlock()\n$$$BODY",
	} {
		want, err := Metavars(pattern)
		if err != nil {
			t.Fatalf("Metavars(%q): %v", pattern, err)
		}
		p, err := Compile(context.Background(), pattern, language)
		if err != nil {
			t.Fatalf("Compile(%q): %v", pattern, err)
		}
		tree, err := syntax.ParseOnce(context.Background(), language, src)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := p.Match(context.Background(), tree.RootNode(), tree.Source)
		tree.Release()
		p.Close()
		if err != nil || len(ms) != 1 {
			t.Fatalf("%q: %d matches, %v; want 1", pattern, len(ms), err)
		}
		var got []string
		for _, c := range ms[0].Captures {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: the match captures %q, Metavars says %q", pattern, got, want)
		}
	}
}
