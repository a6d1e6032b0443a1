package codegraph

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bundled workspaces, as the demo and the hub's tests see them.
func TestBundledWorkspaces(t *testing.T) {
	ts := index(t, workspaceFiles(t, "typescript"))
	same(t, "typescript: an imported function", callersOf(t, ts, "stateOf"), []string{"src/app.tsx:Row -> src/store.ts:stateOf (import)"})
	rs := index(t, workspaceFiles(t, "rust"))
	same(t, "rust: tests", testsOf(t, rs), []string{"src/lib.rs:add_twice_fails", "src/lib.rs:empty_name_panics"})
	same(t, "rust: a test's calls, in assert! too", calleesOf(t, rs, "add_twice_fails"), []string{
		"src/lib.rs:add_twice_fails -> src/lib.rs:Store.new (exact)",
		"src/lib.rs:add_twice_fails -> src/lib.rs:Store.add (name-only)",
		"src/lib.rs:add_twice_fails -> src/lib.rs:Store.add (name-only)",
	})
	mixed := index(t, workspaceFiles(t, "mixed"))
	same(t, "c: a function of the file", callersOf(t, mixed, "ring_empty"), []string{"native/ring.c:ring_pop -> native/ring.c:ring_empty (exact)"})
	same(t, "c++: methods defined out of their class", calleesOf(t, mixed, "native/ledger.cpp:main"), []string{
		"native/ledger.cpp:main -> native/ledger.cpp:Ledger.book (name-only)",
		"native/ledger.cpp:main -> native/ledger.cpp:Ledger.balance (name-only)",
	})
}

// workspaceFiles reads a bundled workspace of testdata/workspaces.
func workspaceFiles(t *testing.T, name string) map[string]string {
	t.Helper()
	dir := filepath.Join("..", "testdata", "workspaces", name)
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// blastOf renders the blast radius of name, to depth, one line a
// definition: ">> path:Qual confidence", and " test" for a test.
func blastOf(t *testing.T, x *Index, name string, depth int) []string {
	t.Helper()
	_, reached, err := x.Blast([]string{name}, depth, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range reached {
		line := strings.Repeat(">", r.Distance) + " " + r.Def.Path + ":" + r.Def.Qual() + " " + r.Confidence
		if r.Def.Test {
			line += " test"
		}
		out = append(out, line)
	}
	return out
}

// testsOf lists the definitions of x that are tests, as path:Qual.
func testsOf(t *testing.T, x *Index) []string {
	t.Helper()
	defs, err := x.Symbols("*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range defs {
		if d.Test {
			out = append(out, d.Path+":"+d.Qual())
		}
	}
	return out
}

// callersOf and calleesOf are x.Callers and x.Callees as edges, failing the
// test on an error.
func callersOf(t *testing.T, x *Index, name string) []string {
	t.Helper()
	_, es, err := x.Callers(name)
	if err != nil {
		t.Fatal(err)
	}
	return edges(es)
}

func calleesOf(t *testing.T, x *Index, name string) []string {
	t.Helper()
	_, es, err := x.Callees(name)
	if err != nil {
		t.Fatal(err)
	}
	return edges(es)
}
