package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/hub"
)

// elicitApproval asks the user of the calling client through MCP
// elicitation, as a multi-round-trip request (the SDK fulfils it itself
// for clients of older protocol versions): the first call answers with
// the question, the client's retry carries the user's answer. nil when
// the call has no session to ask through.
func elicitApproval(ctx context.Context, id string) hub.Asker {
	req := toolRequest(ctx)
	if req == nil || req.Session == nil {
		return nil
	}
	key := "approve-" + id
	return func(_ context.Context, message string) (bool, bool, error) {
		if resp, ok := req.Params.InputResponses[key].(*mcp.ElicitResult); ok {
			yes, _ := resp.Content["approve"].(bool)
			return resp.Action == "accept" && yes, true, nil
		}
		init := req.Session.InitializeParams()
		if init == nil || init.Capabilities == nil || init.Capabilities.Elicitation == nil {
			return false, false, nil
		}
		return false, false, &needInput{requests: mcp.InputRequestMap{key: &mcp.ElicitParams{
			Message: message,
			RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"approve": map[string]any{"type": "boolean", "title": "Apply the change"}},
				"required":   []string{"approve"},
			},
		}}}
	}
}
