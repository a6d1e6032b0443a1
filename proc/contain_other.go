//go:build unix && !linux

package proc

import (
	"fmt"
	"syscall"
)

// Supervise runs c as a child of this process in a group of its own and,
// when stop is closed, kills that group. Without a subreaper or cgroups
// (Linux's) and without a wait that leaves the child unreaped, it is
// weaker: a descendant that left the group escapes, and so does what the
// child left in its group when it exits on its own. started is called
// once the child runs, with its pid and "group".
func Supervise(c Contained, stop <-chan struct{}, started func(pid int, how string)) (int, error) {
	pid, err := syscall.ForkExec(c.Path, c.Args, &syscall.ProcAttr{
		Dir: c.Dir, Env: c.Env, Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		return -1, fmt.Errorf("proc: start %s: %w", c.Path, err)
	}
	started(pid, ByGroup)
	var ws syscall.WaitStatus // set before exited is closed
	exited := make(chan struct{})
	go func() { // ends when the child has exited
		defer close(exited)
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				return
			}
		}
	}()
	select {
	case <-exited:
	case <-stop:
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-exited
	}
	if ws.Exited() {
		return ws.ExitStatus(), nil
	}
	return -1, nil
}
