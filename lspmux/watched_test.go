package lspmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cchub/workspace"
)

const (
	callee1 = "package m\n\nfunc F(x int) int { return x }\n"
	callee2 = "package m\n\nfunc F(x, y int) int { return x + y }\n"
	caller  = "package m\n\nvar V = F(1)\n"
)

// calleeModule is a Go module whose b.go calls F of a.go.
func calleeModule(t *testing.T) (*workspace.Root, string) {
	t.Helper()
	return module(t, map[string]string{"go.mod": "module m\n\ngo 1.22\n", "a.go": callee1, "b.go": caller})
}

// errorsOf is the error messages of rel's diagnostics, as the Mux answers
// them now.
func errorsOf(t *testing.T, m *Mux, rel string) []string {
	t.Helper()
	rep, err := m.Diagnostics(context.Background(), []string{rel})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, d := range rep.Files[rel] {
		if d.Severity == "error" {
			msgs = append(msgs, d.Message)
		}
	}
	return msgs
}

// A change another process made reaches gopls through DiskChanged: as
// didChangeWatchedFiles for a file it does not have open, as didChange
// for one it does; the broken caller's diagnostics say so, and the undo
// clears them. What the server already holds is not sent again.
func TestDiskChangedReachesTheServer(t *testing.T) {
	root, dir := calleeModule(t)
	m := newGoMux(t, root, Options{Timeout: 60 * time.Second})
	ctx := context.Background()
	if errs := errorsOf(t, m, "b.go"); len(errs) != 0 {
		t.Fatalf("b.go before any change: %v", errs)
	}
	// No server is started for a change: only running ones are told.
	if rep, err := (&Mux{root: root, servers: map[string]*server{}}).DiskChanged(ctx, []workspace.Change{{Path: "a.go", Kind: workspace.Changed}}); err != nil || rep.Told() {
		t.Fatalf("a Mux with no server told something: %+v, %v", rep, err)
	}

	for _, open := range []bool{false, true} {
		if open {
			errorsOf(t, m, "a.go") // a.go is now an open document
		}
		write(t, dir, "a.go", callee2)
		rep, err := m.DiskChanged(ctx, []workspace.Change{{Path: "a.go", Kind: workspace.Changed}})
		if err != nil {
			t.Fatal(err)
		}
		if open != (len(rep.Changed) == 1) || !open && rep.Watched != 1 {
			t.Fatalf("open=%v: %+v", open, rep)
		}
		errs := errorsOf(t, m, "b.go")
		if len(errs) != 1 || !strings.Contains(errs[0], "not enough arguments") {
			t.Fatalf("open=%v: b.go after F gained a parameter on disk: %v", open, errs)
		}
		write(t, dir, "a.go", callee1)
		if _, err := m.DiskChanged(ctx, []workspace.Change{{Path: "a.go", Kind: workspace.Changed}}); err != nil {
			t.Fatal(err)
		}
		if errs := errorsOf(t, m, "b.go"); len(errs) != 0 {
			t.Fatalf("open=%v: b.go after the undo on disk: %v", open, errs)
		}
	}

	// The hub's own write: told by AfterWrite, found the same on disk.
	f := write(t, dir, "a.go", callee2)
	if _, err := m.AfterWrite(ctx, []File{f}); err != nil {
		t.Fatal(err)
	}
	rep, err := m.DiskChanged(ctx, []workspace.Change{{Path: "a.go", Kind: workspace.Changed}})
	if err != nil || rep.Told() || rep.Same != 1 {
		t.Fatalf("the hub's own write was sent again: %+v, %v", rep, err)
	}

	// Deleted: the open document is closed, and b.go's call is undefined.
	os.Remove(filepath.Join(dir, "a.go"))
	rep, err = m.DiskChanged(ctx, []workspace.Change{{Path: "a.go", Kind: workspace.Deleted}})
	if err != nil || len(rep.Closed) != 1 || len(m.OpenDocuments()) != 1 {
		t.Fatalf("a deleted open document: %+v, %v; open %v", rep, err, m.OpenDocuments())
	}
	if errs := errorsOf(t, m, "b.go"); len(errs) != 1 || !strings.Contains(errs[0], "undefined: F") {
		t.Fatalf("b.go after a.go was deleted: %v", errs)
	}
}
