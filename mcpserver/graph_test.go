package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The graph tool on the bundled Go workspace: who calls pricing.Cents,
// what Store.Add calls, how far a change to it reaches (the test among
// them), and an edit followed at the next question.
func TestMCPGraph(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "graph", map[string]any{"op": "callers", "name": "Cents"})
	if isErr || !strings.HasPrefix(text, "callers of Cents (pricing/pricing.go:24): 3 — 3 import\n") || !strings.Contains(text, "main.go:19:63\tmain [import]") {
		t.Fatalf("callers:\n%s", text)
	}
	text, isErr = callText(t, cs, "graph", map[string]any{"op": "blast", "name": "Store.Add"})
	if isErr || !strings.Contains(text, "distance 1:") || !strings.Contains(text, "store/store_test.go") || !strings.Contains(text, "tests: TestAddTwice (store/store_test.go)") {
		t.Fatalf("blast:\n%s", text)
	}
	text, isErr = callText(t, cs, "graph", map[string]any{"op": "symbols", "name": "Store.*"})
	if isErr || !strings.Contains(text, "store/store.go:66-74\tmethod Store.Add") {
		t.Fatalf("symbols:\n%s", text)
	}
	// A new caller, written on disk, is in the next answer.
	p := filepath.Join(ws, "pricing", "extra.go")
	os.WriteFile(p, []byte("package pricing\n\nfunc Dollar() Money { return Cents(100) }\n"), 0o644)
	text, _ = callText(t, cs, "graph", map[string]any{"op": "callers", "name": "Cents"})
	if !strings.Contains(text, "pricing/extra.go:3:30\tDollar [exact]") {
		t.Errorf("the new caller:\n%s", text)
	}
	// An edit made through the hub is in the next answer too.
	callText(t, cs, "read", map[string]any{"path": "pricing/extra.go"})
	if text, isErr := callText(t, cs, "edit", map[string]any{"path": "pricing/extra.go", "old_string": "return Cents(100) }", "new_string": "return Cents(100) }\n\nfunc Euro() Money { return Cents(90) }"}); isErr {
		t.Fatalf("edit: %s", text)
	}
	text, _ = callText(t, cs, "graph", map[string]any{"op": "callers", "name": "Cents"})
	if !strings.Contains(text, "pricing/extra.go:5:28\tEuro [exact]") {
		t.Errorf("the caller added by an edit:\n%s", text)
	}
	if text, isErr := callText(t, cs, "graph", map[string]any{"op": "callers", "name": "NoSuchThing"}); !isErr || !strings.Contains(text, "no definition named") {
		t.Errorf("an unknown name:\n%s", text)
	}
}

// The graph tool's tests op: the tests a change to a definition can
// break, as the JSON of cchub blast --tests, with the command to run.
func TestMCPGraphTests(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "graph", map[string]any{"op": "tests", "name": "Store.Add"})
	if isErr || !strings.Contains(text, `"all": null`) || !strings.Contains(text, `"command": "go test ./store -run '^(TestAddTwice)$'"`) || !strings.Contains(text, `"suite": 1`) {
		t.Fatalf("tests:\n%s", text)
	}
	if text, isErr := callText(t, cs, "graph", map[string]any{"op": "tests"}); !isErr || !strings.Contains(text, "tests needs name") {
		t.Errorf("no name:\n%s", text)
	}
}
