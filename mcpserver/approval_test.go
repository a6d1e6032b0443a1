package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests drive a real `cchub mcp` with raw JSON-RPC, sending what a
// forging client would: answers to approval questions the server never
// asked, guessed, replayed or borrowed from another change or session.
// Under the human policy none of them may write a file.

// rawSession is a raw MCP client of a cchub process, speaking one
// protocol version with or without the elicitation capability.
type rawSession struct {
	*cchubProc
	t    *testing.T
	meta json.RawMessage // per request, for protocol 2026-07-28
	n    int
	// elicit answers a server's elicitation/create request (older
	// protocols); nil fails the test if one comes.
	elicit func(params json.RawMessage) any
}

func newRawSession(t *testing.T, ws, version string, elicitation bool) *rawSession {
	t.Helper()
	caps := `{}`
	if elicitation {
		caps = `{"elicitation":{}}`
	}
	s := &rawSession{cchubProc: startCchub(t, ws), t: t}
	if version >= "2026-07-28" {
		// Stateless: every request says who it is and what it can do.
		s.meta = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientCapabilities":` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`)
		return s
	}
	s.Send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":` + caps + `,"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := s.ReplyTo(`"init"`); r.Error != nil {
		t.Fatalf("initialize: %s", r.Error.Message)
	}
	s.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// toolAnswer is a tools/call result as the client reads it.
type toolAnswer struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	IsError       bool                       `json:"isError"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	ResultType    string                     `json:"resultType"`
}

func (a toolAnswer) text() string {
	var b strings.Builder
	for _, c := range a.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// call calls tool with args and, when given, input responses; it answers
// the server's own requests on the way.
func (s *rawSession) call(tool string, args map[string]any, responses map[string]any) toolAnswer {
	s.t.Helper()
	s.n++
	params := map[string]any{"name": tool, "arguments": args}
	if responses != nil {
		params["inputResponses"] = responses
	}
	if s.meta != nil {
		params["_meta"] = s.meta
	}
	id := fmt.Sprint(s.n)
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.n, "method": "tools/call", "params": params})
	s.Send(string(line))
	for {
		raw := s.Next()
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &msg); err != nil {
			s.t.Fatalf("the server wrote %q: %v", raw, err)
		}
		switch {
		case msg.Method == "elicitation/create" && msg.ID != nil:
			if s.elicit == nil {
				s.t.Fatalf("the server asked this client, which cannot be asked: %s", raw)
			}
			reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": s.elicit(msg.Params)})
			s.Send(string(reply))
		case msg.Method != "":
			// a notification, or a request this test does not expect
			if msg.ID != nil {
				s.t.Fatalf("unexpected request from the server: %s", raw)
			}
		case string(msg.ID) == id:
			if msg.Error != nil {
				s.t.Fatalf("%s: protocol error %s", tool, msg.Error.Message)
			}
			var a toolAnswer
			if err := json.Unmarshal(msg.Result, &a); err != nil {
				s.t.Fatalf("%s: result %s: %v", tool, msg.Result, err)
			}
			return a
		}
	}
}

// stage stages the wrap rewrite and returns its id.
func (s *rawSession) stage() string {
	s.t.Helper()
	a := s.call("rewrite", map[string]any{"pattern": wrapPattern, "template": wrapTemplate, "paths": []string{"store"}}, nil)
	if a.IsError {
		s.t.Fatal(a.text())
	}
	return stagedID(s.t, a.text())
}

// ask calls accept without an answer and returns the token of the question
// the server put in its answer.
func (s *rawSession) ask(id string) string {
	s.t.Helper()
	a := s.call("resolve", map[string]any{"action": "accept", "id": id}, nil)
	if a.ResultType != "input_required" || len(a.InputRequests) != 1 {
		s.t.Fatalf("accept %s: want one input request, got %+v", id, a)
	}
	for k, v := range a.InputRequests {
		if !strings.HasPrefix(k, approvePrefix) || !strings.Contains(string(v), `"method":"elicitation/create"`) || !strings.Contains(string(v), "Apply "+id) {
			s.t.Fatalf("accept %s: the question %q: %s", id, k, v)
		}
		// The token is unguessable: at least 128 bits of base32.
		if tok := strings.TrimPrefix(k, approvePrefix); len(tok) < 26 {
			s.t.Fatalf("token %q is too short", tok)
		}
		return strings.TrimPrefix(k, approvePrefix)
	}
	panic("unreachable")
}

var approveYes = map[string]any{"action": "accept", "content": map[string]any{"approve": true}}

// answer calls accept for id with key's answer.
func (s *rawSession) answer(id, key string, resp any) toolAnswer {
	s.t.Helper()
	return s.call("resolve", map[string]any{"action": "accept", "id": id}, map[string]any{key: resp})
}

func unchanged(t *testing.T, ws string, before []byte, what string) {
	t.Helper()
	if after, _ := os.ReadFile(filepath.Join(ws, "store/persist.go")); string(after) != string(before) {
		t.Fatalf("%s: store/persist.go was written", what)
	}
}

func refused(t *testing.T, a toolAnswer, what, want string) {
	t.Helper()
	if !a.IsError || !strings.Contains(a.text(), want) || a.InputRequests != nil {
		t.Errorf("%s: want a refusal saying %q, got %+v", what, want, a)
	}
}

// A client of protocol 2026-07-28 that can ask its user: only the answer
// to the question the server asked, about that change, once, applies it.
func TestApprovalAnswersOnlyTheQuestionAsked(t *testing.T) {
	ws := copyWorkspace(t, "go")
	before, _ := os.ReadFile(filepath.Join(ws, "store/persist.go"))
	s := newRawSession(t, ws, "2026-07-28", true)
	id := s.stage()
	const unasked = "answers no question this session was asked"

	// Nothing asked yet: the old key, and a guessed token.
	refused(t, s.answer(id, "approve-"+id, approveYes), "forged answer, nothing asked", unasked)
	unchanged(t, ws, before, "forged answer")
	refused(t, s.answer(id, approvePrefix+rand.Text(), approveYes), "guessed token", unasked)
	unchanged(t, ws, before, "guessed token")

	// A question asked, then answered with another token: refused, and
	// that does not use up the real one.
	tok := s.ask(id)
	refused(t, s.answer(id, approvePrefix+rand.Text(), approveYes), "wrong token", unasked)
	refused(t, s.answer(id, approvePrefix+strings.ToLower(tok), approveYes), "token in another case", unasked)
	// A token for another change does not approve this one, and is
	// spent by the try.
	id2 := s.stage()
	tok2 := s.ask(id2)
	refused(t, s.answer(id, approvePrefix+tok2, approveYes), "token of another change", unasked)
	refused(t, s.answer(id2, approvePrefix+tok2, approveYes), "token spent on another change", unasked)
	unchanged(t, ws, before, "other tokens")

	// Declined, then the same token replayed with yes.
	if a := s.answer(id, approvePrefix+tok, map[string]any{"action": "decline"}); a.IsError || !strings.Contains(a.text(), "the user did not approve "+id) {
		t.Fatalf("declined: %+v", a)
	}
	refused(t, s.answer(id, approvePrefix+tok, approveYes), "replayed token", unasked)
	unchanged(t, ws, before, "replayed token")

	// Two answers at once (one real, one guessed): both spent, refused.
	tok = s.ask(id)
	a := s.call("resolve", map[string]any{"action": "accept", "id": id}, map[string]any{approvePrefix + tok: approveYes, approvePrefix + rand.Text(): approveYes})
	refused(t, a, "two answers", unasked)
	refused(t, s.answer(id, approvePrefix+tok, approveYes), "a token tried in a bundle", unasked)
	unchanged(t, ws, before, "two answers")

	// A token from another session (another process on the workspace).
	other := newRawSession(t, ws, "2026-07-28", true)
	otherTok := other.ask(id)
	refused(t, s.answer(id, approvePrefix+otherTok, approveYes), "token of another session", unasked)
	unchanged(t, ws, before, "token of another session")

	// The question asked, the user says yes: applied.
	tok = s.ask(id)
	if a := s.answer(id, approvePrefix+tok, approveYes); a.IsError || !strings.HasPrefix(a.text(), "applied "+id) {
		t.Fatalf("approved: %+v", a)
	}
	if after, _ := os.ReadFile(filepath.Join(ws, "store/persist.go")); !strings.Contains(string(after), `fmt.Errorf("store: %w", err)`) {
		t.Fatalf("approved change not written:\n%s", after)
	}
}

// A client that did not declare elicitation is never asked, and whatever
// it sends as an answer applies nothing: a person must approve.
func TestApprovalNeedsTheElicitationCapability(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			ws := copyWorkspace(t, "go")
			before, _ := os.ReadFile(filepath.Join(ws, "store/persist.go"))
			s := newRawSession(t, ws, version, false)
			id := s.stage()
			want := "a person must approve: run `cchub review " + id + "` (or `cchub apply " + id + "`) in a terminal"
			refused(t, s.call("resolve", map[string]any{"action": "accept", "id": id}, nil), "accept", want)
			for _, key := range []string{"approve-" + id, approvePrefix + rand.Text()} {
				refused(t, s.answer(id, key, approveYes), "forged "+key, want)
			}
			unchanged(t, ws, before, "no elicitation")
		})
	}
	// Capabilities declared on a later request than the first do not
	// count: the session's are those it began with.
	ws := copyWorkspace(t, "go")
	before, _ := os.ReadFile(filepath.Join(ws, "store/persist.go"))
	s := newRawSession(t, ws, "2026-07-28", false)
	id := s.stage()
	s.meta = json.RawMessage(strings.Replace(string(s.meta), `clientCapabilities":{}`, `clientCapabilities":{"elicitation":{}}`, 1))
	refused(t, s.call("resolve", map[string]any{"action": "accept", "id": id}, nil), "capability claimed late", "a person must approve")
	refused(t, s.answer(id, "approve-"+id, approveYes), "capability claimed late, forged", "a person must approve")
	unchanged(t, ws, before, "capability claimed late")
}

// A client of an older protocol that can ask its user gets a real
// elicitation request, and its answer applies the change; a forged
// answer in its tools/call does not.
func TestApprovalOlderClientIsAskedByRequest(t *testing.T) {
	ws := copyWorkspace(t, "go")
	before, _ := os.ReadFile(filepath.Join(ws, "store/persist.go"))
	s := newRawSession(t, ws, "2025-06-18", true)
	id := s.stage()
	refused(t, s.answer(id, "approve-"+id, approveYes), "forged answer", "answers no question this session was asked")
	refused(t, s.answer(id, approvePrefix+rand.Text(), approveYes), "guessed token", "answers no question this session was asked")
	unchanged(t, ws, before, "forged answer")
	var asked []string
	s.elicit = func(params json.RawMessage) any {
		asked = append(asked, string(params))
		return approveYes
	}
	a := s.call("resolve", map[string]any{"action": "accept", "id": id}, nil)
	if a.IsError || !strings.HasPrefix(a.text(), "applied "+id) {
		t.Fatalf("approved: %+v", a)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "Apply "+id) {
		t.Errorf("asked: %q", asked)
	}
}

// The Go SDK's client, asking its user through an elicitation handler,
// approves through a real `cchub mcp` process.
func TestApprovalThroughTheGoSDKClient(t *testing.T) {
	ws := copyWorkspace(t, "go")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "asking", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(buildCchub(t), "mcp", "--root", ws)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	text, _ := callText(t, cs, "rewrite", map[string]any{"pattern": wrapPattern, "template": wrapTemplate})
	id := stagedID(t, text)
	text, isErr := callText(t, cs, "resolve", map[string]any{"action": "accept", "id": id})
	if isErr || !strings.HasPrefix(text, "applied "+id) {
		t.Fatalf("approved:\n%s", text)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "Apply "+id+": 1 edit in 1 file?") {
		t.Errorf("asked: %q", asked)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "store/persist.go")); !strings.Contains(string(data), `fmt.Errorf("store: %w", err)`) {
		t.Errorf("not written:\n%s", data)
	}
}

// A question expires, and its token with it; a session keeps a bounded
// number of open questions.
func TestApprovalQuestionsExpireAndAreBounded(t *testing.T) {
	ss := &sessions{h: newTestHub(t, copyWorkspace(t, "go"))}
	ms := connectedSession(t)
	now := time.Now()
	tok := ss.ask(ms, "c1", "Apply c1?", now)
	if ss.answered(ms, tok, "c1", "Apply c1?", now.Add(questionTTL)) {
		t.Error("an expired question was answered")
	}
	tok = ss.ask(ms, "c1", "Apply c1?", now)
	if ss.answered(ms, tok, "c1", "Apply c1 (changed since)?", now) {
		t.Error("an answer to other words was taken")
	}
	tok = ss.ask(ms, "c1", "Apply c1?", now)
	if !ss.answered(ms, tok, "c1", "Apply c1?", now.Add(questionTTL-time.Second)) {
		t.Error("a fresh answer was refused")
	}
	first := ss.ask(ms, "c0", "Apply c0?", now)
	for i := range 2 * maxQuestions {
		ss.ask(ms, fmt.Sprintf("d%d", i), "?", now.Add(time.Duration(i+1)*time.Millisecond))
	}
	ss.mu.Lock()
	n := len(ss.m[ms].asked)
	ss.mu.Unlock()
	if n > maxQuestions {
		t.Errorf("%d open questions, want at most %d", n, maxQuestions)
	}
	if ss.answered(ms, first, "c0", "Apply c0?", now) {
		t.Error("the oldest question was kept past the bound")
	}
}

// connectedSession is a live server session of an empty server.
func connectedSession(t *testing.T) *mcp.ServerSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return ss
}
