package workspace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cchub/workspace"
)

// recorder keeps what a Watcher hands over.
type recorder struct {
	mu      sync.Mutex
	batches []workspace.Batch
}

func (r *recorder) deliver(_ context.Context, b workspace.Batch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, b)
}

// take returns the changes handed over since the last take, by path, and
// how many batches carried them.
func (r *recorder) take() (map[string]workspace.ChangeKind, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := map[string]workspace.ChangeKind{}
	for _, b := range r.batches {
		for _, c := range b.Changes {
			got[c.Path] = c.Kind
		}
	}
	n := len(r.batches)
	r.batches = nil
	return got, n
}

func startWatch(t *testing.T, dir string, o workspace.WatchOptions) (*workspace.Root, *workspace.Watcher, *recorder) {
	t.Helper()
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	w, err := root.Watch(o, rec.deliver)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); root.Close() })
	flush(t, w)
	return root, w, rec
}

func flush(t *testing.T, w *workspace.Watcher) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func put(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Changes, creations and deletions by another process are handed over
// after Flush, each once; what the walk skips (.git, the state directory,
// ignored files and directories) and a temporary file made and removed
// within the burst are not.
func TestWatchReportsChangesTheWalkWouldSee(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, ".gitignore", "*.log\nbuild/\n")
	put(t, dir, "a.go", "package a\n")
	put(t, dir, "gone.go", "package a\n")
	put(t, dir, "sub/b.go", "package sub\n")
	put(t, dir, "build/x.go", "")
	put(t, dir, ".git/HEAD", "ref: refs/heads/main\n")
	_, w, rec := startWatch(t, dir, workspace.WatchOptions{})

	put(t, dir, "a.go", "package a\n\nfunc F() {}\n")
	put(t, dir, "a.go", "package a\n\nfunc G() {}\n")
	put(t, dir, "sub/b.go", "package sub // changed\n")
	put(t, dir, "new.go", "package a\n")
	os.Remove(filepath.Join(dir, "gone.go"))
	put(t, dir, "tmp.go", "")
	os.Remove(filepath.Join(dir, "tmp.go"))
	put(t, dir, "app.log", "ignored")
	put(t, dir, "build/x.go", "ignored")
	put(t, dir, ".git/HEAD", "ref: refs/heads/other\n")
	put(t, dir, ".cchub/x", "state")
	flush(t, w)

	got, _ := rec.take()
	want := map[string]workspace.ChangeKind{
		"a.go": workspace.Changed, "sub/b.go": workspace.Changed,
		"new.go": workspace.Created, "gone.go": workspace.Deleted,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("changes handed over:\n got %v\nwant %v", got, want)
	}
}

// A directory made after the start is watched: a file changed in it later
// is noticed, and the files made in it before its watch are reported.
func TestWatchWatchesNewDirectories(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "a.go", "package a\n")
	_, w, rec := startWatch(t, dir, workspace.WatchOptions{})
	before := w.Stats().Dirs

	put(t, dir, "new/deep/c.go", "package deep\n")
	flush(t, w)
	got, _ := rec.take()
	if got["new/deep/c.go"] != workspace.Created {
		t.Fatalf("a file made with its directories: %v", got)
	}
	if !w.Covered("new/deep/c.go") || w.Stats().Dirs != before+2 {
		t.Fatalf("new directories not watched: covered=%v dirs %d → %d", w.Covered("new/deep/c.go"), before, w.Stats().Dirs)
	}
	put(t, dir, "new/deep/c.go", "package deep // later\n")
	flush(t, w)
	if got, _ := rec.take(); got["new/deep/c.go"] != workspace.Changed {
		t.Fatalf("a later change in a new directory: %v", got)
	}
	// Removed, it is reported and no longer counted as watched.
	os.RemoveAll(filepath.Join(dir, "new"))
	flush(t, w)
	if got, _ := rec.take(); got["new"] != workspace.Deleted || got["new/deep"] != workspace.Deleted {
		t.Fatalf("a removed directory: %v", got)
	}
	if w.Covered("new/deep/c.go") || w.Stats().Dirs != before {
		t.Fatalf("a removed directory is still counted: dirs %d, want %d", w.Stats().Dirs, before)
	}
}

// A burst of many files is coalesced into few batches, each file once.
func TestWatchCoalescesABurst(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		put(t, dir, fmt.Sprintf("p%d/f%d.go", i%10, i), "package p\n")
	}
	_, w, rec := startWatch(t, dir, workspace.WatchOptions{})
	for i := range 300 {
		put(t, dir, fmt.Sprintf("p%d/f%d.go", i%10, i), "package p // v2\n")
	}
	flush(t, w)
	got, batches := rec.take()
	st := w.Stats()
	t.Logf("%d events → %d batch(es), %d files", st.Events, batches, len(got))
	if len(got) != 300 {
		t.Fatalf("%d files handed over, want 300", len(got))
	}
	// The writes go as fast as the disk: a pause of the quiet time
	// (75 ms) between two of them is the only way to a second batch.
	if batches > 3 {
		t.Fatalf("a burst of 300 writes came in %d batches", batches)
	}
}

// Past the bound on directories, the rest are not watched, Limited says
// so, and Covered tells which files are not noticed.
func TestWatchBoundsItsWatches(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b", "c", "d"} {
		put(t, dir, d+"/x.go", "")
	}
	_, w, _ := startWatch(t, dir, workspace.WatchOptions{MaxDirs: 3})
	if w.Stats().Dirs != 3 || !strings.Contains(w.Limited(), "more than 3 directories") {
		t.Fatalf("dirs %d, limited %q", w.Stats().Dirs, w.Limited())
	}
	var uncovered []string
	for _, d := range []string{".", "a", "b", "c", "d"} {
		if !w.Covered(d + "/x.go") {
			uncovered = append(uncovered, d)
		}
	}
	if !slices.Equal(uncovered, []string{"c", "d"}) {
		t.Fatalf("uncovered %v, want [c d] (the walk's order)", uncovered)
	}
}

// Close ends every goroutine the Watcher started, a delivery under way
// included, and Flush after Close returns at once.
func TestWatchCloseLeavesNoGoroutine(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "a.go", "")
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	before := runtime.NumGoroutine()
	blocked := make(chan struct{})
	w, err := root.Watch(workspace.WatchOptions{}, func(ctx context.Context, b workspace.Batch) {
		close(blocked)
		<-ctx.Done() // a delivery that waits on its context
	})
	if err != nil {
		t.Fatal(err)
	}
	flush(t, w) // watching
	put(t, dir, "a.go", "x")
	<-blocked
	w.Close()
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // exiting goroutines are counted until they are gone
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
