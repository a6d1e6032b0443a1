package hub

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is reported to MCP clients.
const Version = "0.1.0"

// Instructions tell an agent, in a few lines, how to spend its context well.
const Instructions = `cchub serves one code workspace. Paths are relative to its root; lines are 1-based.
- Find files with glob and text with grep; both answer with paths and line numbers.
- Before reading a source file, outline it: you get every symbol with its exact line range.
- Then read only what you need: read_symbol with the id outline prints (path:line:name), or read with offset/limit.
- Long results are cut and saved under .cchub/; the cut note says how to narrow.`

// NewMCPServer returns an MCP server whose tools call into h.
func NewMCPServer(h *Hub) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "cchub", Version: Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Capabilities: &mcp.ServerCapabilities{},
	})
	addLocateTools(s, h)
	addEditTools(s, h)
	addSearchTools(s, h)
	return s
}

// textResult is the one shape every tool answers in: text for a model,
// bounded, and marked as an error when the call failed so the model reads
// the error's advice instead of retrying blindly.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func errorResult(err error) *mcp.CallToolResult {
	r := textResult(err.Error())
	r.IsError = true
	return r
}

// tool adapts a hub call that produces text into an MCP handler; errors
// become tool errors (isError) carrying the teaching message.
// The MCP session is the conversation: it gets one Run.
func tool[In any](h *Hub, name, hint string, run func(ctx context.Context, r *Run, in In) (string, error)) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		text, err := run(ctx, h.sessionRun(req), in)
		if err != nil {
			return errorResult(err), nil, nil
		}
		return textResult(h.Bounded(name, text, hint)), nil, nil
	}
}

// sessionRun is the Run of the request's MCP session, made on its first
// call and forgotten when the session ends.
func (h *Hub) sessionRun(req *mcp.CallToolRequest) *Run {
	if req == nil || req.Session == nil {
		return NewRun()
	}
	ss := req.Session
	r, created := h.runs.get(ss)
	if created {
		go func() { // owned by the session: returns when it closes
			ss.Wait()
			h.runs.end(ss)
		}()
	}
	return r
}

// Serve runs the MCP server on stdio until the client goes away or ctx ends.
func Serve(ctx context.Context, h *Hub) error {
	return NewMCPServer(h).Run(ctx, &mcp.StdioTransport{})
}
