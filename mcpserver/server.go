package mcpserver

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/hub"
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

// server is one MCP server over a hub: the SDK's server with cchub's
// tools, and the hub run of each MCP session.
type server struct {
	h    *hub.Hub
	runs sessions
	mcp  *mcp.Server
}

// NewServer returns an MCP server whose tools call into h. Each MCP
// session is one conversation: it gets one hub run, ended with it.
func NewServer(h *hub.Hub) *mcp.Server { return newServer(h).mcp }

func newServer(h *hub.Hub) *server {
	s := &server{h: h, runs: sessions{h: h}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "cchub", Version: Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Capabilities: &mcp.ServerCapabilities{},
	})
	// The order is the order of tools/list: finding, reading, changing,
	// then the servers, the debugger, the graph, staged changes, anchors.
	addGlob(s)
	addGrep(s)
	addRead(s)
	addOutline(s)
	addReadSymbol(s)
	addEdit(s)
	addWrite(s)
	addApplyPatch(s)
	addSearch(s)
	addLSP(s)
	addDiagnostics(s)
	addDebug(s)
	addGraph(s)
	addRewrite(s)
	addResolve(s)
	addAnchor(s)
	return s
}

// Serve runs the MCP server on stdio until the client closes its end or
// ctx ends (a signal), then returns within about a second, having
// cancelled the tool calls in flight. A malformed line gets a JSON-RPC
// error and the session goes on (see package stdio). What the client is
// not told goes to stderr.
func Serve(ctx context.Context, h *hub.Hub) error {
	warn := func(msg string) { fmt.Fprintln(os.Stderr, "cchub mcp:", msg) }
	return stdio.Serve(ctx, NewServer(h), os.Stdin, os.Stdout, stdio.Options{Warn: warn})
}
