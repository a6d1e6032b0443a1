package hub

import (
	"context"
	"maps"
	"path"
	"slices"
	"sync"
	"time"

	"cchub/workspace"
)

// A long-lived hub keeps one walk of the workspace (workspace.Listing)
// while its file watcher vouches for it, so that a grep asks the token
// index about every file without a walk or a stat per file (GOROOT/src:
// 30 ms of walk and 40 ms of lstat, against a few milliseconds for the
// files that can match). Whatever the watcher hands over is taken in
// before the answer (Watcher.Flush): a file changed, by the hub or by
// the agent's shell, is stat'ed again; a file made or removed, a
// .gitignore changed, or events lost, and the next call walks again.

// flushWait bounds how long a call waits for the watcher to take in the
// changes made before it (35-80 µs when it keeps up); past it the call
// walks the disk, as does every call for behindPause after.
// (Tests that count walks lengthen flushWait: a loaded machine may be
// slower than that without being behind.)
var flushWait = 50 * time.Millisecond

const (
	behindPause    = time.Second
	firstFlushWait = 10 * time.Second
)

// listState is the hub's Listing and what happened to it since.
type listState struct {
	mu      sync.Mutex
	l       *workspace.Listing // nil: walk again
	stale   map[string]bool    // files changed since l was made: stat again
	batches uint64             // batches the watcher handed over, ever
	walks   int                // Listings made by walking the disk
	behind  time.Time          // when a flush last took longer than flushWait
	flushed bool               // the watcher has been flushed once
	// changed is every file the watcher said another process (or the
	// hub) changed since the hub started, never changed in place, only
	// replaced: the token index is not asked about them (see lacks).
	changed map[string]bool
}

// changedFiles is the files the watcher reported changed, made, or
// removed since the hub started; the caller must not change the map.
func (h *Hub) changedFiles() map[string]bool {
	s := &h.list
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// listing is the workspace's Listing, up to date with the disk as the
// watcher reports it; nil for a one-shot hub, or when the watcher cannot
// vouch for every directory (then the caller walks).
func (h *Hub) listing(ctx context.Context) *workspace.Listing {
	if h.oneShot {
		return nil
	}
	h.watchDisk()
	d := &h.disk
	d.mu.Lock()
	w := d.w
	d.mu.Unlock()
	if w == nil || w.Limited() != "" {
		return nil
	}
	s := &h.list
	s.mu.Lock()
	behind := time.Since(s.behind) < behindPause
	wait := flushWait
	if !s.flushed {
		// The watcher's first flush waits for it to watch every
		// directory (a walk of its own): once.
		wait = max(wait, firstFlushWait)
	}
	s.mu.Unlock()
	if behind {
		return nil
	}
	// Every change made before this call must be taken in first. A
	// watcher that is far behind (a storm of events: a checkout, a
	// build) would hold the answer longer than a walk takes: then the
	// disk is walked, and the watcher left alone for a while.
	fctx, cancel := context.WithTimeout(ctx, wait)
	err := w.Flush(fctx)
	cancel()
	s.mu.Lock()
	if err != nil {
		s.behind = time.Now()
		s.mu.Unlock()
		return nil
	}
	s.flushed = true
	if l := s.l; l != nil && l.Current(h.Root) {
		if len(s.stale) > 0 {
			l, _ = l.Refresh(h.Root, slices.Collect(maps.Keys(s.stale))) // nil when only a walk can tell
			s.l, s.stale = l, nil
		}
		if l != nil {
			s.mu.Unlock()
			return l
		}
	}
	s.l, s.stale = nil, nil
	seen := s.batches
	s.mu.Unlock()

	l, err := h.Root.List(ctx)
	if err != nil {
		return nil // a directory that cannot be read: walked each time, and said
	}
	covered := true
	l.Dirs(func(rel string) {
		covered = covered && w.Watches(rel)
	})
	if !covered {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.walks++
	if s.batches == seen {
		// No change was handed over during the walk (one that was is
		// handed to the next call's flush, which sees this Listing).
		s.l = l
	}
	return l
}

// listChanged takes a batch of the watcher's into the Listing.
func (h *Hub) listChanged(b workspace.Batch) {
	s := &h.list
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches++
	var added map[string]bool
	for _, c := range b.Changes {
		if !s.changed[c.Path] {
			if added == nil {
				added = make(map[string]bool, len(s.changed)+len(b.Changes))
				for p := range s.changed {
					added[p] = true
				}
			}
			added[c.Path] = true
		}
	}
	if added != nil {
		s.changed = added
	}
	if s.l == nil {
		return
	}
	if b.Overflow {
		s.l, s.stale = nil, nil
		return
	}
	for _, c := range b.Changes {
		listed, isDir := s.l.Lists(c.Path)
		switch {
		case path.Base(c.Path) == ".gitignore":
			s.l, s.stale = nil, nil // what the walk skips may differ
			return
		case c.Kind == workspace.Deleted && !listed:
			// Never listed (made and removed since): nothing to forget.
		case !listed || isDir || c.Kind == workspace.Deleted:
			s.l, s.stale = nil, nil // a file made or removed: walk again
			return
		default:
			// Changed, or made anew where a file was (a rename over
			// it, as editors save): the same path, stat'ed again.
			if s.stale == nil {
				s.stale = map[string]bool{}
			}
			s.stale[c.Path] = true
		}
	}
}
