package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"cchub/proc"
)

// ChangeKind is what happened to a file, as the Language Server Protocol
// says it (FileChangeType).
type ChangeKind string

// The kinds of change.
const (
	Created ChangeKind = "created"
	Changed ChangeKind = "changed"
	Deleted ChangeKind = "deleted"
)

// Change is one file (or, deleted, a directory) that another process
// changed.
type Change struct {
	Path string     `json:"path"` // relative to the root, slash-separated
	Kind ChangeKind `json:"kind"`
}

// Batch is what a Watcher hands over at once: every path changed in one
// burst, each once, in path order.
type Batch struct {
	Changes []Change
	// Events counts the file system events the batch coalesces.
	Events int
	// First is when the first of them was read.
	First time.Time
	// Overflow says the kernel dropped events: any file may have changed
	// without being listed.
	Overflow bool
}

// WatchOptions tune a Watcher; the zero value takes the defaults.
type WatchOptions struct {
	// MaxDirs bounds the directories watched (default DefaultMaxWatchDirs,
	// and at most a quarter of the per-user inotify limit, which every
	// program of the user shares). Past it, Limited says so and Covered
	// says which files are not watched.
	MaxDirs int
	// Quiet is how long no event must come for a burst to be handed over
	// (default 75 ms); MaxDelay bounds how long a burst that never goes
	// quiet is held (default 1 s).
	Quiet, MaxDelay time.Duration
}

// DefaultMaxWatchDirs is the default bound on watched directories.
const DefaultMaxWatchDirs = 8192

// WatchStats is what a Watcher has done so far.
type WatchStats struct {
	Dirs    int // directories watched now
	Events  int // events read, over all batches
	Batches int // batches handed over
}

// Watcher notices files that change in the workspace, whoever changes
// them, and hands them over in batches: fsnotify (inotify on Linux) is
// not recursive, so every directory the workspace's walk visits (.git,
// the state directory and what .gitignore ignores are not) is watched,
// and directories made later are watched when they appear.
//
// Its goroutine is its own; Close ends it and waits for it.
type Watcher struct {
	root     *Root
	fw       *fsnotify.Watcher
	opts     WatchOptions
	deliver  func(context.Context, Batch)
	ctx      context.Context
	cancel   context.CancelFunc
	sentinel string        // a private directory outside the workspace, for Flush
	done     chan struct{} // closed when the loop has ended
	once     sync.Once

	mu      sync.Mutex
	dirs    map[string]bool // watched, relative to the root
	limited string          // why not every directory is watched, or ""
	seq     uint64          // flushes asked for
	waiters map[uint64]chan struct{}
	stats   WatchStats
	closed  bool
}

// Watch starts watching the workspace; deliver is called with each batch,
// one at a time, from the Watcher's goroutine, with a context that ends
// at Close. The directories are listed and watched in the background;
// Flush waits for that too.
func (r *Root) Watch(opts WatchOptions, deliver func(context.Context, Batch)) (*Watcher, error) {
	if opts.MaxDirs <= 0 {
		opts.MaxDirs = DefaultMaxWatchDirs
	}
	if userMax := maxUserWatches(); userMax > 0 && opts.MaxDirs > userMax/4 {
		opts.MaxDirs = max(userMax/4, 1)
	}
	if opts.Quiet <= 0 {
		opts.Quiet = 75 * time.Millisecond
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = time.Second
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("workspace: cannot watch files (%w); raise fs.inotify.max_user_instances, or stop other programs that watch files", err)
	}
	// The sentinel lies in this process's run directory, which a later
	// cchub sweeps if this one is killed before Close removes it.
	sentinel, err := "", error(nil)
	if run, rerr := proc.RunDir(); rerr != nil {
		err = rerr
	} else {
		sentinel, err = os.MkdirTemp(run, "watch-")
	}
	if err == nil {
		err = fw.Add(sentinel)
	}
	if err != nil {
		fw.Close()
		if sentinel != "" {
			os.RemoveAll(sentinel)
		}
		return nil, fmt.Errorf("workspace: cannot watch files: %w; check that the temporary directory is writable", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{
		root: r, fw: fw, opts: opts, deliver: deliver, ctx: ctx, cancel: cancel,
		sentinel: sentinel, done: make(chan struct{}),
		dirs: map[string]bool{}, waiters: map[uint64]chan struct{}{},
	}
	go w.loop()
	return w, nil
}

// maxUserWatches is the per-user inotify limit, or 0 when unknown.
func maxUserWatches() int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// Close stops watching and waits for the Watcher's goroutine to end; a
// delivery under way sees its context end. Calling it twice is a no-op.
func (w *Watcher) Close() error {
	var err error
	w.once.Do(func() {
		w.mu.Lock()
		w.closed = true
		w.mu.Unlock()
		w.cancel()
		err = w.fw.Close()
		<-w.done
		os.RemoveAll(w.sentinel)
	})
	return err
}

// Flush waits until every change made before it was called has been
// handed over (the batch under way included), so that a question asked
// next sees them. It returns at once after Close.
func (w *Watcher) Flush(ctx context.Context) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.seq++
	n := w.seq
	ch := make(chan struct{})
	w.waiters[n] = ch
	w.mu.Unlock()
	// The kernel queues events in order: when the loop reads the event of
	// this file, it has read every event queued before Flush was called.
	name := filepath.Join(w.sentinel, strconv.FormatUint(n, 10))
	err := os.WriteFile(name, nil, 0o600)
	if err == nil {
		os.Remove(name)
	} else {
		w.mu.Lock()
		delete(w.waiters, n)
		w.mu.Unlock()
		return fmt.Errorf("workspace: flushing the file watcher: %w; check that the temporary directory is writable", err)
	}
	select {
	case <-ch:
		return nil
	case <-w.done:
		return nil
	case <-ctx.Done():
		w.mu.Lock()
		delete(w.waiters, n)
		w.mu.Unlock()
		return ctx.Err()
	}
}

// Limited says why some directories are not watched, or "".
func (w *Watcher) Limited() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.limited
}

