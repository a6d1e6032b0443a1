// Package lspmux runs the project's language servers for the hub: which
// server owns a file (a registry of specs, a root marker between the file
// and the workspace root, and the server's binary, all three), starting
// it on the first need and stopping it when idle, keeping it told of the
// files the hub writes, and waiting, after a write, for the diagnostics
// of the new content to settle (or, for typescript-language-server, which
// publishes only for open files, asking its tsserver for every file of
// the project: project.go). Before a query by line and column is
// asked, its place is checked against the file as it is and as the asker
// read it (Place, place.go): a place that moved, or holds no name, is
// answered with where the name is now and the call that asks about it.
//
// Invariants:
//   - Nothing starts with the Mux. A server starts on the first request
//     that needs it; concurrent first requests share one start.
//   - Every server runs in its own process group, is reaped, and dies
//     with the Mux (Close) or with the hub's process (Pdeathsig).
//   - Positions leave this package 1-based, in characters (LSP's are
//     0-based UTF-16 code units); paths leave it relative to the
//     workspace root.
//   - A diagnostics answer is either settled or says it is not ("not
//     ready after 5s"): a timeout never looks clean.
//
// What it does not do: decide what a run has already been told (that is
// package ledger), bound output for a model (the MCP front end), or write
// files.
package lspmux
