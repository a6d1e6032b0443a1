package hub

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"cchub/locate"
	"cchub/outline"
	"cchub/textedit"
)

const (
	watchCallee1 = "package m\n\nfunc F(x int) int { return x }\n"
	watchCallee2 = "package m\n\nfunc F(x, y int) int { return x + y }\n"
	watchCaller  = "package m\n\nvar V = F(1)\n"
)

// watchModule is a Go module whose b.go calls F of a.go, with 250 more
// files in gen/, committed twice: "one" (F takes one argument) and "two"
// (F takes two, every gen/ file changed); "one" is checked out.
func watchModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	put := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("go.mod", "module m\n\ngo 1.22\n")
	put("b.go", watchCaller)
	for _, v := range []int{2, 1} {
		if v == 2 {
			put("a.go", watchCallee2)
		} else {
			put("a.go", watchCallee1)
		}
		for i := range 250 {
			put(fmt.Sprintf("gen/g%03d.go", i), fmt.Sprintf("package gen\n\nconst C%03d = %d\n", i, v))
		}
		if v == 2 {
			gitIn(t, dir, "init", "-q", "-b", "two")
		}
		gitIn(t, dir, "add", "-A")
		gitIn(t, dir, "commit", "-q", "-m", fmt.Sprint(v))
		if v == 2 {
			gitIn(t, dir, "checkout", "-q", "-b", "one")
		}
	}
	return dir
}

// errorsIn is the errors the hub's diagnostics call reports for rel.
func errorsIn(t *testing.T, h *Hub, rel string) []string {
	t.Helper()
	res, err := h.Diagnostics(context.Background(), nil, []string{rel})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, d := range res.Diagnostics {
		if d.Severity == "error" {
			msgs = append(msgs, d.Message)
		}
	}
	if len(res.Notes) > 0 {
		t.Logf("notes: %v", res.Notes)
	}
	return msgs
}

