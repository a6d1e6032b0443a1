package hub

import (
	"context"
	"fmt"
	"sync"

	"cchub/dapsession"
	"cchub/store"
	"cchub/textedit"
)

// Run is one conversation with the hub: an MCP session, or one CLI call.
// It remembers what the conversation has seen of each file, so an edit to
// a file that changed since is refused.
type Run struct {
	Seen *textedit.Seen
	// Name is a CLI run's name (--run): separate calls of one name share
	// what they were told. An MCP session's run has none.
	Name string

	mu     sync.Mutex
	id     store.RunID     // the run in the store, once it has needed one
	joined bool            // a named run has joined its earlier calls
	heard  map[string]bool // notes already said (a missing server, a crash)
	notes  []string        // notes for the next answer (another call found a crash)

	late      []lateChange        // changes answered before their servers settled
	start     startPoint          // what the servers had when the run first looked
	debug     *dapsession.Session // the run's one debug session, while live
	debugGone string              // how the last one ended, until said
	// placesTold are the contents of files, changed since the run read
	// them, whose current lines and columns the run was told (lsp).
	placesTold map[string][32]byte
}

// told reports whether r was told note already, and records it as told.
// A nil run (a one-off CLI call) has been told nothing.
func (r *Run) told(note string) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.heard == nil {
		r.heard = map[string]bool{}
	}
	was := r.heard[note]
	r.heard[note] = true
	return was
}

// NewRun starts a conversation of its own (a CLI call without --run).
func NewRun() *Run { return &Run{Seen: &textedit.Seen{}} }

// OpenRun starts a conversation that lasts until EndRun (an MCP session's):
// what it owns (a debug session) ends with it, or with the hub.
func (h *Hub) OpenRun() *Run {
	r := NewRun()
	h.runs.add(r)
	return r
}

// EndRun ends r, a run from OpenRun, and what it owns.
func (h *Hub) EndRun(r *Run) {
	if h.runs.remove(r) {
		r.endDebug("the conversation ended")
	}
}

// runs are the live runs OpenRun made, for the hub's end.
type runs struct {
	mu sync.Mutex
	m  map[*Run]bool
}

func (rs *runs) add(r *Run) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.m == nil {
		rs.m = map[*Run]bool{}
	}
	rs.m[r] = true
}

// remove forgets r, and says whether it was live.
func (rs *runs) remove(r *Run) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	live := rs.m[r]
	delete(rs.m, r)
	return live
}

// all is every live Run.
func (rs *runs) all() []*Run {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := make([]*Run, 0, len(rs.m))
	for r := range rs.m {
		out = append(out, r)
	}
	return out
}

// join makes r, a named CLI run, one with the earlier calls of that name:
// it starts from what they read and keeps what it reads for the next. An
// MCP session's run, whole in one process, has nothing to join.
func (h *Hub) join(ctx context.Context, r *Run) error {
	if r == nil || r.Name == "" {
		return nil
	}
	r.mu.Lock()
	joined := r.joined
	r.mu.Unlock()
	if joined {
		return nil
	}
	db, err := h.state(ctx)
	if err != nil {
		return fmt.Errorf("--run %s: %w", r.Name, err)
	}
	id, err := db.Run(ctx, r.Name)
	if err != nil {
		return fmt.Errorf("--run %s: %w", r.Name, err)
	}
	seen, err := db.Seen(ctx, id)
	if err != nil {
		return fmt.Errorf("--run %s: %w", r.Name, err)
	}
	r.mu.Lock()
	r.id, r.joined = id, true
	r.mu.Unlock()
	r.Seen.Keep(seenKeeper{ctx: context.WithoutCancel(ctx), db: db, run: id}, seen.Hashes, seen.Parts)
	return nil
}

// seenKeeper keeps a named run's reads in the store. A failure to keep
// one costs the next call of the run its stale-read check on that file,
// which is the same as not having read it: it is not worth failing the
// call that read.
type seenKeeper struct {
	ctx context.Context
	db  *store.Store
	run store.RunID
}

func (k seenKeeper) Saw(rel string, hash [32]byte) { _ = k.db.SaveSeen(k.ctx, k.run, rel, hash) }
func (k seenKeeper) SawPart(rel string)            { _ = k.db.SaveSeenPart(k.ctx, k.run, rel) }
func (k seenKeeper) Forget(rel string)             { _ = k.db.ForgetSeen(k.ctx, k.run, rel) }
