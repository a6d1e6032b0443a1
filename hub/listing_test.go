package hub

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"cchub/locate"
	"cchub/structsearch"
)

// A long-lived hub's grep walks its Listing, not the disk, for as long
// as its watcher vouches for it, and answers as a grep of the disk would
// through every way the agent's shell changes files: a file appended to
// or saved over (the same Listing, that file stat'ed again), made,
// removed, a directory made, a .gitignore or .git/info/exclude changed
// (walked again).
func TestGrepOverTheListingFollowsTheShell(t *testing.T) {
	patientFlush(t)
	ctx := context.Background()
	h := copyCorpus(t, filepath.Join("..", "testdata", "workspaces", "go"), Options{})
	if _, err := h.indexTokens(ctx); err != nil {
		t.Fatal(err)
	}
	dir := h.Root.Dir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	appendTo := func(rel, content string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(content)
		f.Close()
	}
	walks := func() int {
		h.list.mu.Lock()
		defer h.list.mu.Unlock()
		return h.list.walks
	}
	// check greps through the hub and on the disk, and wants the same
	// answer, with want lines of the shell's marker.
	check := func(step string, want int, walked bool) {
		t.Helper()
		before := walks()
		for _, g := range []locate.GrepOptions{{Pattern: "AddedByTheShell"}, {Pattern: "func "}, {Pattern: "package (main|store)"}} {
			g.Limit = 1000
			got, err := h.Grep(ctx, g)
			if err != nil {
				t.Fatal(err)
			}
			disk, err := locate.Grep(ctx, h.Root, g)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, disk) {
				t.Errorf("%s: grep %s through the hub: %d lines in %d files of %d, on the disk %d in %d of %d", step, g.Pattern, got.Total, got.Files, got.Searched, disk.Total, disk.Files, disk.Searched)
			}
			if g.Pattern == "AddedByTheShell" && got.Total != want {
				t.Errorf("%s: %d lines of the marker, want %d", step, got.Total, want)
			}
		}
		for _, pat := range []string{"AddedByTheShell", "func $F() { $$$ }"} {
			opts := structsearch.Options{Pattern: pat, Lang: "go"}
			got, err := h.Search(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			disk, err := structsearch.Search(ctx, h.Root, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, disk) {
				t.Errorf("%s: search %s through the hub: %d matches in %d files, on the disk %d in %d", step, pat, len(got.Matches), got.Files, len(disk.Matches), disk.Files)
			}
		}
		if w := walks() - before; (w > 0) != walked {
			t.Errorf("%s: the hub walked the disk %d times, want walked=%v", step, w, walked)
		}
		h.list.mu.Lock()
		kept := h.list.l != nil
		h.list.mu.Unlock()
		if !kept {
			t.Errorf("%s: no Listing kept", step)
		}
	}
	check("first", 0, true)
	check("unchanged", 0, false)
	appendTo("store/store.go", "\nvar _ = AddedByTheShell\n")
	check("appended to", 1, false)
	tmp := filepath.Join(dir, "pricing", ".pricing.go.tmp")
	if err := os.WriteFile(tmp, []byte("package pricing\n\nvar AddedByTheShell = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "pricing", "pricing.go")); err != nil {
		t.Fatal(err)
	}
	check("saved over", 2, false)
	// Rewritten with its size and mtime kept (cp -p, rsync -t): its
	// ctime moved, and the watcher knows too.
	main := filepath.Join(dir, "main.go")
	st, err := os.Stat(main)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(main)
	marker := "//AddedByTheShell\n"
	write("main.go", marker+string(old[len(marker):]))
	if err := os.Chtimes(main, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	check("rewritten, stamp kept", 3, false)
	write("extra.go", "package main\n\nfunc AddedByTheShell() {}\n")
	check("made", 4, true)
	os.Remove(filepath.Join(dir, "extra.go"))
	check("removed", 3, true)
	write("newdir/deeper/x.go", "package x // AddedByTheShell\n")
	check("a directory made", 4, true)
	write(".gitignore", "newdir/\n")
	check(".gitignore", 3, true)
	write(".git/info/exclude", "pricing/\n")
	check(".git/info/exclude", 2, true)
	if err := os.RemoveAll(filepath.Join(dir, "store")); err != nil {
		t.Fatal(err)
	}
	check("a directory removed", 1, true)
}

// A watcher that cannot watch every directory cannot vouch for a
// Listing: the hub's grep walks the disk each time, and sees the shell's
// change in a directory no watch covers.
func TestGrepWalksWhenTheWatcherIsBounded(t *testing.T) {
	watchOptions.MaxDirs = 1 // the root only
	t.Cleanup(func() { watchOptions.MaxDirs = 0 })
	ctx := context.Background()
	h := copyCorpus(t, filepath.Join("..", "testdata", "workspaces", "go"), Options{})
	if _, err := h.indexTokens(ctx); err != nil {
		t.Fatal(err)
	}
	grep := func() int {
		r, err := h.Grep(ctx, locate.GrepOptions{Pattern: "AddedByTheShell"})
		if err != nil {
			t.Fatal(err)
		}
		return r.Total
	}
	if n := grep(); n != 0 {
		t.Fatalf("%d lines before the change", n)
	}
	f, err := os.OpenFile(filepath.Join(h.Root.Dir(), "store", "store.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nvar _ = AddedByTheShell\n")
	f.Close()
	if n := grep(); n != 1 {
		t.Errorf("%d lines after the change in an unwatched directory, want 1", n)
	}
	h.list.mu.Lock()
	defer h.list.mu.Unlock()
	if h.list.l != nil || h.list.walks != 0 {
		t.Errorf("a Listing was made (%d walks) though the watcher is bounded", h.list.walks)
	}
}

// Greps running while the shell changes files race with nothing, and
// once the changes stop the hub answers as the disk.
func TestGrepOverTheListingWhileFilesChange(t *testing.T) {
	ctx := context.Background()
	h := copyCorpus(t, filepath.Join("..", "testdata", "workspaces", "go"), Options{})
	if _, err := h.indexTokens(ctx); err != nil {
		t.Fatal(err)
	}
	dir := h.Root.Dir()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 40; i++ {
			rel := filepath.Join(dir, "store", "store.go")
			if i%4 == 3 {
				rel = filepath.Join(dir, "made"+string(rune('a'+i%26))+".go")
			}
			f, err := os.OpenFile(rel, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
			if err != nil {
				t.Error(err)
				return
			}
			f.WriteString("\n// AddedByTheShell\n")
			f.Close()
		}
	}()
	errs := make(chan error, 3)
	for g := 0; g < 3; g++ {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := h.Grep(ctx, locate.GrepOptions{Pattern: "AddedByTheShell"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for g := 0; g < 3; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, err := h.Grep(ctx, locate.GrepOptions{Pattern: "AddedByTheShell", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	disk, err := locate.Grep(ctx, h.Root, locate.GrepOptions{Pattern: "AddedByTheShell", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, disk) || got.Total != 40 {
		t.Errorf("after the changes: the hub %d lines in %d files, the disk %d in %d; want 40", got.Total, got.Files, disk.Total, disk.Files)
	}
}

// patientFlush lets the hub wait for its watcher as long as a loaded
// machine may need, for a test that counts the hub's walks.
func patientFlush(t *testing.T) {
	old := flushWait
	flushWait = time.Minute
	t.Cleanup(func() { flushWait = old })
}

// A watcher too far behind to flush in time (a storm of events) is left
// alone: the grep walks the disk, and sees what the watcher has not yet
// taken in.
func TestGrepWalksWhenTheWatcherIsBehind(t *testing.T) {
	ctx := context.Background()
	h := copyCorpus(t, filepath.Join("..", "testdata", "workspaces", "go"), Options{})
	if _, err := h.indexTokens(ctx); err != nil {
		t.Fatal(err)
	}
	patientFlush(t)
	if r, err := h.Grep(ctx, locate.GrepOptions{Pattern: "AddedByTheShell"}); err != nil || r.Total != 0 {
		t.Fatalf("before: %v, %v", r, err)
	}
	flushWait = time.Nanosecond // no flush is that quick
	f, err := os.OpenFile(filepath.Join(h.Root.Dir(), "store", "store.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nvar _ = AddedByTheShell\n")
	f.Close()
	for i := 0; i < 3; i++ {
		r, err := h.Grep(ctx, locate.GrepOptions{Pattern: "AddedByTheShell"})
		if err != nil || r.Total != 1 {
			t.Fatalf("grep %d, the watcher behind: %d lines (%v), want 1", i, r.Total, err)
		}
	}
	h.list.mu.Lock()
	defer h.list.mu.Unlock()
	if h.list.behind.IsZero() {
		t.Error("the hub did not note its watcher as behind")
	}
}
