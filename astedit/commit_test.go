package astedit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cchub/store"
	"cchub/workspace"
)

// openWS opens a workspace at dir and its store.
func openWS(t *testing.T, dir string) (*workspace.Root, *store.Store) {
	t.Helper()
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), root)
	if err != nil {
		root.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(); root.Close() })
	return root, st
}

// tree writes n small files and returns their paths and contents.
func tree(t *testing.T, dir string, n int) ([]string, map[string][]byte) {
	t.Helper()
	var paths []string
	old := map[string][]byte{}
	for i := range n {
		rel := fmt.Sprintf("pkg%d/file%03d.go", i%7, i)
		data := []byte(fmt.Sprintf("package pkg%d\n\nfunc F%d() int {\n\treturn %d\n}\n", i%7, i, i))
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, rel)
		old[rel] = data
	}
	return paths, old
}

// changeAll is a change that rewrites every file of old.
func changeAll(paths []string, old map[string][]byte) (*Change, map[string][]byte) {
	c := &Change{Kind: "rewrite", Title: "test"}
	nw := map[string][]byte{}
	for _, p := range paths {
		n := []byte(strings.Replace(string(old[p]), "return ", "return 1 + ", 1))
		nw[p] = n
		c.Files = append(c.Files, FileEdit{Path: p, Old: old[p], New: n})
		c.Locations = append(c.Locations, Location{Path: p, Line: 4})
	}
	return c, nw
}

func readAll(t *testing.T, dir string, paths []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		out[p] = data
	}
	return out
}

// A change is applied whole, keeps file modes, and is no longer staged.
func TestCommitWritesAllAndKeepsModes(t *testing.T) {
	dir := t.TempDir()
	paths, old := tree(t, dir, 12)
	if err := os.Chmod(filepath.Join(dir, paths[3]), 0o755); err != nil {
		t.Fatal(err)
	}
	root, st := openWS(t, dir)
	ctx := context.Background()
	c, nw := changeAll(paths, old)
	// One file is new, one deleted.
	c.Files = append(c.Files, FileEdit{Path: "newdir/added.go", New: []byte("package newdir\n")})
	c.Files[0].New = nil
	delete(nw, paths[0])
	s, err := Stage(ctx, st, c)
	if err != nil {
		t.Fatal(err)
	}
	if s.Matches != 12 || len(s.Files) != 13 || s.Files[0].Path != "newdir/added.go" || s.Files[0].Status != "added" || s.Files[1].Status != "deleted" || !strings.Contains(s.Files[2].Diff, "+\treturn 1 + ") {
		t.Fatalf("staged: %+v", s)
	}
	if got := readAll(t, dir, paths[1:]); string(got[paths[1]]) != string(old[paths[1]]) {
		t.Fatal("staging wrote a file")
	}
	done, err := Commit(ctx, root, st, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Files) != 13 || len(done.Written) != 13 {
		t.Fatalf("committed %d files, %d written", len(done.Files), len(done.Written))
	}
	// What it wrote, for the language servers: each file as it checked
	// it and as it left it, in the order of Files.
	for i, w := range done.Written {
		f := done.Files[i]
		wantOld, wantNew := old[f.Path], nw[f.Path]
		if f.Path == "newdir/added.go" {
			wantNew = []byte("package newdir\n")
		}
		if w.Path != f.Path || string(w.Old) != string(wantOld) || string(w.New) != string(wantNew) || (w.New == nil) != (f.Status == "deleted") {
			t.Errorf("written %d: {%s, %q, %q}, want {%s, %q, %q}", i, w.Path, w.Old, w.New, f.Path, wantOld, wantNew)
		}
	}
	got := readAll(t, dir, paths[1:])
	for p, want := range nw {
		if string(got[p]) != string(want) {
			t.Errorf("%s = %q, want %q", p, got[p], want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, paths[0])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deleted file still there: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "newdir/added.go")); string(data) != "package newdir\n" {
		t.Errorf("added file = %q", data)
	}
	if fi, _ := os.Stat(filepath.Join(dir, paths[3])); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Join(dir, paths[4])); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	assertNoTemps(t, dir)
	if Pending(root) {
		t.Error("the journal's marker is left after a commit")
	}
	if _, err := Load(ctx, st, s.ID); !errors.Is(err, store.ErrNoStaged) {
		t.Errorf("committed change still staged: %v", err)
	}
	if _, err := Commit(ctx, root, st, s.ID); !errors.Is(err, store.ErrNoStaged) || !strings.Contains(err.Error(), "nothing is staged now") {
		t.Errorf("second commit: %v", err)
	}
}

