package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cchub/textfmt"
)

func openTestRoot(t *testing.T, dir string) *Root {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func writeFile(t *testing.T, p, s string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Writing through a symlink changes the file it names and keeps the link.
func TestWriteFileThroughSymlinkKeepsTheLink(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "real", "a.go"), "old\n", 0o644)
	if err := os.Symlink("real/a.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	// An absolute link that lands inside the root is followed too.
	if err := os.Symlink(filepath.Join(dir, "real", "a.go"), filepath.Join(dir, "abs.go")); err != nil {
		t.Fatal(err)
	}
	r := openTestRoot(t, dir)
	for _, name := range []string{"link.go", "abs.go"} {
		if _, err := r.WriteFile(name, []byte("new via "+name+"\n"), 0o644); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		st, err := os.Lstat(filepath.Join(dir, name))
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symlink: %v %v", name, st.Mode(), err)
		}
		if got := readString(t, filepath.Join(dir, "real", "a.go")); got != "new via "+name+"\n" {
			t.Fatalf("target holds %q after writing %s", got, name)
		}
	}
}

// A link that leads out of the root is refused, and the outside file kept.
func TestWriteFileRefusesSymlinkOut(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(out, "secret"), "outside\n", 0o644)
	os.Symlink(filepath.Join(out, "secret"), filepath.Join(dir, "abs"))
	os.Symlink("../"+filepath.Base(out)+"/secret", filepath.Join(dir, "rel"))
	os.Symlink(out, filepath.Join(dir, "outdir"))
	r := openTestRoot(t, dir)
	for _, name := range []string{"abs", "rel", "outdir/secret", "outdir/new"} {
		_, err := r.WriteFile(name, []byte("pwned\n"), 0o644)
		if !errors.Is(err, ErrOutsideRoot) && !isEscape(err) {
			t.Errorf("%s: err = %v, want a refusal as outside the root", name, err)
		}
	}
	if got := readString(t, filepath.Join(out, "secret")); got != "outside\n" {
		t.Errorf("outside file now holds %q", got)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Errorf("outside directory holds %d entries, want 1", len(ents))
	}
}

// A file with two names stays one file: both names see the new content.
func TestWriteFileKeepsHardLinks(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "one\n", 0o640)
	if err := os.Link(filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	r := openTestRoot(t, dir)
	if _, err := r.WriteFile("a.txt", []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(dir, "b.txt")); got != "two\n" {
		t.Errorf("the other name holds %q, want the new content", got)
	}
	a, _ := os.Stat(filepath.Join(dir, "a.txt"))
	b, _ := os.Stat(filepath.Join(dir, "b.txt"))
	if !os.SameFile(a, b) || a.Mode().Perm() != 0o640 {
		t.Errorf("hard link split or mode changed: same=%v mode=%v", os.SameFile(a, b), a.Mode())
	}
}

// Every mode bit survives a replace, setgid and setuid included, and the
// owner and group too (tested across owners only when run as root).
func TestWriteFileKeepsModeAndOwner(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "tool.sh")
	writeFile(t, p, "#!/bin/sh\n", 0o755)
	if err := os.Chmod(p, 0o755|fs.ModeSetgid|fs.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	asRoot := os.Getuid() == 0
	if asRoot {
		if err := os.Chown(p, 4321, 4322); err != nil {
			t.Fatal(err)
		}
		// chown clears setuid/setgid; set them again.
		os.Chmod(p, 0o755|fs.ModeSetgid|fs.ModeSetuid)
	}
	before, _ := os.Stat(p)
	r := openTestRoot(t, dir)
	if _, err := r.WriteFile("tool.sh", []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(p)
	if after.Mode() != before.Mode() {
		t.Errorf("mode %v, want %v", after.Mode(), before.Mode())
	}
	bs, as := before.Sys().(*syscall.Stat_t), after.Sys().(*syscall.Stat_t)
	if bs.Uid != as.Uid || bs.Gid != as.Gid {
		t.Errorf("owner %d:%d, want %d:%d", as.Uid, as.Gid, bs.Uid, bs.Gid)
	}
	if asRoot && as.Uid != 4321 {
		t.Errorf("owner %d, want 4321", as.Uid)
	}
	if got := readString(t, p); got != "#!/bin/sh\necho hi\n" {
		t.Errorf("content %q", got)
	}
}

// A read-only file is refused (even for root, who could write it), and is
// left as it was.
func TestWriteFileRefusesReadOnly(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ro.txt")
	writeFile(t, p, "keep\n", 0o444)
	r := openTestRoot(t, dir)
	_, err := r.WriteFile("ro.txt", []byte("changed\n"), 0o644)
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "chmod u+w") {
		t.Fatalf("err = %v, want a read-only refusal that says how to allow it", err)
	}
	if got := readString(t, p); got != "keep\n" {
		t.Errorf("read-only file now holds %q", got)
	}
}

