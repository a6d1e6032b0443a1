package codegraph

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/syntax"
	"cchub/workspace"
)

// index builds the index of a workspace written from files.
func index(t *testing.T, files map[string]string) *Index {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	cache := syntax.NewParseCache(0)
	t.Cleanup(cache.Close)
	x := NewIndex(root, cache)
	if _, err := x.Update(context.Background()); err != nil {
		t.Fatal(err)
	}
	return x
}

// edges renders callers or callees as "caller -> callee @line (confidence)".
func edges(es []Edge) []string {
	var out []string
	for _, e := range es {
		from, to := "<top>", "?"+e.Name
		if e.Caller != nil {
			from = e.Caller.Path + ":" + e.Caller.Qual()
		}
		if e.Callee != nil {
			to = e.Callee.Path + ":" + e.Callee.Qual()
		}
		out = append(out, from+" -> "+to+" ("+e.Confidence+")")
	}
	return out
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// A Go workspace whose call graph is known: same-named functions in two
// packages, an aliased import, methods of the same name on two types, a
// call through the receiver, recursion, a call in a closure.
func TestGoEdges(t *testing.T) {
	x := index(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": `package a

func Do() int { return helper() + 1 }

func helper() int { return 1 }

type T struct{}

func (t *T) Run() int { return t.step() }

func (t *T) step() int { return Do() }

func Fact(n int) int {
	if n == 0 {
		return 1
	}
	return n * Fact(n-1)
}
`,
		"b/b.go": `package b

import (
	al "example.com/m/a"
)

func Do() int { return al.Do() }

type U struct{}

func (u U) Run() int {
	f := func() int { return Do() }
	return f()
}

func Use(v interface{ Run() int }) int { return v.Run() }
`,
		"b/b_test.go": `package b

import "testing"

func TestDo(t *testing.T) {
	if Do() != 2 {
		t.Fatal("no")
	}
}
`,
	})
	_, callers, err := x.Callers("a/a.go:Do")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "callers of a.Do", edges(callers), []string{
		"a/a.go:T.step -> a/a.go:Do (exact)",
		"b/b.go:Do -> a/a.go:Do (import)",
	})
	_, callees, err := x.Callees("T.Run")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "callees of T.Run", edges(callees), []string{"a/a.go:T.Run -> a/a.go:T.step (exact)"})
	_, callers, _ = x.Callers("Fact")
	same(t, "recursion", edges(callers), []string{"a/a.go:Fact -> a/a.go:Fact (exact)"})
	// The closure's call belongs to U.Run; v.Run reaches both Runs, by name only.
	_, callees, _ = x.Callees("U.Run")
	same(t, "callees of U.Run", edges(callees), []string{"b/b.go:U.Run -> b/b.go:Do (exact)", "b/b.go:U.Run -> ?f ()"})
	_, callees, _ = x.Callees("Use")
	same(t, "an interface call", edges(callees), []string{"b/b.go:Use -> a/a.go:T.Run (name-only)", "b/b.go:Use -> b/b.go:U.Run (name-only)"})
	// Ambiguous names ask for a qualified one.
	var amb *AmbiguousError
	if _, _, err := x.Callers("Do"); !errors.As(err, &amb) || len(amb.Candidates) != 2 || !strings.Contains(err.Error(), "a/a.go:3 (Do)") {
		t.Errorf("ambiguous: %v", err)
	}
	// Blast of a.helper: a.Do; then T.step and b.Do; then T.Run, U.Run and TestDo.
	_, reached, err := x.Blast([]string{"helper"}, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reached {
		got = append(got, strings.Repeat(">", r.Distance)+" "+r.Def.Qual()+" "+r.Confidence+" via "+strings.Join(r.Via, "<-"))
	}
	same(t, "blast", got, []string{
		"> Do exact via helper<-Do",
		">> T.step exact via helper<-Do<-T.step",
		">> Do import via helper<-Do<-Do",
		">>> T.Run exact via helper<-Do<-T.step<-T.Run",
		">>> U.Run import via helper<-Do<-Do<-U.Run",
		">>> TestDo import via helper<-Do<-Do<-TestDo",
	})
	syms, _ := x.Symbols("*Run")
	if len(syms) != 2 {
		t.Errorf("symbols *Run: %+v", syms)
	}
}

// A Python workspace: the same function name in two modules, from-imports
// with and without an alias, a module imported whole, self.method.
func TestPythonEdges(t *testing.T) {
	x := index(t, map[string]string{
		"pkg/__init__.py": "",
		"pkg/models.py": `def load(path):
    return parse(path)


def parse(path):
    return path


class Store:
    def add(self, item):
        return self.check(item)

    def check(self, item):
        return load(item)
`,
		"pkg/other.py": `def load(path):
    return None
`,
		"pkg/cli.py": `from pkg.models import load as read_models
import pkg.other


def main():
    read_models("a")
    pkg.other.load("b")


def test_main():
    main()
`,
	})
	_, callers, err := x.Callers("pkg/models.py:load")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "callers of models.load", edges(callers), []string{
		"pkg/cli.py:main -> pkg/models.py:load (import)",
		"pkg/models.py:Store.check -> pkg/models.py:load (exact)",
	})
	_, callees, err := x.Callees("main")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "callees of main", edges(callees), []string{
		"pkg/cli.py:main -> pkg/models.py:load (import)",
		"pkg/cli.py:main -> pkg/other.py:load (import)",
	})
	_, callees, _ = x.Callees("Store.add")
	same(t, "self.check", edges(callees), []string{"pkg/models.py:Store.add -> pkg/models.py:Store.check (exact)"})
	tests := 0
	syms, _ := x.Symbols("test_*")
	for _, s := range syms {
		if s.Test {
			tests++
		}
	}
	if tests != 1 {
		t.Errorf("tests: %+v", syms)
	}
}
