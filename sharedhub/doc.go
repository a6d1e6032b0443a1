// Package sharedhub is the user's shared hub: one process per user, build
// and environment that serves every `cchub mcp` session on the machine, so
// that sessions on one workspace share its language servers, watcher,
// listing, token index and code graph instead of each starting its own.
//
// A `cchub mcp` process is a front: it finds the hub's socket, or starts
// the hub (the same binary, re-executed detached as `cchub hub-serve`)
// under a start lock, says in one hello line which workspace root and
// flags it serves, and then carries its stdio to the socket byte for byte.
// The hub serves the MCP session on the socket as `cchub mcp` serves
// stdio (package stdio), with one hub.Hub and one MCP server per root and
// flags, so each session is its own conversation (run) on a shared
// workspace.
//
// Invariants:
//   - The channel is private to the user: the socket lies in the user's
//     runtime directory ($XDG_RUNTIME_DIR/cchub or /run/user/UID/cchub,
//     else /tmp/cchub-hub-UID; $CCHUB_HUB_DIR names another),
//     which must be a real directory of this uid with mode 0700; the
//     socket is 0600; and each side checks the other's uid (SO_PEERCRED)
//     and closes the connection of another.
//   - A hub serves only fronts of its own build and environment: the
//     socket's name is a hash of the executable file's identity (device,
//     inode, size, times: any build written is another file) and of the
//     environment that changes what the servers answer (PATH, Go's and
//     Python's settings, cchub's own variables, TMPDIR …), so another
//     build or another environment starts a hub of its own.
//   - Two fronts starting at once make one hub (a file lock in the
//     directory is held while the hub is started and its socket awaited).
//   - A hub with no session for its idle time (10 minutes by default,
//     $CCHUB_HUB_IDLE) exits; a workspace with no session for that time is
//     closed (its servers stopped) before.
//   - What goes wrong with sharing never costs a session: a front that
//     cannot make or join the socket serves the session in its own
//     process, with a one-line note on stderr. A hub that dies under a
//     live session is started again by the front, which then opens the
//     session anew on it; the calls in flight at that moment are answered
//     with an error saying to call again.
//
// What it does not do: share a language server between two environments
// or two builds; carry anything but newline-delimited JSON-RPC after the
// hello; serve another machine (no port is opened).
package sharedhub
