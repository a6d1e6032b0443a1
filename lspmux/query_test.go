package lspmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The queries, asked of a real gopls about the bundled Go workspace:
// places come back as relative paths, 1-based lines and columns and their
// source line; a rename is a diff per file, and nothing is written.
func TestGoplsQueries(t *testing.T) {
	root, dir := goWorkspace(t)
	m := newGoMux(t, root, Options{})
	ctx := context.Background()
	// main.go:19: s.Add(store.Item{SKU: "apple", Name: "Apple", Price: pricing.Cents(45), Qty: 120})
	line := read(t, dir, "main.go")
	l19 := strings.Split(line, "\n")[18]
	col := strings.Index(l19, "Cents") + 1 // ASCII: bytes are characters
	ask := func(q Query) *Answer {
		t.Helper()
		a, err := m.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q.Op, err)
		}
		return a
	}
	def := ask(Query{Op: "definition", Path: "main.go", Line: 19, Col: col})
	if len(def.Locations) != 1 || def.Locations[0].Path != "pricing/pricing.go" || def.Locations[0].Line != 24 || !strings.HasPrefix(def.Locations[0].Text, "func Cents(") {
		t.Errorf("definition: %+v", def.Locations)
	}
	refs := ask(Query{Op: "references", Path: "main.go", Line: 19, Col: col})
	if len(refs.Locations) != 4 { // the declaration and three calls
		t.Errorf("references: %+v", refs.Locations)
	}
	hover := ask(Query{Op: "hover", Path: "main.go", Line: 19, Col: col})
	if !strings.Contains(hover.Text, "func pricing.Cents(n int64) pricing.Money") || !strings.Contains(hover.Text, "Cents returns n cents") {
		t.Errorf("hover: %q", hover.Text)
	}
	syms := ask(Query{Op: "document_symbols", Path: "pricing/pricing.go"})
	found := false
	for _, s := range syms.Locations {
		if s.Name == "Cents" && s.Kind == "function" && s.Line == 24 {
			found = true
		}
	}
	if !found {
		t.Errorf("document_symbols: %+v", syms.Locations)
	}
	ws := ask(Query{Op: "workspace_symbols", Path: "main.go", Name: "Cents"})
	if len(ws.Locations) == 0 || ws.Locations[0].Path != "pricing/pricing.go" {
		t.Errorf("workspace_symbols: %+v", ws.Locations)
	}
	in := ask(Query{Op: "incoming_calls", Path: "pricing/pricing.go", Line: 24, Col: 6})
	if len(in.Locations) != 1 || in.Locations[0].Name != "main" || in.Locations[0].Path != "main.go" {
		t.Errorf("incoming_calls: %+v", in.Locations)
	}
	before := read(t, dir, "main.go")
	rn := ask(Query{Op: "rename", Path: "pricing/pricing.go", Line: 24, Col: 6, NewName: "FromCents"})
	if len(rn.Diffs) != 2 || rn.Diffs[0].Path != "main.go" || !strings.Contains(rn.Diffs[0].Diff, "+\ts.Add(store.Item{SKU: \"apple\", Name: \"Apple\", Price: pricing.FromCents(45), Qty: 120})") {
		t.Errorf("rename: %+v", rn.Diffs)
	}
	if read(t, dir, "main.go") != before {
		t.Error("rename wrote the file")
	}
	if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Query(ctx, Query{Op: "nonsense", Path: "main.go", Line: 1, Col: 1}); err == nil || !strings.Contains(err.Error(), "one of definition, references") {
		t.Errorf("unknown op: %v", err)
	}
}
