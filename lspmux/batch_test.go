package lspmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Batch tells its server the file once: a second Batch of an unchanged
// file sends nothing (the document's version stays), one of a changed
// file sends the new content; its queries answer as Query does, and a
// definition outside the workspace is kept in Outside.
func TestBatchTellsOnce(t *testing.T) {
	root, dir := goWorkspace(t)
	m := newGoMux(t, root, Options{})
	ctx := context.Background()
	l19 := strings.Split(read(t, dir, "main.go"), "\n")[18]
	col := strings.Index(l19, "Cents") + 1
	version := func() int32 {
		t.Helper()
		o, err := m.ownerOf("main.go")
		if err != nil {
			t.Fatal(err)
		}
		m.mu.Lock()
		s := m.servers[o.key()]
		m.mu.Unlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.docs[m.docURI("main.go")]
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
