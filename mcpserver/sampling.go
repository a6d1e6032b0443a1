// Sampling is deprecated as of MCP 2026-07-28 (SEP-2577) with no
// replacement in the protocol; it stays fully functional for at least
// twelve months, and it is the only way a server reaches the client's own
// model. The anchor's model tier asks for it through the current
// multi-round-trip input requests (SEP-2322), and only when the client
// says it samples.
//
//lint:file-ignore SA1019 sampling is deprecated without a replacement; see above.

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/anchor"
)

// samplingModel is the calling client's own model, through MCP sampling,
// when the client offers it; nil otherwise.
func samplingModel(ctx context.Context) anchor.Completer {
	req := toolRequest(ctx)
	if req == nil || req.Session == nil {
		return nil
	}
	init := req.Session.InitializeParams()
	if init == nil || init.Capabilities == nil || init.Capabilities.Sampling == nil {
		return nil
	}
	return &sampling{req: req}
}

// sampling asks the client's model as a multi-round-trip request: the
// first call answers with the request, the client's retry carries the
// model's answer.
type sampling struct{ req *mcp.CallToolRequest }

const samplingKey = "anchor-model"

func (s *sampling) Complete(ctx context.Context, m anchor.Messages) (string, error) {
	// The answer decodes as one result type or the other, by protocol
	// version.
	switch resp := s.req.Params.InputResponses[samplingKey].(type) {
	case *mcp.CreateMessageResult:
		if tc, ok := resp.Content.(*mcp.TextContent); ok {
			return tc.Text, nil
		}
		return "", errors.New("the client's model answered without text")
	case *mcp.CreateMessageWithToolsResult:
		var text strings.Builder
		for _, c := range resp.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if text.Len() == 0 {
			return "", errors.New("the client's model answered without text")
		}
		return text.String(), nil
	}
	return "", fmt.Errorf("%w: %w", anchor.ErrDeferred, &needInput{requests: mcp.InputRequestMap{samplingKey: &mcp.CreateMessageParams{
		SystemPrompt: m.System,
		Messages:     []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: m.User}}},
		MaxTokens:    2000,
	}}})
}
