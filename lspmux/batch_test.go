package lspmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
)

// A Batch tells a server that reads only what it is told the file once:
// a second Batch of an unchanged file sends nothing (the document's
// version stays), one of a changed file sends the new content; its
// queries answer as Query does, and a definition outside the workspace
// is kept in Outside. (gopls, told here not to read from disk, stands in
// for such a server.)
func TestBatchTellsOnce(t *testing.T) {
	root, dir := goWorkspace(t)
	specs := Builtin()
	for i := range specs {
		specs[i].QueriesOnDisk = false
	}
	m := newGoMux(t, root, Options{Specs: specs})
	ctx := context.Background()
	l19 := strings.Split(read(t, dir, "main.go"), "\n")[18]
	col := strings.Index(l19, "Cents") + 1
	version := func() int32 {
		t.Helper()
		v, _ := docVersion(t, m, "main.go")
		return v
	}
	ask := func() *Answer {
		t.Helper()
		b, err := m.Batch(ctx, "main.go")
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		a, err := b.Query(ctx, Query{Op: "definition", Line: 19, Col: col})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := ask()
	if len(a.Locations) != 1 || a.Locations[0].Path != "pricing/pricing.go" || a.Locations[0].Line != 24 {
		t.Errorf("definition: %+v", a.Locations)
	}
	v := version()
	ask()
	if got := version(); got != v {
		t.Errorf("an unchanged file was told again: version %d, then %d", v, got)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(read(t, dir, "main.go")+"\n// changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ask()
	if got := version(); got != v+1 {
		t.Errorf("a changed file: version %d, want %d", got, v+1)
	}

	// fmt.Println's definition is in GOROOT, outside the workspace.
	text := read(t, dir, "main.go")
	for i, l := range strings.Split(text, "\n") {
		if c := strings.Index(l, "fmt.Print"); c >= 0 {
			b, err := m.Batch(ctx, "main.go")
			if err != nil {
				t.Fatal(err)
			}
			a, err := b.Query(ctx, Query{Op: "definition", Line: i + 1, Col: c + 5})
			b.Close()
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Locations) != 0 || len(a.Outside) != 1 || !strings.HasSuffix(filepath.ToSlash(a.Outside[0]), "/fmt/print.go") {
				t.Errorf("definition of %s: %+v outside %v, want fmt/print.go outside", strings.TrimSpace(l), a.Locations, a.Outside)
			}
			return
		}
	}
	t.Fatal("main.go calls nothing of fmt.Print*: the test needs a call into the standard library")
}

// A Batch on a server that reads files from disk (gopls) opens nothing
// (an open file makes gopls diagnose its package): its queries are
// answered from the file on disk, and once the file changed on disk and
// the server was told so (DiskChanged, as the hub's watcher does), from
// the new content, its lines moved.
func TestBatchAsksGoplsWithoutOpening(t *testing.T) {
	root, dir := goWorkspace(t)
	m := newGoMux(t, root, Options{})
	ctx := context.Background()
	ask := func(line int) (*Answer, bool) {
		t.Helper()
		b, err := m.Batch(ctx, "main.go")
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		col := strings.Index(strings.Split(string(b.Text()), "\n")[line-1], "Cents") + 1
		if col == 0 {
			t.Fatalf("line %d of main.go does not call Cents", line)
		}
		a, err := b.Query(ctx, Query{Op: "definition", Line: line, Col: col})
		if err != nil {
			t.Fatal(err)
		}
		_, open := docVersion(t, m, "main.go")
		return a, open
	}
	a, open := ask(19)
	if open {
		t.Error("a Batch opened main.go on gopls")
	}
	if len(a.Locations) != 1 || a.Locations[0].Path != "pricing/pricing.go" || a.Locations[0].Line != 24 {
		t.Errorf("definition: %+v", a.Locations)
	}
	text := read(t, dir, "main.go")
	moved := strings.Replace(text, "\n", "\n// one\n// two\n", 1)
	write(t, dir, "main.go", moved)
	if _, err := m.DiskChanged(ctx, []workspace.Change{{Path: "main.go", Kind: workspace.Changed}}); err != nil {
		t.Fatal(err)
	}
	if a, open = ask(21); open || len(a.Locations) != 1 || a.Locations[0].Path != "pricing/pricing.go" || a.Locations[0].Line != 24 {
		t.Errorf("after main.go moved two lines on disk: definition %+v (open %v), want pricing/pricing.go:24, unopened", a.Locations, open)
	}

	// A file of another platform is in no package gopls loaded: it is
	// opened once a question needs it, and answered.
	other := "//go:build windows\n\npackage main\n\nimport \"example.com/shop/pricing\"\n\nvar windowsPrice = pricing.Cents(1)\n"
	write(t, dir, "price_windows.go", other)
	if _, err := m.DiskChanged(ctx, []workspace.Change{{Path: "price_windows.go", Kind: workspace.Created}}); err != nil {
		t.Fatal(err)
	}
	b, err := m.Batch(ctx, "price_windows.go")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a, err = b.Query(ctx, Query{Op: "definition", Line: 7, Col: strings.Index("var windowsPrice = pricing.Cents(1)", "Cents") + 1})
	if err != nil || len(a.Locations) != 1 || a.Locations[0].Path != "pricing/pricing.go" || a.Locations[0].Line != 24 {
		t.Errorf("definition in a windows-only file: %+v, %v; want pricing/pricing.go:24", a, err)
	}
}

// docVersion is the version of rel its running server was told, and
// whether the server holds it open.
func docVersion(t *testing.T, m *Mux, rel string) (int32, bool) {
	t.Helper()
	o, err := m.ownerOf(rel)
	if err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	s := m.servers[o.key()]
	m.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	v, open := s.docs[m.docURI(rel)]
	return v, open
}
