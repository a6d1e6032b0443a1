package hub

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"cchub/lspmux"
	"cchub/workspace"
)

// The disk is the truth: agents change files with their own shell (gofmt,
// go generate, git checkout, sed). A long-lived hub watches the workspace
// from the moment it may start a language server, and tells the running
// servers of every file another process changed (lspmux.DiskChanged).
//
// The parse cache needs nothing from it: it keys trees by the SHA-256 of
// the content its callers read from disk. The code graph stats every file
// on each use (Index.Update) and reads again those whose
// workspace.Identity moved (a rewrite that kept size and mtime, cp -p,
// tar, rsync -t, moved its ctime); the watcher's word is a second witness
// that only withholds trust (Index.Suspect).

// diskWatch is the hub's watcher of the workspace and what it did.
type diskWatch struct {
	mu     sync.Mutex
	w      *workspace.Watcher
	failed bool   // it could not start: open documents are polled
	note   string // why changes may go unnoticed, warned of once (Options.Warn)
	said   bool
	closed bool
	stats  DiskWatchStats
}

// watchOptions tune the hub's watchers (tests bound them).
var watchOptions workspace.WatchOptions

// DiskWatchStats is what the hub's watcher of the workspace has done.
type DiskWatchStats struct {
	Watching bool `json:"watching"`         // a watcher runs
	Dirs     int  `json:"dirs"`             // directories watched
	Events   int  `json:"events"`           // file system events read
	Batches  int  `json:"batches"`          // batches handed to the servers
	Changes  int  `json:"changes"`          // files in them
	Told     int  `json:"told"`             // documents and files the servers were told of
	Same     int  `json:"same"`             // open documents already as on disk (the hub's own writes)
	Polled   int  `json:"polled,omitempty"` // open documents compared with the disk, unwatched
	// Latency is, for the last batch, the time from its first event to
	// the servers being told.
	Latency time.Duration `json:"latency_ns"`
	Note    string        `json:"note,omitempty"`
}

// watchDisk starts the watcher of the workspace, once, for a hub that
// lives longer than one call; it is called when the hub's Mux or code
// graph is made, before any server starts or file is indexed.
func (h *Hub) watchDisk() {
	if h.oneShot {
		return // a single call: its servers start after every change it sees
	}
	d := &h.disk
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.w != nil || d.failed {
		return
	}
	w, err := h.Root.Watch(watchOptions, h.diskChanged)
	if err != nil {
		d.failed = true
		d.note = err.Error() + "; instead, the files the language servers have open are compared with the disk before each diagnostics answer"
		return
	}
	d.w = w
}

// writing marks paths the hub is writing: until their change is handed to
// the servers (afterWrite), the watcher's events for them are the hub's
// own, not another process's; done unmarks them.
func (h *Hub) writing(paths ...string) (done func()) {
	h.own.mu.Lock()
	defer h.own.mu.Unlock()
	if h.own.paths == nil {
		h.own.paths = map[string]int{}
	}
	for _, p := range paths {
		h.own.paths[p]++
	}
	return func() {
		h.own.mu.Lock()
		defer h.own.mu.Unlock()
		for _, p := range paths {
			if h.own.paths[p]--; h.own.paths[p] <= 0 {
				delete(h.own.paths, p)
			}
		}
	}
}

// notOwnWrites is changes without the paths the hub is writing now.
func (h *Hub) notOwnWrites(changes []workspace.Change) []workspace.Change {
	h.own.mu.Lock()
	defer h.own.mu.Unlock()
	if len(h.own.paths) == 0 {
		return changes
	}
	var out []workspace.Change
	for _, c := range changes {
		if h.own.paths[c.Path] == 0 {
			out = append(out, c)
		}
	}
	return out
}

// ownWrites are the paths the hub is writing (writing).
type ownWrites struct {
	mu    sync.Mutex
	paths map[string]int
}

