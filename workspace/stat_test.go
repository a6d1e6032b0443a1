package workspace_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"cchub/workspace"
)

// A walk's entries answer Info as os.Lstat does, every field and Sys's
// inode (taken relative to the held directory while it is open, by path
// once it is closed): regular files with odd modes, a symlink, a FIFO.
func TestWalkEntriesInfoIsLstat(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.go"), "package a\n")
	write(t, filepath.Join(dir, "sub", "b.txt"), "bee\n")
	write(t, filepath.Join(dir, "sub", "run.sh"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(dir, "sub", "run.sh"), 0o4755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "sub", "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 678901234, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "sub", "b.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	same := func(when, rel string, got fs.FileInfo) {
		t.Helper()
		want, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		gs, ok1 := got.Sys().(*syscall.Stat_t)
		ws, ok2 := want.Sys().(*syscall.Stat_t)
		if got.Name() != want.Name() || got.Size() != want.Size() || got.Mode() != want.Mode() ||
			!got.ModTime().Equal(want.ModTime()) || got.IsDir() != want.IsDir() || !ok1 || !ok2 || gs.Ino != ws.Ino {
			t.Errorf("%s, %s: Info %s %d %v %v, lstat %s %d %v %v", when, rel,
				got.Name(), got.Size(), got.Mode(), got.ModTime(), want.Name(), want.Size(), want.Mode(), want.ModTime())
		}
	}
	entries := map[string]fs.DirEntry{}
	if err := root.WalkHeld(context.Background(), ".", func(rel string, d fs.DirEntry, in *workspace.Dir) error {
		if d.IsDir() {
			return nil
		}
		entries[rel] = d
		info, err := d.Info()
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		same("in the walk", rel, info)
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 5 {
		t.Fatalf("walked %v", entries)
	}
	for rel, d := range entries {
		info, err := d.Info()
		if err != nil {
			t.Fatalf("%s after the walk: %v", rel, err)
		}
		same("after the walk", rel, info)
	}
	os.Remove(filepath.Join(dir, "a.go"))
	if _, err := entries["a.go"].Info(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Info of a removed file: %v", err)
	}
}
