// Package mcpserver is cchub's MCP front end: it serves a hub.Hub's
// capabilities to coding agents as MCP tools, over stdio (package stdio).
//
// One file per tool (glob.go … debug.go) holds its input type, the
// description a model reads, its annotations and its handler. A handler
// only translates: arguments into a call on the hub, the hub's result into
// its Text(). Everything else a tool needs is done once, here:
//
//   - tool.go: addTool registers a tool from its input type (the schema
//     from struct tags) and decodes arguments forgivingly: a misnamed
//     field is answered with the name meant ("did you mean") and an
//     example call, "10" is taken for 10 and a lone path for a list;
//   - bound.go: every answer is cut to what a model's context can take
//     (2000 lines, 50 KB); the whole text goes to a spill file under
//     .cchub/spill and the answer ends with where it is and how to narrow.
//     Errors are clipped too. The bound is this package's alone: the CLI
//     prints everything;
//   - sessions.go: an MCP session is one conversation, one hub.Run, ended
//     (with its debug session) when the session ends, and the approval
//     questions it was asked (each by a random token, used once, expiring);
//   - sampling.go and elicitation.go: the client's own model (anchor's
//     model tier) and its user (approving a staged change), asked as
//     multi-round-trip requests. An approval counts only as the answer to
//     a question this server asked this session, of a client that declared
//     elicitation.
//
// It does not decide anything about code, files or policy: the hub and
// the packages below it do. The text of every answer is the hub result's
// Text(); only the bound, the clipped errors and the argument errors are
// written here.
package mcpserver
