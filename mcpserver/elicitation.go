package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/hub"
)

// approvePrefix starts the key of an approval question in a call's input
// requests; the rest of the key is the question's token.
const approvePrefix = "approve-"

// elicitApproval asks the user of the calling client through MCP
// elicitation, as a multi-round-trip request (the SDK fulfils it itself
// for clients of older protocol versions): the first call answers with
// the question, the client's retry carries the user's answer. nil when
// the call has no session to ask through.
//
// An answer counts only if it answers a question this server put to this
// session: the question's key carries a random token the server keeps
// (per session, per staged change, used once, for questionTTL), so a
// tools/call that arrives with an answer nobody asked for, a guessed or
// replayed token, or one for another change applies nothing. A client
// that did not declare elicitation is never asked, and what it sends as
// an answer is ignored: a person must approve in a terminal.
func (s *server) elicitApproval(ctx context.Context, id string) hub.Asker {
	req := toolRequest(ctx)
	if req == nil || req.Session == nil {
		return nil
	}
	return func(_ context.Context, message string) (bool, bool, error) {
		if !canElicit(req) {
			return false, false, nil
		}
		var keys []string
		for k := range req.Params.InputResponses {
			if strings.HasPrefix(k, approvePrefix) {
				keys = append(keys, k)
			}
		}
		if len(keys) > 0 {
			unasked := fmt.Errorf("the approval answer for %s answers no question this session was asked (unknown, already used or expired), so nothing was applied; call resolve with action \"accept\" again to be asked anew, or ask the user to run `cchub review %s` in a terminal", id, id)
			if len(keys) > 1 {
				// Each is used up: a client cannot try tokens in bulk.
				for _, k := range keys {
					s.runs.answered(req.Session, strings.TrimPrefix(k, approvePrefix), id, message, time.Now())
				}
				return false, false, unasked
			}
			if !s.runs.answered(req.Session, strings.TrimPrefix(keys[0], approvePrefix), id, message, time.Now()) {
				return false, false, unasked
			}
			resp, ok := req.Params.InputResponses[keys[0]].(*mcp.ElicitResult)
			if !ok {
				return false, false, fmt.Errorf("the approval answer for %s is not an elicitation result, so nothing was applied; call resolve with action \"accept\" again to be asked anew", id)
			}
			yes, _ := resp.Content["approve"].(bool)
			return resp.Action == "accept" && yes, true, nil
		}
		token := s.runs.ask(req.Session, id, message, time.Now())
		return false, false, &needInput{requests: mcp.InputRequestMap{approvePrefix + token: &mcp.ElicitParams{
			Message: message,
			RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"approve": map[string]any{"type": "boolean", "title": "Apply the change"}},
				"required":   []string{"approve"},
			},
		}}}
	}
}

// canElicit says whether the calling client declared that it can ask its
// user (MCP elicitation): when it initialized the session (for clients of
// protocol 2026-07-28, with the session's first request), and, for those
// clients, in this request's capabilities too.
func canElicit(req *mcp.CallToolRequest) bool {
	init := req.Session.InitializeParams()
	if init == nil || init.Capabilities == nil || init.Capabilities.Elicitation == nil {
		return false
	}
	c := req.ClientCapabilities()
	return c != nil && c.Elicitation != nil
}
