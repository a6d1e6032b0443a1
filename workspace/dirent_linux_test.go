package workspace

import (
	"context"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// dirent is one getdents64 record: inode, offset, length, type, name, NUL,
// padded to eight bytes.
func dirent(name string, typ byte) []byte {
	n := (19 + len(name) + 1 + 7) &^ 7
	rec := make([]byte, n)
	binary.NativeEndian.PutUint64(rec[0:], 1)
	binary.NativeEndian.PutUint16(rec[16:], uint16(n))
	rec[18] = typ
	copy(rec[19:], name)
	return rec
}

// A listing's records give each entry its type; a file system that gives
// none (DT_UNKNOWN) has it taken by an lstat, "." and ".." are left out,
// an entry gone since it was listed is left out, and a record whose
// length is no record's ends the answer rather than being read past.
func TestParseDirentsTypesEveryEntry(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := &Dir{fd: fd, abs: dir}
	d.Hold()
	defer d.Release()
	var buf []byte
	for _, r := range [][]byte{
		dirent(".", syscall.DT_DIR), dirent("..", syscall.DT_DIR),
		dirent("file.txt", syscall.DT_REG), dirent("sub", syscall.DT_DIR), dirent("link", syscall.DT_LNK),
		dirent("sub", syscall.DT_UNKNOWN), dirent("link", syscall.DT_UNKNOWN), dirent("file.txt", syscall.DT_UNKNOWN),
		dirent("gone", syscall.DT_UNKNOWN),
	} {
		buf = append(buf, r...)
	}
	bad := dirent("never", syscall.DT_REG)
	binary.NativeEndian.PutUint16(bad[16:], 4000) // longer than what is left
	buf = append(buf, bad...)
	ents := d.parseDirents(buf, nil)
	var got []string
	for _, e := range ents {
		got = append(got, fs.FormatDirEntry(&e))
	}
	want := []string{"- file.txt", "d sub/", "L link", "d sub/", "L link", "- file.txt"}
	if len(got) != len(want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// An entry's Info is its lstat, through the directory while it is held
// and by its path once it is closed.
func TestHeldDirentInfoAfterItsDirectoryIsClosed(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d", "f.txt"), []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var kept fs.DirEntry
	err = r.WalkHeld(context.Background(), ".", func(rel string, e fs.DirEntry, in *Dir) error {
		if rel == "d/f.txt" {
			if _, ok := e.(*heldDirent); !ok {
				t.Errorf("d/f.txt listed as %T, want a *heldDirent (listed relative to its parent)", e)
			}
			kept = e
			if fi, err := e.Info(); err != nil || fi.Size() != 5 {
				t.Errorf("Info while held: %v, %v", fi, err)
			}
		}
		return nil
	}, nil)
	if err != nil || kept == nil {
		t.Fatalf("walk: %v; d/f.txt found: %v", err, kept != nil)
	}
	if fi, err := kept.Info(); err != nil || fi.Size() != 5 || fi.Name() != "f.txt" {
		t.Errorf("Info after the walk closed d: %v, %v", fi, err)
	}
}
