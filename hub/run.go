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

// runs maps each MCP session to its Run.
type runs struct {
	mu sync.Mutex
	m  map[any]*Run
}

// get returns key's Run, and whether it was made by this call.
func (rs *runs) get(key any) (*Run, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.m == nil {
		rs.m = map[any]*Run{}
	}
	r, ok := rs.m[key]
	if !ok {
		r = NewRun()
		rs.m[key] = r
	}
	return r, !ok
}

// end forgets key's Run and ends what it owns (its debug session).
func (rs *runs) end(key any) {
	rs.mu.Lock()
	r := rs.m[key]
	delete(rs.m, key)
	rs.mu.Unlock()
	if r != nil {
		r.endDebug("the conversation ended")
	}
}

// all is every live Run, for the hub's end.
func (rs *runs) all() []*Run {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := make([]*Run, 0, len(rs.m))
	for _, r := range rs.m {
		out = append(out, r)
	}
	return out
}

func (rs *runs) count() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.m)
}