// Covered says whether changes to the file at rel are noticed: its
// directory is watched.
func (w *Watcher) Covered(rel string) bool {
	dir := "."
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir = rel[:i]
	}
	return w.Watches(dir)
}

// Watches says whether the directory dir (relative to the root) is
// watched.
func (w *Watcher) Watches(dir string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dirs[dir]
}

// Stats says what the Watcher has done so far.
func (w *Watcher) Stats() WatchStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.stats
	s.Dirs = len(w.dirs)
	return s
}

// pend is a path with events waiting to be handed over.
type pend struct {
	created bool // its first event in the burst made it
	wasDir  bool // it was a watched directory when it went
}

// burst is the events waiting to be handed over.
type burst struct {
	paths    map[string]*pend
	events   int
	first    time.Time
	deadline time.Time
	overflow bool
}

func (w *Watcher) loop() {
	defer close(w.done)
	b := &burst{paths: map[string]*pend{}}
	w.watchTree(".", nil) // first: events queue in the kernel meanwhile
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if filepath.Dir(ev.Name) == w.sentinel {
				if ev.Has(fsnotify.Create) {
					n, _ := strconv.ParseUint(filepath.Base(ev.Name), 10, 64)
					w.hand(b)
					w.release(n)
				}
				continue
			}
			if !w.event(ev, b) {
				continue
			}
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				continue
			}
			b.overflow = true
			b.events++
		case <-timer.C:
			w.hand(b)
			continue
		}
		now := time.Now()
		if b.first.IsZero() {
			b.first, b.deadline = now, now.Add(w.opts.MaxDelay)
		}
		timer.Reset(max(min(w.opts.Quiet, b.deadline.Sub(now)), 0))
	}
}

// event takes one file system event into b, and says whether it counts.
func (w *Watcher) event(ev fsnotify.Event, b *burst) bool {
	rel, ok := w.rel(ev.Name)
	if !ok || ev.Op == fsnotify.Chmod {
		return false // attributes only: the content is the same
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if w.unwatch(rel) {
			p := b.add(rel, false)
			p.wasDir = true
		}
	}
	if ev.Has(fsnotify.Create) {
		if st, err := w.root.Lstat(rel); err == nil && st.IsDir() {
			// Its files may have been made before its watch was: they
			// are listed as made.
			w.watchTree(rel, b)
		}
	}
	b.add(rel, ev.Has(fsnotify.Create))
	b.events++
	return true
}

func (b *burst) add(rel string, created bool) *pend {
	p := b.paths[rel]
	if p == nil {
		p = &pend{created: created}
		b.paths[rel] = p
	}
	return p
}

// rel is the path of an event relative to the root, if it is one to
// report: not the root, not in .git or the state directory.
func (w *Watcher) rel(name string) (string, bool) {
	r, err := filepath.Rel(w.root.dir, name)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	r = filepath.ToSlash(r)
	for _, c := range strings.Split(r, "/") {
		if c == ".git" || c == StateDir {
			return "", false
		}
	}
	return r, true
}

// watchTree watches rel and every directory the walk visits below it; with
// b, the files found are added to it as made.
func (w *Watcher) watchTree(rel string, b *burst) {
	_ = w.root.Walk(w.ctx, rel, func(p string, d fs.DirEntry) error {
		if !d.IsDir() {
			if b != nil {
				b.add(p, true)
			}
			return nil
		}
		if !w.watch(p) {
			return SkipDir
		}
		return nil
	})
}

