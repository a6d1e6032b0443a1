// Package hub is cchub's composition root: one Hub per workspace root owns
// the workspace, its parse cache, the language servers, the store, the
// code graph and the debug sessions, and is the one way both front ends
// reach a capability. The MCP server (package mcpserver) and the CLI
// (cmd/cchub) translate a request into a call on a Hub and print what it
// returns.
//
// What the hub adds to the packages below it is what spans them:
//   - runs (run.go): a conversation, an MCP session or one CLI call (or a
//     named CLI run kept in the store), remembers what it read, so an
//     edit to a file changed since is refused, and what it was told;
//   - edits (edit.go) pass the files they wrote through the language
//     servers, and the answer carries only the diagnostics the run was not
//     told before (afterwrite.go);
//   - staged changes (staging.go, rewrite.go): rewrites, renames and
//     patches commit through one journaled, all-or-nothing commit, and
//     the approval policy (approval.go) says whether an agent may accept
//     one or a person must;
//   - the graph, lsp, diagnostics, debug, anchor, blast and search
//     capabilities, each in the file of its name.
//
// The hub never prints. What the person running it should know and no
// answer carries (a notice, also told to every run through Notice; an
// interrupted commit finished or undone at Open; a file watcher that
// cannot see every change) goes to the hook its front end gave Open
// (Options.Warn): the CLI prints it on stderr, cchub mcp with its own notes
// on stderr, each with control characters quoted. A hub opened without
// one (tests, benchmarks, a library user) discards these: a notice still
// reaches every run's answers, and the rest says nothing an answer needs.
//
// Every method returns a typed result with json tags (complete data, for
// the CLI's --json) and a Text() that is what a model or a person reads.
// Cutting an answer to fit a model's context is not done here: that is the
// MCP front end's job. No logic about code lives here either: parsing,
// matching and formatting code facts belong to the packages below, and no
// package below imports hub.
package hub
