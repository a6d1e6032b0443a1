//go:build unix && !linux

package proc

import "syscall"

// groupAttr puts the child in a group of its own; only Linux can also
// tie its life to its parent's, so deathSignal is not honoured here.
func groupAttr(deathSignal bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// awaitExit cannot wait without reaping here: the child is reaped first
// and what it left in its group is left to its owner.
func awaitExit(pid int) bool { return false }
