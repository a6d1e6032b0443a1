// Package proc starts child processes that cannot outlive their use:
// language servers, debug adapters, git, a cchub child. It is the one
// place that knows how a child is started, stopped and reaped, and it
// keeps the end of what a child wrote (Tail) for the message when it
// dies.
//
// Invariants:
//   - Every child runs in a process group of its own, and every signal
//     proc sends goes to the group, not just the child: what the child
//     started (hooks, filters, a debuggee, a compiler) ends with it.
//   - Every child started is reaped, by a goroutine of its Process that
//     ends when the child has exited; the owner calls Wait, Stop or Kill
//     to learn how it ended and never calls the wait system call itself.
//   - A group is signalled only while its leader is unreaped, so its id
//     cannot have been reused by an unrelated group. On Linux, when the
//     leader exits, what it left running in its group is killed before
//     the leader is reaped.
//   - Stopping interrupts before it kills: the group gets the interrupt
//     (SIGINT unless the Cmd says otherwise), then SIGKILL after a grace.
//     A context ending stops the child this way.
//   - Wait cannot hang on a grandchild that left the group holding a pipe
//     proc's os/exec made: the wait delay (DefaultWaitDelay) bounds it.
//   - Where the OS has a parent-death signal (Linux), a child is killed
//     when the thread that started it dies, however the parent dies,
//     unless it is meant to outlive its parent (Cmd.OutliveParent: a
//     watchdog). Go keeps its threads for the life of the process unless
//     a goroutine locked to one ends while locked; start no child from
//     such a goroutine.
//   - A tree that must end whole, setsid daemons included (a debug
//     adapter, its debuggee and what that starts), runs under Supervise in
//     a process that is a supervisor and nothing else. On Linux it is
//     held in this order: a cgroup v2 of its own, made under the
//     supervisor's cgroup where that is writable and has cgroup.kill
//     (5.14), the child started into it (clone3 CLONE_INTO_CGROUP) and
//     the tree ended by cgroup.kill, which no fork escapes; and always the
//     supervisor as child subreaper, so orphans re-parent to it, with
//     every descendant /proc shows killed at the end and all reaped
//     (without a cgroup, this alone). Elsewhere, the child's group only.
//
// What it does not do: choose a command's arguments or environment
// (package gitcmd does, for git), bound what a child prints on stdout
// (its reader does), or, outside Supervise, reach a grandchild that made
// a group or session of its own: the kernel's parent-death signal
// reaches only the direct child. It runs on Unix only.
package proc
