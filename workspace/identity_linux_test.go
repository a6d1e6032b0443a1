package workspace_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cchub/workspace"
)

// IdentityOf on real files: a chmod moves ctime alone, a same-size edit
// with its mtime put back moves ctime, a copy renamed over with the same
// times moves the inode; each is not Same. A walk's entry, a Listing's,
// and os.Lstat give one Identity.
func TestIdentityOfRealFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	write(t, p, "alpha\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	idOf := func() workspace.Identity {
		t.Helper()
		st, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return workspace.IdentityOf(st)
	}
	// The kernel stamps ctime with a coarse clock: past its tick, a
	// change shows.
	tick := func() { time.Sleep(20 * time.Millisecond) }
	first := idOf()
	if !first.Known() || first.Inode == 0 || first.Size != 6 || first.MTime != old.UnixNano() {
		t.Fatalf("IdentityOf(lstat) = %+v", first)
	}
	if !first.Same(idOf()) {
		t.Fatal("an untouched file's identity moved")
	}

	tick()
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	now := idOf()
	if now.Size != first.Size || now.MTime != first.MTime || now.Inode != first.Inode || now.CTime == first.CTime || first.Same(now) {
		t.Errorf("after chmod: %+v, was %+v; want ctime alone moved, and not Same", now, first)
	}

	first = now
	tick()
	if err := os.WriteFile(p, []byte("omega\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if now = idOf(); now.Size != first.Size || now.MTime != first.MTime || first.Same(now) {
		t.Errorf("after a same-size edit with its mtime put back: %+v, was %+v; want not Same", now, first)
	}

	first = now
	q := filepath.Join(dir, "a.new")
	write(t, q, "omega\n")
	if err := os.Chmod(q, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(q, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(q, p); err != nil {
		t.Fatal(err)
	}
	if now = idOf(); now.Size != first.Size || now.MTime != first.MTime || now.Inode == first.Inode || first.Same(now) {
		t.Errorf("after a copy renamed over it: %+v, was %+v; want another inode, and not Same", now, first)
	}

	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	want := idOf()
	var walked workspace.Identity
	if err := root.Walk(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		if rel == "a.txt" {
			info, err := d.Info()
			if err != nil {
				return err
			}
			walked = workspace.IdentityOf(info)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	l, err := root.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var listed workspace.Identity
	if _, err := l.WalkHeld(context.Background(), ".", func(rel string, d fs.DirEntry, _ *workspace.Dir) error {
		if rel == "a.txt" {
			info, _ := d.Info()
			listed = workspace.IdentityOf(info)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if walked != want || listed != want {
		t.Errorf("identity: walk %+v, listing %+v, lstat %+v", walked, listed, want)
	}
}
