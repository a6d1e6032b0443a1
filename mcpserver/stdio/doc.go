// Package stdio is the MCP server's transport: newline-delimited JSON-RPC
// on a reader and a writer (a process's stdin and stdout), as the SDK's
// StdioTransport speaks it, except that no line can end the session.
//
// The SDK's own reader gives up at the first line it cannot decode (bad
// JSON, a batch, an object as id, a line over its cap): the session ends
// without a JSON-RPC reply, and the agent loses every tool at once. Here
// each line is judged on its own (protocol.go): a good one goes to the
// SDK, a bad one gets the JSON-RPC error the spec asks for, and the next
// line is read as if nothing had happened.
//
// What it guarantees:
//   - no line ends the session, whatever its bytes; a request the server
//     cannot read is answered with an error by its id when it has a usable
//     one, and a notification (or a response from the client) is never
//     answered, only dropped with a note to Options.Warn;
//   - a line over Options.MaxLineBytes is read to its end without being
//     kept, and its request is answered by id, saying the limit;
//   - every frame written is one whole line: the SDK's answers and this
//     package's error replies never interleave;
//   - no more input is read while Options.MaxUnanswered of the client's
//     calls are unanswered (their answers made or unsent), so a client
//     that stops reading stdout holds the server to that many answers in
//     memory; the server's own calls to the client (sampling, elicitation)
//     do not count, so their answers are always read;
//   - the session ends when the input ends or the context is done, and
//     Serve returns within about a second: calls in flight are cancelled,
//     and one that ignores its context is left behind with a warning.
//
// It does not know about tools, hubs or workspaces: it carries any
// mcp.Server. It does not close the reader or the writer, which belong to
// the caller (the process).
package stdio
