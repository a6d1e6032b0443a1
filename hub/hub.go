package hub

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"cchub/codegraph"
	"cchub/lspmux"
	"cchub/store"
	"cchub/syntax"
	"cchub/textedit"
	"cchub/tokenindex"
	"cchub/workspace"
)

// Hub is one workspace and everything cchub keeps about it.
type Hub struct {
	Root   *workspace.Root
	Parses *syntax.ParseCache

	files    *textedit.Files
	runs     runs
	oneShot  bool
	approval Approval

	lspOnce sync.Once
	lsp     *lspmux.Mux // made on first need; starts no server itself
	lspErr  error
	lspMade atomic.Bool // lsp and lspErr are set

	graphMu sync.Mutex
	graph   *codegraph.Index // made on first need

	tokMu  sync.Mutex
	tokens *tokenindex.Index // the token index in memory (not one-shot), see heldTokens

	dbMu  sync.Mutex
	db    *store.Store // opened on first need
	dbErr error

	noticeMu sync.Mutex
	notices  []string // what every run hears once (Notice)

	warn func(msg string) // Options.Warn, or one that discards

	// bg is the work the hub does after answering (saving a snapshot);
	// Close waits for it, cancelled first unless the hub is one-shot.
	bgMu     sync.Mutex
	bg       sync.WaitGroup
	bgCtx    context.Context // nil once closed
	bgCancel context.CancelFunc
	bgBusy   bool

	storeSpec string              // Options.Store
	storeOpt  store.SharedOptions // Options.StoreKey, StoreMode
	// rejectedSaid is how many rows refused for their MAC have been said
	// (a long-lived hub says the first at once; a one-shot one counts
	// them as it closes).
	rejectedSaid int64
	diagWait     time.Duration // Options.DiagnosticsTimeout
	pool         *lspmux.Pool  // Options.Servers
	shared       store.Shared  // the shared store, opened with the graph

	disk diskWatch // the watcher of the workspace, started with the Mux (watch.go)
	list listState // a walk of the workspace the watcher vouches for (listing.go)
	own  ownWrites // paths being written by the hub, not by another process
}

// Options tunes a hub; the zero value is the default.
type Options struct {
	// ParseCacheBytes bounds the parse cache by source bytes (0 means
	// syntax.DefaultParseCacheBytes). A structural search over more
	// source than this parses the part that did not fit again when
	// repeated.
	ParseCacheBytes int
	// OneShot says the hub serves a single call (a CLI command): a
	// structural search then parses each file once and keeps no trees.
	OneShot bool
	// Approval says who may accept a staged change through the resolve
	// tool ("" is ApproveHuman).
	Approval Approval
	// Store names the shared store of the code graph's extractions: ""
	// (then a trusted .cchub.json's "store", else the checkout's own
	// SQLite file), "sqlite", or a postgres:// URL.
	Store string
	// StoreKey, if set, is the team's store key: every row the hub
	// writes to the shared store carries its MAC, and rows without a
	// valid one are absent to it (store.Key).
	StoreKey *store.Key
	// StoreMode store.ReadOnly writes nothing to the shared store.
	StoreMode store.Mode
	// DiagnosticsTimeout, when set, bounds the wait for a change's
	// diagnostics (over .cchub.json's diagnostics_timeout and the 5 s
	// default).
	DiagnosticsTimeout time.Duration
	// Warn, when set, is told what the person running the hub should
	// know and no answer carries, one message a call, without the
	// program's name or a final line break: the hub's notices (once per
	// process, and also in every run's answers: Notice), an
	// interrupted commit finished or undone at Open, a watcher that
	// cannot see every change. It may be called from several goroutines
	// at once, and must not call back into the hub. Nil discards them.
	// The hub never writes to stderr itself: the front end decides
	// where these go (the CLI: stderr; cchub mcp: where it sends its own
	// notes).
	Warn func(msg string)
	// Servers, when set, is the pool of language servers the hubs of
	// this process share: a git worktree of a repository another hub
	// serves is served by the same server process, as a workspace
	// folder of its own (the shared hub sets it).
	Servers *lspmux.Pool
}

// New opens the hub for the workspace rooted at dir, with default options.
func New(dir string) (*Hub, error) { return Open(dir, Options{}) }

// Open opens the hub for the workspace rooted at dir.
func Open(dir string, o Options) (*Hub, error) {
	root, err := workspace.Open(dir)
	if err != nil {
		return nil, err
	}
	parses := syntax.NewParseCache(o.ParseCacheBytes)
	if o.Approval == "" {
		o.Approval = ApproveHuman
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	h := &Hub{Root: root, Parses: parses, oneShot: o.OneShot, approval: o.Approval, storeSpec: o.Store, storeOpt: store.SharedOptions{Key: o.StoreKey, Mode: o.StoreMode}, diagWait: o.DiagnosticsTimeout, warn: o.Warn, pool: o.Servers}
	h.bgCtx, h.bgCancel = context.WithCancel(context.Background())
	h.files = textedit.NewFiles(root).WithParseCache(parses)
	h.openState()
	if err := h.recoverCommits(context.Background()); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// Close releases what the hub holds: its language servers (stopped and
// reaped) and cached trees.
func (h *Hub) Close() error {
	for _, r := range h.runs.all() {
		r.endDebug("the hub stopped")
	}
	h.lspOnce.Do(func() {}) // no Mux is made after Close
	h.bgMu.Lock()
	if !h.oneShot {
		h.bgCancel()
	}
	h.bgCtx = nil
	h.bgMu.Unlock()
	h.bg.Wait()
	h.bgCancel()
	h.sayRejected(true)
	h.stopWatch()
	if h.lsp != nil {
		h.lsp.Close()
	}
	h.dbMu.Lock()
	if h.shared != nil {
		h.shared.Close()
	}
	if h.db != nil {
		h.db.Close()
	}
	h.dbErr = errors.New("hub: closed")
	h.dbMu.Unlock()
	h.Parses.Close()
	return h.Root.Close()
}
