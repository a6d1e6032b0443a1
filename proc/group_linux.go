package proc

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// groupAttr puts the child in a group of its own and, with deathSignal,
// has the kernel kill it when its parent dies, however it dies.
func groupAttr(deathSignal bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	if deathSignal {
		a.Pdeathsig = syscall.SIGKILL
	}
	return a
}

// awaitExit blocks until the child pid has exited, leaving it a zombie:
// while it is, its pid and so its group's id cannot be reused. It
// reports false when it could not wait (the child is then reaped
// without it).
func awaitExit(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != syscall.EINTR {
			return err == nil
		}
	}
}
