package hub

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"cchub/store"
	"cchub/tokenindex"
)

// lacks is the token index's answer for search and grep: whether a file
// cannot hold every one of some literals, without reading it; nil when
// the workspace has no store (a search never creates one). Each set of
// literals is looked up once per call, in the index `cchub index` left;
// every answer is checked against the file's size and mtime as they are
// now, so a file changed since (by an edit, or the agent's own shell) is
// read as if there were no index.
func (h *Hub) lacks(ctx context.Context) func(rel string, d fs.DirEntry, lits [][]byte) bool {
	h.dbMu.Lock()
	open := h.db != nil
	h.dbMu.Unlock()
	if !open {
		dir, err := h.Root.StatePath()
		if err != nil {
			return nil
		}
		if _, err := os.Stat(filepath.Join(dir, store.FileName)); err != nil {
			return nil
		}
	}
	// The store is opened, and a long-lived hub's index loaded, when a
	// first file is asked about: a pattern without a literal a filter
	// can answer for costs nothing. A one-shot CLI call reads the filters
	// once per set of literals, keeping only its answer; a long-lived hub
	// keeps them all in memory, loaded again when `cchub index` (in any
	// process) has changed them.
	answer := func(lits [][]byte) (*tokenindex.Lacking, error) {
		db, err := h.state(ctx)
		if err != nil {
			return nil, err
		}
		if h.oneShot {
			return tokenindex.Lacks(ctx, h.Root, db, lits)
		}
		x, err := h.heldTokens(ctx, db)
		if err != nil {
			return nil, err
		}
		return x.Lacks(lits), nil
	}
	var mu sync.Mutex
	answers := map[string]*tokenindex.Lacking{}
	var changed map[string]bool
	return func(rel string, d fs.DirEntry, lits [][]byte) bool {
		key := string(bytes.Join(lits, []byte{0}))
		mu.Lock()
		a, ok := answers[key]
		if !ok {
			var err error
			if a, err = answer(lits); err != nil {
				h.say("the token index could not be read (" + err.Error() + "); this search reads every file; cchub index builds it again")
			}
			answers[key] = a
			// Taken once the call has flushed the watcher (listing):
			// a file rewritten with its size and mtime kept (cp -p,
			// rsync -t, tar) matches its stamp, and only the watcher
			// knows it changed.
			changed = h.changedFiles()
		}
		ch := changed // set again, under mu, with each new set of literals
		mu.Unlock()
		return !ch[rel] && a.Has(rel, d)
	}
}

// heldTokens is the token index the hub keeps in memory, loaded again
// when the store's generation has moved on.
func (h *Hub) heldTokens(ctx context.Context, db *store.Store) (*tokenindex.Index, error) {
	gen, err := db.TokenGeneration(ctx)
	if err != nil {
		return nil, err
	}
	h.tokMu.Lock()
	defer h.tokMu.Unlock()
	if h.tokens != nil && h.tokens.Gen == gen {
		return h.tokens, nil
	}
	x, err := tokenindex.Load(ctx, h.Root, db)
	if err != nil {
		return nil, err
	}
	h.tokens = x
	return x, nil
}

// indexTokens brings the token index up to date.
func (h *Hub) indexTokens(ctx context.Context) (tokenindex.Stats, error) {
	db, err := h.state(ctx)
	if err != nil {
		return tokenindex.Stats{}, err
	}
	sh, _ := h.Shared(ctx)
	return tokenindex.Update(ctx, h.Root, db, sh)
}