// diskChanged hands a batch of changes made by other processes to the
// running servers; called from the watcher's goroutine.
func (h *Hub) diskChanged(ctx context.Context, b workspace.Batch) {
	h.listChanged(b)
	var rep *lspmux.DiskReport
	var mux *lspmux.Mux
	if h.lspMade.Load() { // h.lsp is set before, never after: read it only then
		mux = h.lsp
	}
	if mux != nil {
		changes := h.notOwnWrites(b.Changes)
		if b.Overflow {
			// Events were lost: every open document is compared with the
			// disk (what is unchanged is not sent).
			for _, rel := range mux.OpenDocuments() {
				changes = append(changes, workspace.Change{Path: rel, Kind: workspace.Changed})
			}
		}
		rep, _ = mux.DiskChanged(ctx, changes) // a server that failed says so at its next use
		if rep != nil && rep.Late != nil {
			// What it caused is news to every conversation, told once
			// with its next answer.
			what := diskChange(changes)
			for _, r := range h.runs.all() {
				r.addDisk(what, rep.Late)
			}
		}
	}
	h.graphMu.Lock()
	graph := h.graph
	h.graphMu.Unlock()
	if graph != nil {
		var rels []string
		for _, c := range b.Changes {
			rels = append(rels, c.Path)
		}
		graph.Suspect(rels)
	}
	d := &h.disk
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stats.Batches++
	d.stats.Events += b.Events
	d.stats.Changes += len(b.Changes)
	if rep != nil {
		d.stats.Told += len(rep.Changed) + len(rep.Closed) + rep.Watched
		d.stats.Same += rep.Same
	}
	d.stats.Latency = time.Since(b.First)
}

// diskChange names changes another process made, for the news of what
// they caused.
func diskChange(changes []workspace.Change) string {
	var names []string
	for _, c := range changes {
		names = append(names, c.Path)
	}
	sort.Strings(names)
	names = slices.Compact(names)
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("%d more", len(names)-3))
	}
	return "changes on disk to " + strings.Join(names, ", ") + ", not made through cchub (another process: a shell command, a formatter, git, another session),"
}

// flushDisk brings the running servers up to date with the disk before an
// answer that reports what they say: the watcher's pending changes are
// handed over, and open documents no watch covers are compared with the
// disk.
func (h *Hub) flushDisk(ctx context.Context) {
	w, failed := h.flushWatcher(ctx)
	if !h.lspMade.Load() || h.lsp == nil || (w == nil && !failed) {
		return
	}
	limited := ""
	if w != nil {
		limited = w.Limited()
	}
	if !failed && limited == "" {
		return
	}
	var changes []workspace.Change
	for _, rel := range h.lsp.OpenDocuments() {
		if w == nil || !w.Covered(rel) {
			changes = append(changes, workspace.Change{Path: rel, Kind: workspace.Changed})
		}
	}
	if len(changes) > 0 {
		_, _ = h.lsp.DiskChanged(ctx, changes)
	}
	d := &h.disk
	d.mu.Lock()
	d.stats.Polled += len(changes)
	if d.note == "" {
		d.note = limited
	}
	note, first := d.note, !d.said
	d.said = true
	d.mu.Unlock()
	if first {
		h.warn(note)
	}
}

// flushWatcher waits until the watcher has handed over every change made
// before it was called (none when no watcher runs), and returns the
// watcher and whether it failed to start.
func (h *Hub) flushWatcher(ctx context.Context) (*workspace.Watcher, bool) {
	d := &h.disk
	d.mu.Lock()
	w, failed := d.w, d.failed
	d.mu.Unlock()
	if w != nil {
		_ = w.Flush(ctx) // only ctx ends it early; the answer then says what it can
	}
	return w, failed
}

// DiskWatch says what the hub's watcher of the workspace has done.
func (h *Hub) DiskWatch() DiskWatchStats {
	d := &h.disk
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.stats
	s.Note = d.note
	if d.w != nil {
		s.Watching = true
		s.Dirs = d.w.Stats().Dirs
		if s.Note == "" {
			s.Note = d.w.Limited()
		}
	}
	return s
}

// stopWatch stops the watcher and waits for its goroutine; no watcher
// starts after it.
func (h *Hub) stopWatch() {
	d := &h.disk
	d.mu.Lock()
	d.closed = true
	w := d.w
	d.mu.Unlock()
	if w != nil {
		w.Close()
	}
}
