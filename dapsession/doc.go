// Package dapsession runs one debugger session over the Debug Adapter
// Protocol: an adapter (Delve's `dlv dap`, debugpy, lldb-dap) started for
// a launch, driven through breakpoints, steps and inspection of a paused
// frame, and ended by its caller, by its hard time limit, or by the hub's
// end, whichever comes first.
//
// It is also the debug tool's policy, so that the hub only holds a run's
// one session: Start turns a launch Request into a session (the adapter
// for the program's language, from the workspace's configuration;
// breakpoints parsed and each line checked against its expected text, a
// stale one refusing the launch; the time limit), Session.Do runs every
// other op, and a Result's Text is what a model reads. An adapter's
// refusal is an *Error that keeps the DAP error's id (Delve's are named
// here) under the words the answer shows.
//
// Invariants:
//   - Messages are framed by package framing and decoded by go-dap's
//     codec: one framing for LSP and DAP.
//   - Every wait is bounded; the time limit is enforced by the session's
//     own timer, not by its caller's next call.
//   - When a session ends, nothing of it survives: not the adapter, the
//     debuggee, nor what the debuggee started, even in a session of its
//     own (setsid); and so when the hub is killed outright. The adapter
//     runs under a supervisor, the cchub binary re-executed
//     (CCHUB_DAP_SUPERVISOR=1), which is its parent and outlives a killed
//     hub. It holds the session's processes, in this order of preference
//     (proc.Supervise): (1) a cgroup v2 of their own, made under the
//     supervisor's cgroup when the kernel offers a writable one with
//     cgroup.kill (5.14), the adapter started into it (clone3
//     CLONE_INTO_CGROUP) and the whole cgroup killed at the end, then
//     removed; (2) else, the common case in containers and CI, the
//     supervisor as child subreaper: orphans (setsid daemons included)
//     re-parent to it, and at the end it kills every descendant /proc
//     shows. In both it reaps them all. Off Linux only the adapter's
//     group is killed. CCHUB_NO_CGROUP=1 skips (1). Session.Containment
//     says which one a session got.
//   - The session ends its processes by closing the supervisor's control
//     pipe after the adapter was asked to disconnect and given a second;
//     the kernel closes it when the hub dies. The supervisor also ends
//     them when the adapter exits, and removes the binary built for the
//     session.
//   - Workspace files are read and stat'ed through workspace.Root, never
//     by their absolute path: an answer names a place outside the root
//     (the Go runtime's sources, a symlink that leads out) but shows no
//     line of it.
//
// What it does not do: decide that a run has one session at a time (the
// hub does), or bound output for a model (the MCP front end does).
package dapsession
