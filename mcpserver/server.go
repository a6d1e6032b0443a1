package mcpserver

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/hub"
	"cchub/mcpserver/stdio"
	"cchub/textfmt"
)

// Version is reported to MCP clients.
const Version = "0.2.0"

// Instructions say once what every tool has in common (the tool list
// says only what is particular to each, and is paid for on every turn),
// and how to spend context well.
const Instructions = `cchub serves one code workspace. What every tool has in common:
- Paths are relative to the root; a path or paths left out means the whole workspace.
- Places are path:LINE, path:START-END or path:LINE:COL, 1-based and inclusive. Listed lines are LINE<TAB>text: copy the text without the number.
- A definition is named Name, Type.method or path:Name (read_symbol id, graph name, lsp symbol); path:LINE names the one around a line.
- Paging: offset is the first line, limit how many. Answers are kept near 8 KB: one that is cut says how many there are and the call that shows more.
- Globs (glob, include): without a slash they match names at any depth (*.go); with one, whole paths (src/**/*.{ts,tsx}). Ignored files are skipped.
- Structural patterns (search, rewrite): code with $X for one node and $$$X for any number; a name used twice must match the same text.
- Changes: edit, write and apply_patch write at once and answer the diagnostics they cause; rewrite and lsp rename stage a change (an id) that resolve shows, accepts or discards. A file changed since you read it must be read again.
- Errors say what to do next; some tools take more than the schema shows, and an answer names such an argument where it helps.
Work: find with glob, grep or search; outline a file, then read_symbol or read offset/limit just what you need.`

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
	return stdio.Serve(ctx, NewServer(h), os.Stdin, os.Stdout, stdio.Options{Warn: Warn})
}

// Sessions serves many MCP sessions over one hub (a shared hub's
// workspace): each Serve is one client's session on its own connection,
// one run, as Serve's is.
type Sessions struct{ srv *mcp.Server }

// NewSessions returns the server of h's sessions.
func NewSessions(h *hub.Hub) *Sessions { return &Sessions{srv: NewServer(h)} }

// Serve serves one session over in and out until the client closes its
// end or ctx ends.
func (s *Sessions) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	return stdio.Serve(ctx, s.srv, in, out, stdio.Options{Warn: Warn})
}

// Warn is where cchub mcp says what no client is told: a line on stderr,
// "cchub mcp: " and msg, quoted if it holds a control character (it may
// carry a path or a client's text, and stderr may be a terminal). Serve
// sends the transport's notes here, and the hub it serves is opened with
// it (hub.Options.Warn), so the hub's warnings go the same way.
func Warn(msg string) {
	fmt.Fprintln(os.Stderr, "cchub mcp:", textfmt.ShowPath(msg))
}
