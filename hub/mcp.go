package hub

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/mcpserver/stdio"
)

// Version is reported to MCP clients.
const Version = "0.2.0"

// Instructions tell an agent, in a few lines, how to spend its context
// well, and the one way every tool writes places and lines.
const Instructions = `cchub serves one code workspace. Paths are relative to its root.
Places are written path:LINE, path:START-END or path:LINE:COL (1-based, inclusive); listed source lines are LINE<TAB>text.
- Find files with glob, text with grep, code shapes with search.
- If you know the symbol, read_symbol id=path:Name (or path:Type.method) reads just it. Otherwise outline the file (kind, name, signature, START-END per symbol) and read_symbol or read offset/limit what you need.
- edit old_string must match one place; copy it from what you read, without the line numbers.
- Long results are cut; the note at the end says how to continue or narrow.`

// NewMCPServer returns an MCP server whose tools call into h.
func NewMCPServer(h *Hub) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "cchub", Version: Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Capabilities: &mcp.ServerCapabilities{},
	})
	addLocateTools(s, h)
	addEditTools(s, h)
	addSearchTools(s, h)
	addLSPTools(s, h)
	addDebugTools(s, h)
	addGraphTools(s, h)
	addRewriteTools(s, h)
	addAnchorTools(s, h)
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

// sessionRun is the Run of the request's MCP session, made on its first
// call and ended when the session ends.
func (h *Hub) sessionRun(req *mcp.CallToolRequest) *Run {
	if req == nil || req.Session == nil {
		return NewRun()
	}
	ss := req.Session
	h.sessMu.Lock()
	if h.sessions == nil {
		h.sessions = map[*mcp.ServerSession]*Run{}
	}
	r, ok := h.sessions[ss]
	if !ok {
		r = h.OpenRun()
		h.sessions[ss] = r
		go func() { // owned by the session: returns when it closes
			ss.Wait()
			h.sessMu.Lock()
			delete(h.sessions, ss)
			h.sessMu.Unlock()
			h.EndRun(r)
		}()
	}
	h.sessMu.Unlock()
	return r
}

// Serve runs the MCP server on stdio until the client closes its end or
// ctx ends (a signal), then returns within about a second, having
// cancelled the tool calls in flight. A malformed line gets a JSON-RPC
// error and the session goes on (see package stdio). What the client is not
// told goes to stderr.
func Serve(ctx context.Context, h *Hub) error {
	warn := func(msg string) { fmt.Fprintln(os.Stderr, "cchub mcp:", msg) }
	return stdio.Serve(ctx, NewMCPServer(h), os.Stdin, os.Stdout, stdio.Options{Warn: warn})
}
