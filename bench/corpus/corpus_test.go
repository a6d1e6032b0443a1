package corpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CopyTree copies files writable, skips what it is told, leaves links out
// and, with Old, dates the copies an hour back.
func TestCopyTree(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	os.MkdirAll(filepath.Join(src, "a", "skip"), 0o755)
	os.WriteFile(filepath.Join(src, "a", "f.txt"), []byte("f"), 0o444)
	os.WriteFile(filepath.Join(src, "a", "skip", "g.txt"), []byte("g"), 0o644)
	os.Symlink("f.txt", filepath.Join(src, "a", "link"))
	err := CopyTree(src, dst, Copy{Old: true, Skip: func(rel string, d fs.DirEntry) bool { return d.IsDir() && d.Name() == "skip" }})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dst, "a", "f.txt"))
	if err != nil || fi.Mode().Perm()&0o200 == 0 || time.Since(fi.ModTime()) < 30*time.Minute {
		t.Fatalf("a/f.txt: %v %v, want a writable copy dated an hour back", fi, err)
	}
	for _, gone := range []string{"a/skip", "a/link"} {
		if _, err := os.Lstat(filepath.Join(dst, gone)); err == nil {
			t.Errorf("%s was copied", gone)
		}
	}
}