// One file of forty changed since staging: nothing is written, the error
// names that file, and the change stays staged.
func TestDriftInOneFileRejectsAll(t *testing.T) {
	dir := t.TempDir()
	paths, old := tree(t, dir, 40)
	root, st := openWS(t, dir)
	ctx := context.Background()
	c, _ := changeAll(paths, old)
	s, err := Stage(ctx, st, c)
	if err != nil {
		t.Fatal(err)
	}
	edited := append([]byte{}, old[paths[17]]...)
	edited = append(edited, "// hand edit\n"...)
	if err := os.WriteFile(filepath.Join(dir, paths[17]), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, paths[30])); err != nil {
		t.Fatal(err)
	}
	_, err = Commit(ctx, root, st, s.ID)
	var drift *DriftError
	// Named in path order: pkg2/file030.go, pkg3/file017.go.
	if !errors.As(err, &drift) || len(drift.Files) != 2 || drift.Files[0] != paths[30]+" (deleted)" || drift.Files[1] != paths[17] {
		t.Fatalf("commit after drift: %v", err)
	}
	if !strings.Contains(err.Error(), "stage it again") || !strings.Contains(err.Error(), "cchub discard "+s.ID) {
		t.Errorf("drift error does not say what to do: %v", err)
	}
	got := readAll(t, dir, append(paths[:30:30], paths[31:]...))
	for p, data := range got {
		want := old[p]
		if p == paths[17] {
			want = edited
		}
		if string(data) != string(want) {
			t.Errorf("%s was written: %q", p, data)
		}
	}
	assertNoTemps(t, dir)
	if _, err := Load(ctx, st, s.ID); err != nil {
		t.Errorf("rejected change is no longer staged: %v", err)
	}
	if err := Discard(ctx, st, s.ID); err != nil {
		t.Fatal(err)
	}
	if err := Discard(ctx, st, s.ID); !errors.Is(err, store.ErrNoStaged) {
		t.Errorf("second discard: %v", err)
	}
}

// Two changes of the same files committed at once: one lands whole, the
// other is refused whole (its files drifted), never a mix.
func TestConcurrentCommits(t *testing.T) {
	dir := t.TempDir()
	paths, old := tree(t, dir, 30)
	root, st := openWS(t, dir)
	ctx := context.Background()
	a, nwA := changeAll(paths, old)
	b := &Change{Kind: "rewrite", Title: "b"}
	nwB := map[string][]byte{}
	for _, p := range paths {
		n := append(append([]byte{}, old[p]...), "// b\n"...)
		nwB[p] = n
		b.Files = append(b.Files, FileEdit{Path: p, Old: old[p], New: n})
	}
	sa, err := Stage(ctx, st, a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Stage(ctx, st, b)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, id := range []string{sa.ID, sb.ID} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Commit(ctx, root, st, id)
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("both or neither landed: %v / %v", errs[0], errs[1])
	}
	want := nwA
	if errs[0] != nil {
		want = nwB
		if !errors.Is(errs[0], ErrDrift) {
			t.Errorf("loser's error: %v", errs[0])
		}
	} else if !errors.Is(errs[1], ErrDrift) {
		t.Errorf("loser's error: %v", errs[1])
	}
	for p, data := range readAll(t, dir, paths) {
		if string(data) != string(want[p]) {
			t.Fatalf("%s is %q: a mix of two changes", p, data)
		}
	}
	list, err := List(ctx, st)
	if err != nil || len(list) != 1 {
		t.Fatalf("staged after: %v, %v", list, err)
	}
}

// A commit that cannot write one file (its directory is read-only) puts
// nothing in place and leaves the change staged.
func TestCommitFailureWritesNothing(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root writes into read-only directories")
	}
	dir := t.TempDir()
	paths, old := tree(t, dir, 10)
	root, st := openWS(t, dir)
	ctx := context.Background()
	c, _ := changeAll(paths, old)
	s, err := Stage(ctx, st, c)
	if err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, filepath.Dir(paths[9]))
	os.Chmod(ro, 0o555)
	defer os.Chmod(ro, 0o755)
	if _, err := Commit(ctx, root, st, s.ID); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("commit into a read-only directory: %v", err)
	}
	for p, data := range readAll(t, dir, paths) {
		if string(data) != string(old[p]) {
			t.Errorf("%s written", p)
		}
	}
	assertNoTemps(t, dir)
	if _, err := Load(ctx, st, s.ID); err != nil {
		t.Errorf("change not staged after a failed commit: %v", err)
	}
}

// assertNoTemps fails if a commit's temporary file is left in dir.
func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".cchub-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// Many changes staged, listed, discarded and committed at once: each
// gets its own id, none is lost or half-seen, and the files end as the
// one committed change made them.
func TestConcurrentStageAndResolve(t *testing.T) {
	dir := t.TempDir()
	paths, old := tree(t, dir, 8)
	root, st := openWS(t, dir)
	ctx := context.Background()
	const n = 12
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, _ := changeAll(paths, old)
			c.Title = fmt.Sprintf("change %d", i)
			s, err := Stage(ctx, st, c)
			if err != nil {
				errs <- err
				return
			}
			ids[i] = s.ID
			if _, err := List(ctx, st); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	list, err := List(ctx, st)
	if err != nil || len(list) != n {
		t.Fatalf("%d staged, want %d (%v)", len(list), n, err)
	}
	seen := map[string]bool{}
	for _, s := range list {
		if seen[s.ID] || len(s.Files) != len(paths) {
			t.Fatalf("duplicate id or missing files: %+v", s)
		}
		seen[s.ID] = true
	}
	// Half discarded while the other half race to commit: one commit wins,
	// the rest find their files drifted.
	results := make(chan error, n)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				results <- Discard(ctx, st, id)
				return
			}
			_, err := Commit(ctx, root, st, id)
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	committed := 0
	for err := range results {
		switch {
		case err == nil:
			committed++
		case !errors.Is(err, ErrDrift):
			t.Errorf("unexpected: %v", err)
		}
	}
	if committed != n/2+1 {
		// n/2 discards succeed, exactly one commit does.
		t.Errorf("%d successes, want %d", committed, n/2+1)
	}
	_, nw := changeAll(paths, old)
	for p, data := range readAll(t, dir, paths) {
		if string(data) != string(nw[p]) {
			t.Errorf("%s = %q", p, data)
		}
	}
	if list, _ := List(ctx, st); len(list) != n/2-1 {
		t.Errorf("%d still staged, want the %d drifted ones", len(list), n/2-1)
	}
}
