package proc

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Process is a started child, reaped by a goroutine of its own.
type Process struct {
	cmd       *exec.Cmd
	pid       int
	interrupt syscall.Signal
	grace     time.Duration
	unwatch   func() bool // ends the watch on Start's context
	pipes     []*os.File  // closed once reaped (Cmd.ClosePipesAtExit)

	mu     sync.Mutex
	reaped bool // the leader is reaped: its pid, the group's id, is free for reuse

	done chan struct{} // closed once the leader is reaped
	err  error         // how it exited, once done is closed
}

// Pid is the child's process id, which is also its group's id.
func (p *Process) Pid() int { return p.pid }

// Done is closed once the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits until the child has been reaped and returns how it exited,
// as exec.Cmd.Wait says it. Any number of goroutines may wait.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Stop interrupts the child's group, kills it if the child has not
// exited within the grace, and returns once the child is reaped.
func (p *Process) Stop() {
	p.signal(p.interrupt)
	t := time.NewTimer(p.grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.Kill()
	}
}

// Kill kills the child's group now and returns once the child is reaped.
func (p *Process) Kill() {
	p.signal(syscall.SIGKILL)
	<-p.done
}

// signal sends sig to the group while its leader is unreaped.
func (p *Process) signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		_ = syscall.Kill(-p.pid, sig)
	}
}

// reap waits for the leader to exit, kills what it left in its group
// where the OS lets the group's id be held meanwhile, and reaps it.
func (p *Process) reap() {
	if awaitExit(p.pid) {
		p.mu.Lock()
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		p.reaped = true
		p.mu.Unlock()
		p.err = p.cmd.Wait()
	} else {
		err := p.cmd.Wait()
		p.mu.Lock()
		p.reaped = true
		p.mu.Unlock()
		p.err = err
	}
	p.unwatch()
	closeAll(p.pipes)
	close(p.done)
}

// KillGroup kills the process group pgid, one that proc did not start
// (a debuggee in a group of its own, told by its debugger) or that must
// die after its starter has (by a watchdog). Its caller vouches that the
// group is still the one it means.
func KillGroup(pgid int) error {
	return syscall.Kill(-pgid, syscall.SIGKILL)
}
