package codegraph

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"cchub/workspace"
)

// dump is b in a canonical text form: every definition with its lines,
// every site with its targets, every incoming call, edge and crowd.
func dump(b *built) string {
	var lines []string
	for k, d := range b.defs {
		lines = append(lines, fmt.Sprintf("def %s %d-%d %s", k, d.Start, d.End, d.Kind))
	}
	for caller, ss := range b.calls {
		for _, s := range ss {
			var ts []string
			for _, t := range s.Targets {
				ts = append(ts, t.key+"/"+t.confidence)
			}
			sort.Strings(ts)
			lines = append(lines, fmt.Sprintf("site %s %s:%d:%d %s.%s -> %v crowd %d", caller, s.Path, s.Call.Line, s.Call.Col, s.Call.Qualifier, s.Call.Name, ts, s.Crowd))
		}
	}
	for k, ins := range b.callIn {
		for _, in := range ins {
			lines = append(lines, fmt.Sprintf("in %s <- %s %s:%d:%d %s", k, in.caller, in.path, in.line, in.col, in.confidence))
		}
	}
	for e, c := range b.edges {
		lines = append(lines, fmt.Sprintf("edge %s -> %s %s", e[0], e[1], c))
	}
	for n, c := range b.crowded {
		lines = append(lines, fmt.Sprintf("crowded %s %d", n, c))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// fresh resolves dir from scratch.
func fresh(t *testing.T, dir string) string {
	t.Helper()
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	x := NewIndex(root, nil)
	update(t, x)
	b, release, err := x.graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	return dump(b)
}

// An edit inside function bodies is patched into the resolved graph, and
// the result is the graph a fresh resolve makes; an edit that changes
// what a file defines or imports resolves everything again.
func TestIncrementalResolveMatchesFresh(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "go.mod", "module example.com/m\n\ngo 1.22\n")
	write(t, dir, "a/a.go", "package a\n\nimport \"example.com/m/b\"\n\nfunc A() {\n\tb.B()\n\thelper()\n}\n\nfunc helper() {}\n\ntype T struct{}\n\nfunc (t T) Error() string { return \"\" }\n")
	write(t, dir, "b/b.go", "package b\n\nfunc B() { C() }\n\nfunc C() {}\n")
	write(t, dir, "c/c.go", "package c\n\nimport \"example.com/m/a\"\n\nfunc Use() {\n\ta.A()\n\tvar err error\n\t_ = err.Error()\n}\n")
	write(t, dir, "py/m.py", "def f():\n    g()\n\ndef g():\n    pass\n")
	write(t, dir, "t/t.go", "package t\n\ntype R struct{ s S }\n\ntype S struct{}\n\nfunc (S) Run() {}\n\ntype Q struct{}\n\nfunc (Q) Run() {}\n\nfunc F(r R) { x := S{}; x.Run(); r.s.Run() }\n")
	const tsApp = "class A { run() {} }\nclass B { run() {} }\nclass C extends A {}\nexport function f() { const s = new %s(); s.run(); new C().run() }\n"
	write(t, dir, "ts/app.ts", fmt.Sprintf(tsApp, "A"))
	for i := range 10 { // a crowded method name
		write(t, dir, fmt.Sprintf("e/e%d.go", i), fmt.Sprintf("package e\n\ntype E%d struct{}\n\nfunc (E%d) Error() string { return \"\" }\n", i, i))
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	x := NewIndex(root, nil)
	update(t, x)
	first, release, err := x.graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	release()

	for _, step := range []struct {
		name, rel, text string
		patched         bool
	}{
		{"a body edit: calls added, removed, moved down", "a/a.go",
			"package a\n\nimport \"example.com/m/b\"\n\n// A does things.\nfunc A() {\n\thelper()\n\tb.C()\n\tb.C()\n\tvar e error\n\t_ = e.Error()\n}\n\nfunc helper() {}\n\ntype T struct{}\n\nfunc (t T) Error() string { return \"\" }\n", true},
		{"a Python body edit", "py/m.py", "def f():\n    pass\n\ndef g():\n    f()\n", true},
		{"a variable's type changed", "t/t.go", "package t\n\ntype R struct{ s S }\n\ntype S struct{}\n\nfunc (S) Run() {}\n\ntype Q struct{}\n\nfunc (Q) Run() {}\n\nfunc F(r R) { x := Q{}; x.Run(); r.s.Run() }\n", true},
		{"a field's type changed", "t/t.go", "package t\n\ntype R struct{ s Q }\n\ntype S struct{}\n\nfunc (S) Run() {}\n\ntype Q struct{}\n\nfunc (Q) Run() {}\n\nfunc F(r R) { x := Q{}; x.Run(); r.s.Run() }\n", false},
		{"a TypeScript variable's class changed", "ts/app.ts", fmt.Sprintf(tsApp, "B"), true},
		{"a TypeScript class's base changed", "ts/app.ts", strings.Replace(fmt.Sprintf(tsApp, "B"), "C extends A", "C extends B", 1), false},
		{"a function added", "b/b.go", "package b\n\nfunc B() { C() }\n\nfunc C() {}\n\nfunc D() { B() }\n", false},
		{"an import changed", "c/c.go", "package c\n\nimport a2 \"example.com/m/a\"\n\nfunc Use() {\n\ta2.A()\n}\n", false},
	} {
		write(t, dir, step.rel, step.text)
		update(t, x)
		b, release, err := x.graph(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got := dump(b)
		release()
		if (b == first) != step.patched {
			t.Errorf("%s: patched %v, want %v", step.name, b == first, step.patched)
		}
		first = b
		if want := fresh(t, dir); got != want {
			t.Fatalf("%s: the graph differs from a fresh one:\n--- incremental\n%s\n--- fresh\n%s", step.name, got, want)
		}
	}
	// Queries see the patched graph.
	_, edges, err := x.Callers("b/b.go:C")
	if err != nil || len(edges) != 3 {
		t.Fatalf("callers of C: %v %v", edges, err)
	}
}
