package hub

import (
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

	debug     *dapsession.Session // the run's one debug session, while live
	debugGone string              // how the last one ended, until said
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
