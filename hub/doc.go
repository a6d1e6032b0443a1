// Package hub is cchub's composition root: one Hub per workspace root owns
// the workspace, its parse cache and (as later capabilities arrive) the
// language servers, the code graph and the debugger sessions.
//
// The MCP tool handlers and the CLI commands are thin calls into a Hub:
// they translate a request into a call on a package below and bound what
// goes back to a model. No logic about code lives here; no package below
// imports hub.
package hub
