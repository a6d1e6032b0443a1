package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"cchub/codegraph"
)

const tinyModule = `package m

type I interface {
	M()
}

type T struct{}

func (T) M() {}

type U struct{ T }

func Direct() { helper() }

func helper() {}

func ViaIface(i I) { i.M() }

func Closure() {
	func() { helper() }()
}

func UseU() {
	ViaIface(U{})
	ViaIface(T{})
}

func Value(f func()) { f() }

func PassValue() { Value(helper) }

func Recursive(n int) {
	if n > 0 {
		Recursive(n - 1)
	}
}

var fns []func()

func Store() { fns = append(fns, func() {}) }

func RunAll() {
	for _, f := range fns {
		f()
	}
}
`

func writeTiny(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"m.go":   tinyModule,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// callersOf lists the oracle's callers of the function declared at
// m.go:line, as names.
func callersOf(tr *truth, line int) []string {
	var out []string
	for c := range tr.callers[decl{"m.go", line}] {
		out = append(out, tr.funcs[c])
	}
	sort.Strings(out)
	return out
}

// The oracle on a module whose calls are known: a call in a func literal
// is its enclosing function's, a func literal called is no one's callee,
// a call through an interface reaches the implementation (through the
// wrapper of a promoted method) and the interface's method, a function
// passed as a value is called where the value is, and recursion is left
// out.
func TestOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a module with go/packages")
	}
	dir := writeTiny(t)
	or, err := analyse(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(or.errs) > 0 {
		t.Fatalf("ill-typed: %v", or.errs)
	}
	for _, c := range []struct {
		line int
		name string
		want []string
	}{
		{15, "helper", []string{"Closure", "Direct", "Value"}},
		{9, "T.M", []string{"ViaIface"}},
		{4, "I.M", []string{"ViaIface"}},
		{17, "ViaIface", []string{"UseU"}},
		{28, "Value", []string{"PassValue"}},
		{32, "Recursive", nil},
		{40, "Store", nil}, // RunAll calls its func literal, not it
	} {
		got := callersOf(or.vta, c.line)
		if name := or.vta.funcs[decl{"m.go", c.line}]; name != c.name {
			t.Errorf("m.go:%d is %q to the oracle, want %q", c.line, name, c.name)
		}
		if len(got) != len(c.want) || len(got) > 0 && !equal(got, c.want) {
			t.Errorf("callers of %s = %v, want %v", c.name, got, c.want)
		}
	}
	s := or.vta.callers[decl{"m.go", 15}][decl{"m.go", 28}]
	if s.Text != "f()" || s.Shape != "x()" || s.Kind != "func value" || !s.Dynamic || s.Pos != "m.go:28:25" {
		t.Errorf("the call of helper in Value is %+v, want f() at m.go:28:25, a dynamic call of a func value", s)
	}

	// Every function the oracle knows is a definition of the graph, at
	// the same place.
	g, err := buildGraph(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	for d, name := range or.vta.funcs {
		def, ok := g.defs[d]
		if !ok || def.Qual() != name {
			t.Errorf("the oracle's %s at %s is not the graph's (%+v)", name, d, def)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// judge counts each threshold's callers: a name-only caller is not kept
// by exact or +import, a possible one only by +possible; a caller the
// oracle has and the graph has not is missed by every threshold.
func TestJudge(t *testing.T) {
	a, b, c, d := decl{"a.go", 1}, decl{"a.go", 2}, decl{"a.go", 3}, decl{"a.go", 4}
	got := map[decl]string{a: codegraph.Exact, b: codegraph.NameOnly, c: codegraph.Possible}
	want := map[decl]site{a: {}, b: {}, d: {}}
	s := newScore()
	missed := s.judge(got, want)
	cls, thr := s.finish()
	wantThr := []thresholdScore{
		{Threshold: "exact", Predicted: 1, TP: 1, FN: 2},
		{Threshold: "+import", Predicted: 1, TP: 1, FN: 2},
		{Threshold: "+name-only", Predicted: 2, TP: 2, FN: 1},
		{Threshold: "+possible", Predicted: 3, TP: 2, FP: 1, FN: 1},
	}
	for i, w := range wantThr {
		g := thr[i]
		if g.Threshold != w.Threshold || g.Predicted != w.Predicted || g.TP != w.TP || g.FP != w.FP || g.FN != w.FN {
			t.Errorf("threshold %d = %+v, want %+v", i, g, w)
		}
	}
	if thr[3].Precision != 2.0/3 || thr[3].Recall != 2.0/3 {
		t.Errorf("+possible precision %v recall %v, want 2/3 and 2/3", thr[3].Precision, thr[3].Recall)
	}
	if len(missed[0]) != 2 || len(missed[3]) != 1 || missed[3][0] != d {
		t.Errorf("missed = %v, want b and d for exact, d for +possible", missed)
	}
	if len(cls) != 3 || cls[2].Class != codegraph.Possible || cls[2].True != 0 || cls[0].True != 1 {
		t.Errorf("classes = %+v", cls)
	}
}
