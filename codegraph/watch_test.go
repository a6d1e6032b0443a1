package codegraph

import (
	"os"
	"path/filepath"
	"testing"
)

// A file rewritten by another process with its size and mtime kept is
// missed by the stamps alone; once the watcher says it changed (Suspect),
// the next Update reads it, and a stale definition is never served.
func TestSuspectedFileIsReadAgain(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n\nfunc A() {}\n")
	x := persisted(t, dir)
	update(t, x)
	p := filepath.Join(dir, "a.go")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("package a\n\nfunc Z() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, fi.ModTime(), fi.ModTime()) // as cp -p or tar leave it
	update(t, x)
	if ds, _ := x.Symbols("Z"); len(ds) != 0 {
		t.Fatalf("the stamps alone saw the change (then Suspect is not needed): %v", ds)
	}
	x.Suspect([]string{"a.go", "unknown.go"})
	if st := update(t, x); st.Read != 1 || st.Parsed != 1 {
		t.Fatalf("a suspected file was not read again: %+v", st)
	}
	if ds, _ := x.Symbols("Z"); len(ds) != 1 {
		t.Fatalf("Z after Suspect: %v", ds)
	}
	if ds, _ := x.Symbols("A"); len(ds) != 0 {
		t.Fatalf("the stale A is still served: %v", ds)
	}
}
