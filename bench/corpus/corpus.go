// Package corpus is what the benchmarks share to make their corpora:
// copies of real projects (from the module cache, the standard library)
// that they can change, index and test.
package corpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Copy is how CopyTree copies.
type Copy struct {
	// Skip leaves out the file or directory at rel (relative to the
	// source, never "."); nil keeps everything.
	Skip func(rel string, d fs.DirEntry) bool
	// Old gives every file copied a modification time an hour ago, as a
	// checkout's files are: older than the code graph's racy window.
	Old bool
}

// CopyTree copies the regular files and directories of src (a file or a
// directory) into dst, writable by the owner (the module cache's files
// are read-only). Symbolic links and other special files are left out.
func CopyTree(src, dst string, o Copy) error {
	old := time.Now().Add(-time.Hour)
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if o.Skip != nil && rel != "." && o.Skip(rel, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			return err
		}
		if o.Old {
			return os.Chtimes(out, old, old)
		}
		return nil
	})
}
