package mcpserver

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/hub"
)

// sessions maps each MCP session to its hub run: a session is one
// conversation, which remembers what it read and owns its debug session.
type sessions struct {
	h  *hub.Hub
	mu sync.Mutex
	m  map[*mcp.ServerSession]*hub.Run
}

// run is the Run of the request's MCP session, opened on its first call
// and ended when the session ends. A call without a session (none the SDK
// makes) gets a run of its own.
func (ss *sessions) run(req *mcp.CallToolRequest) *hub.Run {
	if req == nil || req.Session == nil {
		return hub.NewRun()
	}
	session := req.Session
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m = map[*mcp.ServerSession]*hub.Run{}
	}
	r, ok := ss.m[session]
	if !ok {
		r = ss.h.OpenRun()
		ss.m[session] = r
		go func() { // owned by the session: returns when it closes
			session.Wait()
			ss.mu.Lock()
			delete(ss.m, session)
			ss.mu.Unlock()
			ss.h.EndRun(r)
		}()
	}
	return r
}
