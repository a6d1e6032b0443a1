package hub

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"cchub/lang"
	"cchub/store"
	"cchub/structsearch"
	"cchub/tokenindex"
	"cchub/workspace"
)

// lacks is the token index's answer for search and grep: whether a file
// cannot hold every one of some literals, without reading it; nil when
// the workspace has no store (a search never creates one). See answers.
func (h *Hub) lacks(ctx context.Context) workspace.TokenFilter {
	lacks, _ := h.answers(ctx)
	return lacks
}

// answers are the token index's answers for one call: lacks, whether a
// file cannot hold every one of some literals, and clean, whether it
// parses without a syntax error; both without reading the file, and both
// nil when the workspace has no store (a search never creates one). Each
// set of literals is looked up once per call, in the index `cchub index`
// left (an answer for lits knows the syntax of the files it does not rule
// out); every answer is checked against the file's workspace.Identity as
// it is now (size, mtime, ctime, inode, device), so a file changed since
// (by an edit, the agent's own shell, cp -p or tar keeping its mtime) is
// read as if there were no index.
func (h *Hub) answers(ctx context.Context) (lacks, clean workspace.TokenFilter) {
	h.dbMu.Lock()
	open := h.db != nil
	h.dbMu.Unlock()
	if !open {
		dir, err := h.Root.StatePath()
		if err != nil {
			return nil, nil
		}
		if _, err := os.Stat(filepath.Join(dir, store.FileName)); err != nil {
			return nil, nil
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
	// ask is the answer for lits, and the files the watcher saw change.
	ask := func(lits [][]byte) (*tokenindex.Lacking, map[string]bool) {
		key := string(bytes.Join(lits, []byte{0}))
		mu.Lock()
		defer mu.Unlock()
		a, ok := answers[key]
		if !ok {
			var err error
			if a, err = answer(lits); err != nil {
				h.say("the token index could not be read (" + err.Error() + "); this search reads every file; cchub index builds it again")
			}
			answers[key] = a
			// Taken once the call has flushed the watcher (listing):
			// a second witness, which only withholds trust: a file
			// rewritten with its size and mtime kept (cp -p, rsync -t,
			// tar) has already moved its ctime.
			changed = h.changedFiles()
		}
		return a, changed // set again, under mu, with each new set of literals
	}
	lacks = func(rel string, d fs.DirEntry, lits [][]byte) bool {
		a, ch := ask(lits)
		return !ch[rel] && a.Has(rel, d)
	}
	clean = func(rel string, d fs.DirEntry, lits [][]byte) bool {
		a, ch := ask(lits) // the answer that let the file be read
		return !ch[rel] && a.Clean(rel, d)
	}
	return lacks, clean
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

// indexTokens brings the token index up to date, with the syntax of the
// files a structural search parses in part: what the code graph's
// parse found, when it parsed the same content, else a parse of its own.
func (h *Hub) indexTokens(ctx context.Context) (tokenindex.Stats, error) {
	h.graphMu.Lock()
	graph := h.graph
	h.graphMu.Unlock()
	var parsed func(rel string, sha [32]byte) (clean, known bool)
	if graph != nil {
		parsed = graph.ParsedNow()
	}
	return h.indexTokensKnowing(ctx, parsed)
}

// indexTokensKnowing is indexTokens told by parsed (nil: by nothing)
// whether content the code graph parsed parses cleanly.
func (h *Hub) indexTokensKnowing(ctx context.Context, parsed func(rel string, sha [32]byte) (clean, known bool)) (tokenindex.Stats, error) {
	db, err := h.state(ctx)
	if err != nil {
		return tokenindex.Stats{}, err
	}
	sh, _ := h.Shared(ctx)
	if store.IsOwn(sh, db) {
		// The checkout's own store keeps each file's filter in its
		// token index already: a copy by content would serve no
		// other checkout and double the filters on disk.
		sh = nil
	}
	sx := &tokenindex.Syntax{
		Wants: structsearch.FileParsesInParts,
		Known: parsed,
		Clean: func(rel string, sha [32]byte, src []byte) (bool, bool) {
			clean, ok := structsearch.ParsesCleanly(ctx, rel, src)
			return clean && ok, true // too large, or cancelled: not known to be clean
		},
		// By the grammar that parses it: the same bytes parse
		// differently as another language.
		Shared: lang.NameOf,
	}
	return tokenindex.Update(ctx, h.Root, db, sh, sx)
}
