package mcpserver

import (
	"crypto/rand"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/hub"
)

// sessions maps each MCP session to what the server keeps for it: its hub
// run (a session is one conversation, which remembers what it read and
// owns its debug session) and the approval questions it was asked.
type sessions struct {
	h  *hub.Hub
	mu sync.Mutex
	m  map[*mcp.ServerSession]*session
}

type session struct {
	run *hub.Run
	// asked holds the approval questions put to the client and not yet
	// answered, by their token.
	asked map[string]question
}

// question is one approval question the server put to a session's client:
// the staged change it is about and the words it asked, until when its
// answer is taken.
type question struct {
	id, message string
	expires     time.Time
}

const (
	// questionTTL bounds how long an approval question waits for its
	// answer: long enough for a person to read a diff, short enough that
	// an answer found later in a log is useless.
	questionTTL = 15 * time.Minute
	// maxQuestions bounds the questions a session has open at once (a
	// client that never answers cannot grow the map); the oldest goes.
	maxQuestions = 32
)

// run is the Run of the request's MCP session, opened on its first call
// and ended when the session ends. A call without a session (none the SDK
// makes) gets a run of its own.
func (ss *sessions) run(req *mcp.CallToolRequest) *hub.Run {
	if req == nil || req.Session == nil {
		return hub.NewRun()
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.entry(req.Session).run
}

// entry is the session's record, made on first need; ss.mu is held.
func (ss *sessions) entry(ms *mcp.ServerSession) *session {
	if ss.m == nil {
		ss.m = map[*mcp.ServerSession]*session{}
	}
	e, ok := ss.m[ms]
	if !ok {
		e = &session{run: ss.h.OpenRun(), asked: map[string]question{}}
		ss.m[ms] = e
		go func() { // owned by the session: returns when it closes
			ms.Wait()
			ss.mu.Lock()
			delete(ss.m, ms)
			ss.mu.Unlock()
			ss.h.EndRun(e.run)
		}()
	}
	return e
}

// ask records an approval question about staged change id put to the
// session's client and returns its token: 128 bits from crypto/rand,
// which the answer must carry back. A question asked again about the same
// change replaces the one before.
func (ss *sessions) ask(ms *mcp.ServerSession, id, message string, now time.Time) string {
	token := rand.Text()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	e := ss.entry(ms)
	var oldest string
	for t, q := range e.asked {
		if q.id == id || !now.Before(q.expires) {
			delete(e.asked, t)
			continue
		}
		if oldest == "" || q.expires.Before(e.asked[oldest].expires) {
			oldest = t
		}
	}
	if len(e.asked) >= maxQuestions {
		delete(e.asked, oldest)
	}
	e.asked[token] = question{id: id, message: message, expires: now.Add(questionTTL)}
	return token
}

// answered takes the question token names, once: true when this session
// asked it about change id in these words and it has not expired. Any
// answer, right or wrong, uses the token up.
func (ss *sessions) answered(ms *mcp.ServerSession, token, id, message string, now time.Time) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	e, ok := ss.m[ms]
	if !ok {
		return false
	}
	q, ok := e.asked[token]
	if !ok {
		return false
	}
	delete(e.asked, token)
	return q.id == id && q.message == message && now.Before(q.expires)
}
