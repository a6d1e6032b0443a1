package workspace_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"cchub/workspace"
	"cchub/workspace/wstest"
)

// visit is one call of a walk, as a test compares them.
type visit struct {
	rel         string
	dir         bool
	typ         fs.FileMode
	size, mtime int64
}

func visits(t *testing.T, walk func(workspace.HeldWalkFunc) error) []visit {
	t.Helper()
	var got []visit
	if err := walk(func(rel string, d fs.DirEntry, _ *workspace.Dir) error {
		v := visit{rel: rel, dir: d.IsDir(), typ: d.Type()}
		if !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			v.size, v.mtime = info.Size(), info.ModTime().UnixNano()
		}
		got = append(got, v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// A Listing walked from any directory visits what the disk's walk from
// there visits, in the same order, with the same stat; from a path it
// does not hold as a directory it says so, and visits nothing.
func TestListingWalksAsTheDisk(t *testing.T) {
	ctx := context.Background()
	root := walkTree(t)
	dir := root.Dir()
	write(t, filepath.Join(dir, "src", "deep", "z-last.go"), "package deep\n")
	if err := os.Symlink("../a.go", filepath.Join(dir, "src", "deep", "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(dir, "link-dir")); err != nil {
		t.Fatal(err)
	}
	l, err := root.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	starts := []string{".", "src", "src/deep", "docs", "vendor", "sub"}
	for _, start := range starts {
		disk := visits(t, func(fn workspace.HeldWalkFunc) error { return root.WalkHeld(ctx, start, fn, nil) })
		var listed bool
		held := visits(t, func(fn workspace.HeldWalkFunc) (err error) {
			listed, err = l.WalkHeld(ctx, start, fn)
			return err
		})
		if !listed || !slices.Equal(disk, held) || len(disk) < 2 {
			t.Errorf("from %s: listed %v\n listing %v\n disk    %v", start, listed, held, disk)
		}
	}
	for _, start := range []string{"build", "main.go", "src/gen.go", "nowhere", "link-dir", ".git"} {
		n := 0
		listed, err := l.WalkHeld(ctx, start, func(string, fs.DirEntry, *workspace.Dir) error { n++; return nil })
		if listed || err != nil || n != 0 {
			t.Errorf("from %s, which the listing does not hold as a directory: listed %v, %v, %d visits", start, listed, err, n)
		}
	}
	if listed, isDir := l.Lists("src/deep/link.go"); !listed || isDir {
		t.Errorf("Lists(src/deep/link.go) = %v, %v; want a listed file", listed, isDir)
	}
	if listed, _ := l.Lists("build/out.bin"); listed {
		t.Error("an ignored file is listed")
	}
}

// SkipDir and SkipAll act as on the disk's walk; the context is heard.
func TestListingWalkControl(t *testing.T) {
	ctx := context.Background()
	root := walkTree(t)
	l, err := root.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		fn   func(rel string, d fs.DirEntry) error
	}{
		{"skip src", func(rel string, d fs.DirEntry) error {
			if rel == "src" {
				return fs.SkipDir
			}
			return nil
		}},
		{"skip on a file", func(rel string, d fs.DirEntry) error {
			if rel == "src/a.go" {
				return fs.SkipDir
			}
			return nil
		}},
		{"skip the root", func(rel string, d fs.DirEntry) error {
			if rel == "." {
				return fs.SkipDir
			}
			return nil
		}},
		{"skip all", func(rel string, d fs.DirEntry) error {
			if rel == "src/deep" {
				return fs.SkipAll
			}
			return nil
		}},
	} {
		var disk, held []string
		rec := func(out *[]string) workspace.HeldWalkFunc {
			return func(rel string, d fs.DirEntry, _ *workspace.Dir) error {
				*out = append(*out, rel)
				return c.fn(rel, d)
			}
		}
		if err := root.WalkHeld(ctx, ".", rec(&disk), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := l.WalkHeld(ctx, ".", rec(&held)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(disk, held) {
			t.Errorf("%s:\n listing %q\n disk    %q", c.name, held, disk)
		}
	}
	stop := errors.New("stop")
	if _, err := l.WalkHeld(ctx, ".", func(string, fs.DirEntry, *workspace.Dir) error { return stop }); err != stop {
		t.Errorf("an error from fn: %v, want it returned", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.WalkHeld(cancelled, ".", func(string, fs.DirEntry, *workspace.Dir) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled walk: %v", err)
	}
}

// Refresh takes the stat of changed files again, leaving the Listing it
// was made from as it was; a file that is gone, or no longer a regular
// file, is for a new walk to judge. .git/info/exclude, which a watcher
// does not see, is checked by Current: by its Identity, so that it is
// current only once settled.
func TestListingRefresh(t *testing.T) {
	ctx := context.Background()
	root := walkTree(t)
	dir := root.Dir()
	if l, err := root.List(ctx); err != nil || l.Current(root) {
		t.Fatalf("a Listing made within the racy window of writing .git/info/exclude is current (%v)", err)
	}
	wstest.Settle(workspace.RacyWindow)
	l, err := root.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	info := func(l *workspace.Listing, rel string) (int64, time.Time) {
		var size int64
		var mtime time.Time
		l.WalkHeld(ctx, ".", func(p string, d fs.DirEntry, _ *workspace.Dir) error {
			if p == rel {
				i, _ := d.Info()
				size, mtime = i.Size(), i.ModTime()
			}
			return nil
		})
		return size, mtime
	}
	write(t, filepath.Join(dir, "src", "a.go"), "package src // longer now\n")
	st, err := os.Lstat(filepath.Join(dir, "src", "a.go"))
	if err != nil {
		t.Fatal(err)
	}
	n, ok := l.Refresh(root, []string{"src/a.go"})
	if !ok {
		t.Fatal("Refresh of a changed file refused")
	}
	if size, mtime := info(n, "src/a.go"); size != st.Size() || !mtime.Equal(st.ModTime()) {
		t.Errorf("refreshed: %d bytes at %v, want %d at %v", size, mtime, st.Size(), st.ModTime())
	}
	if size, _ := info(l, "src/a.go"); size != 0 {
		t.Errorf("the Listing Refresh was made from changed: %d bytes", size)
	}
	for name, change := range map[string]func(p string) error{
		"removed":            os.Remove,
		"become a directory": func(p string) error { os.Remove(p); return os.Mkdir(p, 0o755) },
		"become a symlink":   func(p string) error { os.Remove(p); return os.Symlink("b.go", p) },
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, "src", "deep", "b.go")
			write(t, p, "")
			l, err := root.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := change(p); err != nil {
				t.Fatal(err)
			}
			if _, ok := l.Refresh(root, []string{"src/deep/b.go"}); ok {
				t.Error("Refresh vouched for it")
			}
			os.RemoveAll(p)
		})
	}
	if _, ok := l.Refresh(root, []string{"src/new.go"}); ok {
		t.Error("Refresh vouched for a file the Listing never held")
	}
	if !l.Current(root) {
		t.Fatal("a new Listing is not current")
	}
	write(t, filepath.Join(dir, ".git", "info", "exclude"), "secret.env\nmain.go\n")
	if l.Current(root) {
		t.Error("the Listing is still current after .git/info/exclude changed")
	}
}

// A root with a directory it cannot list is not kept as a Listing: its
// permissions may change with no event a watcher hears.
func TestListingRefusesAnUnreadableDirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.go"), "")
	wstest.UnreadableDir(t, dir)
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := root.List(context.Background()); !errors.Is(err, workspace.ErrNotListable) {
		t.Errorf("List: %v, want ErrNotListable", err)
	}
}