// .git and .cchub are not written: git runs hooks and obeys config.
func TestWriteFileRefusesGitAndState(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".git", "config"), "[core]\n", 0o644)
	r := openTestRoot(t, dir)
	for _, p := range []string{".git/config", ".git/hooks/pre-commit", "sub/.git/config", ".cchub/x", ".git"} {
		_, err := r.WriteFile(p, []byte("x"), 0o755)
		if !errors.Is(err, ErrProtected) {
			t.Errorf("%s: err = %v, want ErrProtected", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf(".git/hooks was created")
	}
	// A symlink that leads into .git is refused as well.
	os.Symlink(".git/config", filepath.Join(dir, "cfg"))
	if _, err := r.WriteFile("cfg", []byte("x"), 0o644); !errors.Is(err, ErrProtected) {
		t.Errorf("cfg -> .git/config: err = %v, want ErrProtected", err)
	}
	if got := readString(t, filepath.Join(dir, ".git", "config")); got != "[core]\n" {
		t.Errorf(".git/config now holds %q", got)
	}
}

// Names the file system cannot hold are refused before any directory is
// made; a long name that fits can be written (the temporary name is cut).
func TestWriteFileNameLimits(t *testing.T) {
	dir := t.TempDir()
	r := openTestRoot(t, dir)
	long := strings.Repeat("n", 250)
	if _, err := r.WriteFile(long, []byte("a\n"), 0o644); err != nil {
		t.Fatalf("a 250-byte name: %v", err)
	}
	if _, err := r.WriteFile(long, []byte("b\n"), 0o644); err != nil {
		t.Fatalf("replacing a 250-byte name: %v", err)
	}
	deep := strings.Repeat("d/", 2100) + "f.txt"
	if _, err := r.WriteFile(deep, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "longer than the file system allows") {
		t.Fatalf("a %d-byte path: err = %v", len(deep), err)
	}
	if _, err := r.WriteFile("x/"+strings.Repeat("y", 256), []byte("x"), 0o644); err == nil {
		t.Fatal("a 256-byte name was accepted")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("root holds %d entries, want only the long-named file (no directories left behind)", len(ents))
	}
}

// A write that fails removes the directories it made for the file.
func TestWriteFileFailureLeavesNoDirectories(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sub", "file"), "x", 0o644)
	r := openTestRoot(t, dir)
	// sub/file is a file: nothing can be made under it.
	if _, err := r.WriteFile("sub/file/deep/x.txt", []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "sub/file is a file") {
		t.Fatalf("writing under a file: %v", err)
	}
	made, err := r.WriteFile("a/b/c.txt", []byte("x"), 0o644)
	if err != nil || strings.Join(made, ",") != "a,a/b" {
		t.Fatalf("made %v, %v; want a, a/b", made, err)
	}
	os.Remove(filepath.Join(dir, "a", "b", "c.txt"))
	r.RemoveDirs(made)
	if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("RemoveDirs left a/: %v", err)
	}
}

// A trailing slash names a directory: not a file to create.
func TestCheckFilePath(t *testing.T) {
	if err := CheckFilePath("newdir/"); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("newdir/: %v", err)
	}
	if err := CheckFilePath("newdir/a.txt"); err != nil {
		t.Errorf("newdir/a.txt: %v", err)
	}
}

// A named pipe or a device is refused at once, on what was opened.
func TestReadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := openTestRoot(t, dir)
	for _, read := range []func() error{
		func() error { _, err := r.ReadText("pipe"); return err },
		func() error { _, err := r.ReadInto("pipe", nil, 1<<20); return err },
		func() error { _, err := r.WriteFile("pipe", []byte("x"), 0o644); return err },
	} {
		if err := read(); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("err = %v, want a refusal naming the pipe", err)
		}
	}
}

// Error messages do not echo a huge path whole.
func TestShowArgIsBounded(t *testing.T) {
	r := openTestRoot(t, t.TempDir())
	_, _, err := r.Resolve("../" + strings.Repeat("x", 100000))
	if err == nil || len(err.Error()) > 600 {
		t.Fatalf("error of %d bytes: %.200v", len(err.Error()), err)
	}
}

// A file name with a line break is listed quoted, and the quoted form
// reads the file back.
func TestShowPathQuotesControlCharacters(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a\nb.go"), "package a\n", 0o644)
	r := openTestRoot(t, dir)
	shown := textfmt.ShowPath("a\nb.go")
	if shown != `"a\nb.go"` || textfmt.ShowPath("plain/a.go") != "plain/a.go" {
		t.Fatalf("ShowPath = %s", shown)
	}
	_, rel, err := r.Resolve(shown)
	if err != nil || rel != "a\nb.go" {
		t.Fatalf("Resolve(%s) = %q, %v", shown, rel, err)
	}
	if data, err := r.ReadText(rel); err != nil || string(data) != "package a\n" {
		t.Fatalf("read back: %q %v", data, err)
	}
}
