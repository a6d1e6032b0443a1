package workspace

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// openFDs counts the process's open descriptors (Linux), or -1.
func openFDs(t *testing.T) int {
	t.Helper()
	if runtime.GOOS != "linux" {
		return -1
	}
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// readAt reads the file rel, listed as d in dir, whole.
func readAt(r *Root, dir *Dir, d fs.DirEntry, rel string, max int64) ([]byte, error) {
	o, err := r.OpenReadAt(dir, d, rel, max)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	return o.ReadAll(nil)
}

// A held walk gives each file its directory; reading the file relative to
// it gives what ReadInto does, a symlink that leads to a sibling
// directory is read from the root, one that leads out is refused as
// ReadInto refuses it, and every directory is closed once the walk and
// the readers that held it have let go.
func TestOpenReadAtReadsAsReadIntoAndClosesItsDirectories(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	for rel, content := range map[string]string{
		"a.txt": "alpha\n", "d/b.txt": "beta\n", "d/e/c.txt": "gamma\n", "s/x.txt": "sibling\n",
	} {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../s/x.txt", filepath.Join(dir, "d", "sib.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.txt", filepath.Join(dir, "d", "same.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(dir, "d", "out.txt")); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	type job struct {
		rel string
		d   fs.DirEntry
		dir *Dir
	}
	var jobs []job
	var dirs int
	err = r.WalkHeld(context.Background(), ".", func(rel string, d fs.DirEntry, in *Dir) error {
		if d.IsDir() {
			return nil
		}
		if in == nil {
			t.Errorf("%s: no directory held", rel)
		}
		in.Hold() // read after the walk has moved on
		jobs = append(jobs, job{rel, d, in})
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[*Dir]bool{}
	var got []string
	for _, j := range jobs {
		seen[j.dir] = true
		at, errAt := readAt(r, j.dir, j.d, j.rel, 1<<20)
		plain, errPlain := r.ReadInto(j.rel, nil, 1<<20)
		if string(at) != string(plain) || (errAt == nil) != (errPlain == nil) {
			t.Errorf("%s: read at its directory %q, %v; ReadInto %q, %v", j.rel, at, errAt, plain, errPlain)
		}
		if strings.Contains(string(at), "secret") {
			t.Errorf("%s: read from outside the root: %q", j.rel, at)
		}
		got = append(got, j.rel+"="+strings.TrimSpace(string(at)))
	}
	sort.Strings(got)
	want := "a.txt=alpha d/b.txt=beta d/e/c.txt=gamma d/same.txt=beta d/sib.txt=sibling s/x.txt=sibling"
	if strings.Join(got, " ") != want {
		t.Errorf("read %q, want %q (d/out.txt leads out of the root: the walk leaves it out)", strings.Join(got, " "), want)
	}
	dirs = len(seen)
	if dirs != 4 {
		t.Errorf("%d directories held, want 4 (., d, d/e, s)", dirs)
	}
	if before >= 0 && openFDs(t) != before+dirs {
		t.Errorf("%d descriptors open while the readers hold %d directories, %d before", openFDs(t), dirs, before)
	}
	for _, j := range jobs {
		j.dir.Release()
	}
	if after := openFDs(t); before >= 0 && after != before {
		t.Errorf("%d descriptors open after every reader let go, %d before", after, before)
	}
	// OpenReadAt of a file the walk did not give (a nil directory) is
	// OpenRead.
	if data, err := readAt(r, nil, fs.FileInfoToDirEntry(nil), "d/b.txt", 1<<20); err != nil || string(data) != "beta\n" {
		t.Errorf("OpenReadAt(nil): %q, %v", data, err)
	}
}