// watch adds a watch on the directory rel; false when it cannot (the
// bound, or the system's limit: said by Limited).
func (w *Watcher) watch(rel string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dirs[rel] {
		return true
	}
	if len(w.dirs) >= w.opts.MaxDirs {
		if w.limited == "" {
			w.limited = fmt.Sprintf("the workspace has more than %d directories, the most cchub watches: of the files other programs change in the rest, only those a language server has open are seen, when a diagnostics call compares them with the disk; listing generated directories in .gitignore brings the workspace under the bound", w.opts.MaxDirs)
		}
		return false
	}
	err := w.fw.Add(filepath.Join(w.root.dir, filepath.FromSlash(rel)))
	switch {
	case errors.Is(err, syscall.ENOSPC):
		if w.limited == "" {
			w.limited = fmt.Sprintf("the system's limit on watched directories was reached after %d: of the files other programs change in the rest, only those a language server has open are seen, when a diagnostics call compares them with the disk; raise fs.inotify.max_user_watches (sysctl) to watch them all", len(w.dirs))
		}
		return false
	case err != nil:
		return false // gone, or not readable: nothing to notice there
	}
	w.dirs[rel] = true
	return true
}

// unwatch forgets the watches on rel and below, gone or moved away; it
// says whether rel was watched.
func (w *Watcher) unwatch(rel string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	was := w.dirs[rel]
	if !was {
		return false
	}
	for d := range w.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			delete(w.dirs, d)
			// The kernel drops the watch of a removed directory itself;
			// one moved away would report under its old name.
			_ = w.fw.Remove(filepath.Join(w.root.dir, filepath.FromSlash(d)))
		}
	}
	return true
}

// hand hands b over, if it holds anything, and empties it.
func (w *Watcher) hand(b *burst) {
	if len(b.paths) == 0 && !b.overflow {
		return
	}
	pats := map[string][]gitignore.Pattern{}
	var changes []Change
	for rel, p := range b.paths {
		st, err := w.root.Lstat(rel)
		var kind ChangeKind
		switch {
		case err == nil && st.IsDir():
			continue // its files are reported, not the directory
		case err == nil:
			kind = Changed
			if p.created {
				kind = Created
			}
		case p.created:
			continue // made and gone within the burst (a temporary file)
		default:
			kind = Deleted
		}
		if w.root.ignoredIn(pats, rel, err == nil && st.IsDir() || p.wasDir) || isOwnTemp(rel) {
			continue
		}
		changes = append(changes, Change{Path: rel, Kind: kind})
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	batch := Batch{Changes: changes, Events: b.events, First: b.first, Overflow: b.overflow}
	*b = burst{paths: map[string]*pend{}}
	w.mu.Lock()
	w.stats.Events += batch.Events
	if len(batch.Changes) > 0 || batch.Overflow {
		w.stats.Batches++
	}
	w.mu.Unlock()
	if (len(batch.Changes) > 0 || batch.Overflow) && w.ctx.Err() == nil {
		w.deliver(w.ctx, batch)
	}
}

// release ends the flushes numbered up to n.
func (w *Watcher) release(n uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, ch := range w.waiters {
		if k <= n {
			close(ch)
			delete(w.waiters, k)
		}
	}
}

// ignoredIn says whether the walk would skip rel: it, or a directory
// above it, is ignored by the .gitignore files that apply (cached in pats
// by directory, for one batch).
func (r *Root) ignoredIn(pats map[string][]gitignore.Pattern, rel string, isDir bool) bool {
	comps := splitRel(rel)
	for i := 1; i <= len(comps); i++ {
		if ignoredBy(r.patternsIn(pats, comps[:i-1]), comps[:i], i < len(comps) || isDir) {
			return true
		}
	}
	return false
}

// patternsIn is the ignore patterns in effect for the entries of the
// directory dir: .git/info/exclude and every .gitignore from the root
// down to dir's own.
func (r *Root) patternsIn(pats map[string][]gitignore.Pattern, dir []string) []gitignore.Pattern {
	key := strings.Join(dir, "/")
	if p, ok := pats[key]; ok {
		return p
	}
	var p []gitignore.Pattern
	if len(dir) == 0 {
		p = append(r.readIgnoreFile(".git/info/exclude", nil), r.readIgnoreFile(".gitignore", nil)...)
	} else {
		up := r.patternsIn(pats, dir[:len(dir)-1])
		p = append(up[:len(up):len(up)], r.readIgnoreFile(key+"/.gitignore", dir)...)
	}
	pats[key] = p
	return p
}

// isOwnTemp says whether rel names a temporary file cchub's own writes
// make beside their target (".name.cchub-<hex>", see write.go and
// twophase.go), or is inside a state directory being made: a burst cut
// in two must not report it as a change.
func isOwnTemp(rel string) bool {
	if strings.HasPrefix(rel, StateDir+".new-") {
		return true // a state directory being made (state.go), renamed into place whole
	}
	base := path.Base(rel)
	i := strings.LastIndex(base, ".cchub-")
	if !strings.HasPrefix(base, ".") || i <= 0 {
		return false
	}
	tag := base[i+len(".cchub-"):]
	if tag == "" {
		return false
	}
	for _, c := range tag {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}
