//go:build unix && !linux

package proc

import "syscall"

// startTime is 0 for a process that exists: without /proc a reused pid
// cannot be told from its first owner, so a sweep keeps its directory.
func startTime(pid int) (uint64, error) {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return 0, errGone
	}
	return 0, nil
}

// killMarked does nothing without /proc: a process's environment cannot
// be read.
func killMarked(name string) []int { return nil }
