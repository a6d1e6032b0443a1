package hub

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"cchub/locate"
	"cchub/outline"
	"cchub/structsearch"
	"cchub/textedit"

	"golang.org/x/sys/unix"
)

// The words only the file outside the root holds.
const outsideWords = "OUTSIDE-ROOT-SECRET"

// TestConfinementHoldsWhileADirectoryIsSwappedForASymlink runs every tool
// on a directory that another goroutine keeps exchanging, atomically, with
// a symlink that leads out of the root (renameat2 RENAME_EXCHANGE, the
// swap a local attacker would make). Checks and opens are one step
// beneath the root's handle, so no tool may ever read, match, edit or
// create anything outside, whatever the timing.
func TestConfinementHoldsWhileADirectoryIsSwappedForASymlink(t *testing.T) {
	base := t.TempDir()
	root, out := filepath.Join(base, "root"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(root, "d"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inside := "package d\n\n// needle inside\nfunc F() int { return 1 }\n"
	outsideSrc := "package d\n\n// needle " + outsideWords + "\nfunc F() int { return 2 }\n"
	if err := os.WriteFile(filepath.Join(root, "d", "f.go"), []byte(inside), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "f.go"), []byte(outsideSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(root, "swap")); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, out)
	h := newTestHub(t, root)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	swaps := 0
	wg.Add(1)
	go func() { // owned by this test: ends with cancel, waited for below
		defer wg.Done()
		d, s := filepath.Join(root, "d"), filepath.Join(root, "swap")
		for ctx.Err() == nil {
			if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, s, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			swaps++
		}
	}()

	iterations := 1500
	if testing.Short() {
		iterations = 200
	}
	leaked := func(tool, text string) {
		if strings.Contains(text, outsideWords) {
			t.Errorf("%s returned text from outside the root:\n%s", tool, text)
		}
	}
	for i := range iterations {
		if res, err := h.Read(ctx, locate.ReadOptions{Path: "d/f.go"}, NewRun()); err == nil {
			leaked("read", res.Text())
		}
		if res, err := h.Grep(ctx, locate.GrepOptions{Pattern: "needle", Path: "d"}); err == nil {
			leaked("grep", res.Text())
		}
		if res, err := h.Grep(ctx, locate.GrepOptions{Pattern: "needle"}); err == nil {
			leaked("grep .", res.Text())
		}
		if res, err := h.Outline(ctx, "d/f.go", outline.Options{Detail: true}); err == nil {
			leaked("outline", res.Text())
		}
		if res, err := h.ReadSymbol(ctx, "d/f.go:F", outline.Budget{}, NewRun()); err == nil {
			leaked("read_symbol", res.Text())
		}
		if i%10 == 0 {
			if res, err := h.Search(ctx, structsearch.Options{Pattern: "func $F() int { return $N }", Lang: "go", Paths: []string{"d"}}); err == nil {
				leaked("search", res.Text(structsearch.TextOptions{}))
			}
		}
		h.Edit(ctx, "d/f.go", textedit.Change{Old: "needle", New: "needle"}, NewRun())
		h.Edit(ctx, "d/f.go", textedit.Change{Old: "return 2", New: "return 3"}, NewRun())
		h.Write(ctx, "d/new.go", "package d\n", textedit.WriteOptions{}, NewRun())
		if i%2 == 0 {
			h.ApplyPatch(ctx, "*** Begin Patch\n*** Add File: d/p.go\n+package d\n*** End Patch", NewRun())
		} else {
			h.ApplyPatch(ctx, "*** Begin Patch\n*** Delete File: d/p.go\n*** End Patch", NewRun())
		}
	}
	cancel()
	wg.Wait()
	if swaps < iterations {
		t.Errorf("only %d swaps in %d iterations: the race was hardly run", swaps, iterations)
	}
	if after := treeOf(t, out); !slices.Equal(before, after) {
		t.Errorf("the directory outside the root changed:\nbefore %q\nafter  %q", before, after)
	}
	t.Logf("%d iterations, %d swaps, no escape", iterations, swaps)
}

// treeOf lists every file under dir with its content.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		data, _ := os.ReadFile(p)
		out = append(out, strings.TrimPrefix(p, dir)+"="+string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWritesNeverLandInGitWhileADirectoryIsSwappedForALinkToIt is the
// same race aimed at .git: d is exchanged, atomically and without pause,
// with a symlink to .git, which holds a file of the same name and bytes
// as d's. Whatever the timing, edit, write and apply_patch either write
// d's own file or are refused: the directory each write opens is checked
// for what it is, after the path's check, so .git never changes.
func TestWritesNeverLandInGitWhileADirectoryIsSwappedForALinkToIt(t *testing.T) {
	root := t.TempDir()
	content := "one\ntwo\nthree\n"
	for _, p := range []string{filepath.Join(root, "d", "f.txt"), filepath.Join(root, ".git", "f.txt"), filepath.Join(root, ".git", "config")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".git", filepath.Join(root, "swap")); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, filepath.Join(root, ".git"))
	h := newTestHub(t, root)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	swaps := 0
	wg.Add(1)
	go func() { // owned by this test: ends with cancel, waited for below
		defer wg.Done()
		d, s := filepath.Join(root, "d"), filepath.Join(root, "swap")
		for ctx.Err() == nil {
			if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, s, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			swaps++
		}
	}()

	iterations := 600
	if testing.Short() {
		iterations = 100
	}
	written := 0
	for i := range iterations {
		r := NewRun()
		h.Read(ctx, locate.ReadOptions{Path: "d/f.txt"}, r)
		if _, err := h.Edit(ctx, "d/f.txt", textedit.Change{Old: "two", New: "TWO"}, r); err == nil {
			written++
		}
		h.Edit(ctx, "d/f.txt", textedit.Change{Old: "TWO", New: "two"}, r)
		h.Write(ctx, "d/config", "[core]\n\tfsmonitor = evil\n", textedit.WriteOptions{}, r)
		h.Write(ctx, "d/hooks/pre-commit", "#!/bin/sh\nevil\n", textedit.WriteOptions{}, r)
		if i%2 == 0 {
			h.ApplyPatch(ctx, "*** Begin Patch\n*** Update File: d/f.txt\n@@\n-three\n+THREE\n*** Add File: d/p.txt\n+x\n*** End Patch", r)
		} else {
			h.ApplyPatch(ctx, "*** Begin Patch\n*** Update File: d/f.txt\n@@\n-THREE\n+three\n*** Delete File: d/p.txt\n*** End Patch", r)
		}
	}
	cancel()
	wg.Wait()
	if swaps < iterations {
		t.Errorf("only %d swaps in %d iterations: the race was hardly run", swaps, iterations)
	}
	if written == 0 {
		t.Errorf("no edit of d/f.txt succeeded in %d iterations: the test only saw refusals", iterations)
	}
	if after := treeOf(t, filepath.Join(root, ".git")); !slices.Equal(before, after) {
		t.Errorf(".git changed:\nbefore %q\nafter  %q", before, after)
	}
	t.Logf("%d iterations, %d swaps, %d edits landed in d, none in .git", iterations, swaps, written)
}
