// Package dapsession runs one debugger session over the Debug Adapter
// Protocol: an adapter (Delve's `dlv dap`, debugpy, lldb-dap) started for
// a launch, driven through breakpoints, steps and inspection of a paused
// frame, and ended by its caller, by its hard time limit, or by the hub's
// end, whichever comes first.
//
// Invariants:
//   - Messages are framed by package framing and decoded by go-dap's
//     codec: one framing for LSP and DAP.
//   - Every wait is bounded; the time limit is enforced by the session's
//     own timer, not by its caller's next call.
//   - When a session ends, nothing of it survives: the adapter's and the
//     debuggee's process groups are killed after a short grace, and a
//     watchdog process kills them too if the hub itself dies.
//
// What it does not do: decide that a run has one session at a time (the
// hub does), or bound output for a model (the MCP front end does).
package dapsession
