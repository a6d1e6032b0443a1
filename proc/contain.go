package proc

// Contained is a program that a supervisor runs (Supervise) so that
// nothing it starts outlives it: not a debuggee, nor a daemon that called
// setsid to leave its group and session.
type Contained struct {
	Path string   // the program, resolved (exec.LookPath)
	Args []string // its argv: Args[0] is its name
	Dir  string   // its working directory; "" is the supervisor's
	Env  []string // its environment
	// NoCgroup skips the cgroup even where one is offered: containment
	// by the subreaper alone (for tests, and where a cgroup misbehaves).
	NoCgroup bool
}

// Containment names, in what Supervise reports, how the tree is held.
const (
	ByCgroup    = "cgroup"    // "cgroup <dir>": a cgroup v2 of its own, ended by cgroup.kill
	BySubreaper = "subreaper" // the supervisor is the subreaper and walks /proc for descendants
	ByGroup     = "group"     // no subreaper (not Linux): the child's process group only
)
