package codegraph

import (
	"os"
	"path/filepath"
	"testing"
)

// A file rewritten by another process with its size and mtime kept (cp
// -p, rsync -t, tar x, touch -r) is read again by the next Update: its
// ctime moved (workspace.Identity), and a stale definition is never
// served.
func TestSameSizeEditWithItsMtimePutBackIsReadAgain(t *testing.T) {
	t.Parallel() // each waits for its files to settle
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n\nfunc A() {}\n")
	settle()
	x := persisted(t, dir)
	update(t, x)
	if st := update(t, x); st.Read != 0 {
		t.Fatalf("an unchanged, settled file was read again: %+v", st)
	}
	p := filepath.Join(dir, "a.go")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("package a\n\nfunc Z() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, fi.ModTime(), fi.ModTime()) // as cp -p or tar leave it
	if st := update(t, x); st.Read != 1 || st.Parsed != 1 {
		t.Fatalf("the edit was not read: %+v", st)
	}
	if ds, _ := x.Symbols("Z"); len(ds) != 1 {
		t.Fatalf("Z after the edit: %v", ds)
	}
	if ds, _ := x.Symbols("A"); len(ds) != 0 {
		t.Fatalf("the stale A is still served: %v", ds)
	}
}

// A file the watcher says changed (Suspect) is read again by the next
// Update even when its Identity says nothing moved; files the index does
// not know are left to the walk.
func TestSuspectedFileIsReadAgain(t *testing.T) {
	t.Parallel() // each waits for its files to settle
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n\nfunc A() {}\n")
	settle()
	x := persisted(t, dir)
	update(t, x)
	x.Suspect([]string{"a.go", "unknown.go"})
	if st := update(t, x); st.Read != 1 || st.Parsed != 0 || st.Files != 1 {
		t.Fatalf("a suspected file was not read again (and not parsed: its content is the same): %+v", st)
	}
	if st := update(t, x); st.Read != 0 {
		t.Fatalf("read again once more: %+v", st)
	}
}
