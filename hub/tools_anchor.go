package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/anchor"
)

type anchorIn struct {
	Path    string `json:"path" jsonschema:"the file the quoted code is said to be from, relative to the root"`
	Snippet string `json:"snippet" jsonschema:"the quoted code, as it was quoted (indentation, trailing spaces and diff markers may differ)"`
	Comment string `json:"comment,omitempty" jsonschema:"the review comment the quote belongs to (helps the optional model tier)"`
	Base    string `json:"base,omitempty" jsonschema:"place the quote in git diff BASE (the working tree against this revision, new side) instead of in the files"`
	Diff    string `json:"diff,omitempty" jsonschema:"place the quote in this unified diff (new side) instead of in the files"`
}

const anchorDescription = "Anchor a quoted snippet to its exact line range, or say it cannot: first in the named file, then in exactly one other file (of the diff or the workspace), " +
	"then, if a model is available, at the lines a model copies from the file's diff. Several matches are never guessed between: the candidates are listed. " +
	"Answers the tier that placed it, path:START-END and the verbatim lines."

func addAnchorTools(s *mcp.Server, h *Hub) {
	addTool(s, h, toolSpec{name: "anchor", description: anchorDescription, readOnly: true,
		hint: "quote fewer lines"},
		func(ctx context.Context, _ *Run, in anchorIn) (string, error) {
			o, err := h.Anchor(ctx, anchor.Request{Path: in.Path, Snippet: in.Snippet, Comment: in.Comment, Base: in.Base, DiffText: in.Diff}, samplingModel(ctx))
			if err != nil {
				return "", err
			}
			return o.Text(), nil
		})
}

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