// Files other processes change reach gopls: a callee changed on disk
// breaks its caller in the next diagnostics call, the undo clears it, a
// git checkout of 250+ files is coalesced into few batches and leaves the
// right state, and the hub's own edit is not sent back as an outside
// change.
func TestOutsideChangesReachTheServers(t *testing.T) {
	requireGopls(t)
	ws := watchModule(t)
	goroutines := runtime.NumGoroutine()
	h, err := Open(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			h.Close()
		}
	}()
	if errs := errorsIn(t, h, "b.go"); len(errs) != 0 {
		t.Fatalf("b.go at the start: %v", errs)
	}
	if st := h.DiskWatch(); !st.Watching || st.Dirs != 2 {
		t.Fatalf("the hub does not watch its workspace (root and gen/): %+v", st)
	}

	// (2)-(3) Another process gives F a second parameter.
	changed := time.Now()
	if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte(watchCallee2), 0o644); err != nil {
		t.Fatal(err)
	}
	// Left alone, the watcher hands the change over after its quiet time.
	for h.DiskWatch().Batches == 0 && time.Since(changed) < time.Minute {
		time.Sleep(2 * time.Millisecond)
	}
	t.Logf("disk change → server told: %v (the batch's own latency %v)", time.Since(changed), h.DiskWatch().Latency)
	if errs := errorsIn(t, h, "b.go"); len(errs) != 1 || !strings.Contains(errs[0], "not enough arguments") {
		t.Fatalf("b.go after a.go changed on disk: %v", errs)
	}
	// (4) Undone on disk, with sed, and asked at once: Diagnostics
	// flushes the watcher, whatever its timer says.
	if out, err := exec.Command("sed", "-i", "s/func F(x, y int) int { return x + y }/func F(x int) int { return x }/", filepath.Join(ws, "a.go")).CombinedOutput(); err != nil {
		t.Fatalf("sed: %v\n%s", err, out)
	}
	if errs := errorsIn(t, h, "b.go"); len(errs) != 0 {
		t.Fatalf("b.go after the undo on disk: %v", errs)
	}

	// (5) A checkout of 251 files. sed's temporary file may still be on
	// its way from the kernel: the watcher is let go quiet first, so that
	// the batches counted are the checkout's alone.
	for last, quietSince := h.DiskWatch(), time.Now(); time.Since(quietSince) < 300*time.Millisecond && time.Since(changed) < time.Minute; time.Sleep(20 * time.Millisecond) {
		if now := h.DiskWatch(); now.Events != last.Events || now.Changes != last.Changes {
			last, quietSince = now, time.Now()
		}
	}
	before := h.DiskWatch()
	gitIn(t, ws, "checkout", "-q", "two")
	if errs := errorsIn(t, h, "b.go"); len(errs) != 1 || !strings.Contains(errs[0], "not enough arguments") {
		t.Fatalf("b.go after checking out two: %v", errs)
	}
	after := h.DiskWatch()
	batches, events, files := after.Batches-before.Batches, after.Events-before.Events, after.Changes-before.Changes
	t.Logf("git checkout of 251 files: %d events → %d batch(es) of %d files; told %d", events, batches, files, after.Told-before.Told)
	if files != 251 || batches > 5 {
		t.Fatalf("git checkout: %d files in %d batches, want 251 in a few", files, batches)
	}
	gitIn(t, ws, "checkout", "-q", "one")
	if errs := errorsIn(t, h, "b.go"); len(errs) != 0 {
		t.Fatalf("b.go after checking out one again: %v", errs)
	}

	// (6) The hub's own edit: gopls is told by the edit; the watcher's
	// event for it is the hub's own (dropped while the write is in
	// flight, or found as gopls holds it) and tells nothing.
	r := NewRun()
	if _, err := h.Read(context.Background(), locate.ReadOptions{Path: "a.go"}, r); err != nil {
		t.Fatal(err)
	}
	before = h.DiskWatch()
	if _, err := h.Edit(context.Background(), "a.go", textedit.Change{Old: "func F(x int) int { return x }", New: "func F(x, y int) int { return x + y }"}, r); err != nil {
		t.Fatal(err)
	}
	if errs := errorsIn(t, h, "b.go"); len(errs) != 1 {
		t.Fatalf("b.go after the hub's own edit: %v", errs)
	}
	after = h.DiskWatch()
	if after.Told != before.Told {
		t.Fatalf("the hub's own edit was told as an outside change: before %+v, after %+v", before, after)
	}

	// A directory made now is watched.
	if err := os.MkdirAll(filepath.Join(ws, "later", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	errorsIn(t, h, "b.go")
	if st := h.DiskWatch(); st.Dirs != 4 {
		t.Fatalf("directories made after the start are not watched: %+v", st)
	}

	// Close stops the watcher, the servers and every goroutine.
	h.Close()
	closed = true
	deadline := time.Now().Add(20 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after Close, %d before Open:\n%s", n, goroutines, buf[:runtime.Stack(buf, true)])
	}
}

// A one-shot hub (a CLI command) watches nothing.
func TestOneShotHubWatchesNothing(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	h, err := Open(ws, Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Diagnostics(context.Background(), nil, []string{"pricing/pricing.go"}); err != nil {
		t.Fatal(err)
	}
	if st := h.DiskWatch(); st.Watching {
		t.Fatalf("a one-shot hub watches: %+v", st)
	}
}

// The parse cache and the code graph never serve a file's old content
// after another process rewrote it, even with its size and mtime kept.
func TestViewsFollowTheDisk(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "a.go")
	if err := os.WriteFile(p, []byte("package a\n\nfunc Alpha() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	os.Chtimes(p, old, old)
	h, err := Open(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	symbols := func(name string) int {
		t.Helper()
		res, err := h.Graph(ctx, GraphQuery{Op: "symbols", Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Definitions)
	}
	outline := func() string {
		t.Helper()
		res, err := h.Outline(ctx, "a.go", outline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Text()
	}
	if symbols("Alpha") != 1 || !strings.Contains(outline(), "Alpha") {
		t.Fatal("Alpha is not found at the start")
	}
	// Same size, same mtime: as cp -p, tar or rsync -t leave a file.
	if err := os.WriteFile(p, []byte("package a\n\nfunc Omega() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, old, old)
	if n := symbols("Omega"); n != 1 || symbols("Alpha") != 0 {
		t.Fatalf("the graph after a.go was rewritten: Omega %d, Alpha %d", n, symbols("Alpha"))
	}
	if text := outline(); !strings.Contains(text, "Omega") || strings.Contains(text, "Alpha") {
		t.Fatalf("the outline after a.go was rewritten:\n%s", text)
	}
}

// Past the bound on watched directories, the documents the servers have
// open in unwatched ones are compared with the disk before a diagnostics
// answer, and the limit is said.
func TestUnwatchedOpenDocumentsArePolled(t *testing.T) {
	requireGopls(t)
	watchOptions.MaxDirs = 1 // the root only
	t.Cleanup(func() { watchOptions.MaxDirs = 0 })
	ws := t.TempDir()
	for rel, text := range map[string]string{
		"go.mod":  "module m\n\ngo 1.22\n",
		"p/a.go":  "package p\n\nfunc F(x int) int { return x }\n",
		"main.go": "package m\n\nimport \"m/p\"\n\nvar V = p.F(1)\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := newTestHub(t, ws)
	if errs := errorsIn(t, h, "p/a.go"); len(errs) != 0 { // now open
		t.Fatalf("p/a.go at the start: %v", errs)
	}
	if errs := errorsIn(t, h, "main.go"); len(errs) != 0 {
		t.Fatalf("main.go at the start: %v", errs)
	}
	if err := os.WriteFile(filepath.Join(ws, "p/a.go"), []byte("package p\n\nfunc F(x, y int) int { return x + y }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if errs := errorsIn(t, h, "main.go"); len(errs) != 1 || !strings.Contains(errs[0], "not enough arguments") {
		t.Fatalf("main.go after p/a.go changed in an unwatched directory: %v", errs)
	}
	st := h.DiskWatch()
	if st.Dirs != 1 || st.Polled == 0 || !strings.Contains(st.Note, "more than 1 directories") {
		t.Fatalf("the limit was not said or open documents not polled: %+v", st)
	}
}

// What another process changed on disk is news to every conversation,
// unasked: it leads the next answer of any tool, attributed to the change
// on disk, once; the next edit does not take it for its own doing, and a
// change of the hub's own is not told as one on disk.
func TestOutsideChangesAreToldUnasked(t *testing.T) {
	requireGopls(t)
	ws := watchModule(t)
	h, err := Open(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	r, other := h.OpenRun(), h.OpenRun()
	defer h.EndRun(r)
	defer h.EndRun(other)
	// The conversation edits b.go: gopls runs, settled.
	w, err := h.Write(ctx, "b.go", "// Package m calls F.\n"+watchCaller, textedit.WriteOptions{}, r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.Text(), "new error") {
		t.Fatalf("a comment caused an error:\n%s", w.Text())
	}
	if news := h.LateNews(ctx, r); news != "" {
		t.Fatalf("news before anything changed on disk:\n%s", news)
	}
	// The agent's shell gives F a second parameter: b.go's call breaks.
	if out, err := exec.Command("sed", "-i", "s/func F(x int) int { return x }/func F(x, y int) int { return x + y }/", filepath.Join(ws, "a.go")).CombinedOutput(); err != nil {
		t.Fatalf("sed: %v\n%s", err, out)
	}
	news := h.LateNews(ctx, r)
	if !strings.Contains(news, "changes on disk to a.go, not made through cchub") || !strings.Contains(news, "1 new error in b.go") || !strings.Contains(news, "not enough arguments") {
		t.Fatalf("the next answer does not lead with what the change on disk caused:\n%q", news)
	}
	if again := h.LateNews(ctx, r); again != "" {
		t.Fatalf("told twice:\n%s", again)
	}
	if o := h.LateNews(ctx, other); !strings.Contains(o, "1 new error in b.go") {
		t.Fatalf("the other conversation was not told:\n%q", o)
	}
	// The next edit does not take the broken call for its doing.
	w, err = h.Write(ctx, "b.go", "// Package m calls F, twice.\n"+watchCaller, textedit.WriteOptions{}, r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.Text(), "new error") {
		t.Fatalf("the edit took what the change on disk caused for its own:\n%s", w.Text())
	}
	// Undone on disk: what went away is told, attributed too.
	if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte(watchCallee1), 0o644); err != nil {
		t.Fatal(err)
	}
	if news := h.LateNews(ctx, r); !strings.Contains(news, "changes on disk to a.go") || !strings.Contains(news, "gone: error") {
		t.Fatalf("the fix on disk is not told:\n%q", news)
	}
	// The hub's own edit is its answer's news, not a change on disk.
	if _, err := h.Edit(ctx, "a.go", textedit.Change{Old: "func F(x int) int { return x }", New: "func F(x, y int) int { return x + y }"}, r); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the watcher's event for the edit comes and goes
	if news := h.LateNews(ctx, r); strings.Contains(news, "changes on disk") {
		t.Fatalf("the hub's own edit was told as a change on disk:\n%s", news)
	}
}
