// Package wstest helps tests: workspaces a walk cannot read, peers a test
// needs (and make test promises), and the cchub binary built once per run.
package wstest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// UnreadableDir makes a directory under dir that os.ReadDir cannot list,
// with a file hidden.go in it, and returns the directory's slash-separated
// path relative to dir and the reason ReadDir gives.
//
// A directory with mode 000 does it for a user, but root reads through
// permissions (CAP_DAC_OVERRIDE). For root the directory is made so deep
// that its path from dir is longer than PATH_MAX (4,096 bytes on Linux):
// every component is short and every parent lists fine, but open(2) refuses
// the path itself with ENAMETOOLONG, for root as for anyone. (A FIFO or a
// file is never taken for a directory by a walk, and a directory removed
// while walking is a race, so neither makes a steady test.) The test is
// skipped where neither way works.
func UnreadableDir(t testing.TB, dir string) (rel, reason string) {
	t.Helper()
	secret := filepath.Join(dir, "secret")
	if err := os.MkdirAll(secret, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "hidden.go"), []byte("package secret // needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(secret, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(secret, 0o755) })
	if _, err := os.ReadDir(secret); err != nil {
		if !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("a mode 000 directory fails to list with %v, not a permission error", err)
		}
		return "secret", "permission denied"
	}
	// Running as root: go deeper than PATH_MAX instead.
	os.Chmod(secret, 0o755)
	if err := os.RemoveAll(secret); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	comp := strings.Repeat("d", 200)
	var comps []string
	for len(comps)*(len(comp)+1) <= 4200 {
		if err := r.Mkdir(comp, 0o755); err != nil {
			r.Close()
			t.Fatal(err)
		}
		next, err := r.OpenRoot(comp)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		r, comps = next, append(comps, comp)
	}
	defer r.Close()
	f, err := r.Create("hidden.go")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("package secret // needle\n")
	f.Close()
	// The path from dir is what is too long, as a walk opens it, not the
	// path from / (which depends on where the temporary directory is).
	top, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(top)
	for i := range comps {
		rel := strings.Join(comps[:i+1], "/")
		fd, err := unix.Openat(top, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return rel, err.Error()
		}
		unix.Close(fd)
	}
	t.Skip("running as root, which reads a mode 000 directory, and this system lists directories deeper than 4,200 bytes too: no way to make ReadDir fail")
	return "", ""
}
