package proc

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// DefaultGrace is how long a stopped group has between the interrupt and
// the kill: enough for git to remove its lock files or a server to flush.
const DefaultGrace = 2 * time.Second

// DefaultWaitDelay bounds how long Wait waits, once the child has exited,
// for the pipes os/exec copies (a Stdout or Stderr that is no *os.File,
// such as a Tail) to be closed by whatever still holds them.
const DefaultWaitDelay = 5 * time.Second

// Cmd is a child process to start: os/exec's fields that a caller sets,
// and how the child is to be stopped.
type Cmd struct {
	Name string   // the program: a path, or a name os/exec looks up in PATH
	Args []string // its arguments, without its name
	Dir  string   // its working directory; "" is this process's
	Env  []string // its environment; nil is this process's

	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// ExtraFiles are the child's file descriptors 3, 4, ... as
	// exec.Cmd's; they stay the caller's, to close once Start returns.
	ExtraFiles []*os.File

	// Interrupt is the signal a stop sends the group first; SIGINT when
	// zero.
	Interrupt syscall.Signal
	// Grace is how long the group has after the interrupt before it is
	// killed; DefaultGrace when zero.
	Grace time.Duration
	// WaitDelay is os/exec's: DefaultWaitDelay when zero.
	WaitDelay time.Duration
	// OutliveParent leaves out the parent-death signal, for a child whose
	// work is to act once this process has died (a watchdog).
	OutliveParent bool
	// ClosePipesAtExit closes this process's ends of the pipes StdinPipe
	// and StdoutPipe made once the child is reaped, as os/exec's Wait
	// does: for a conversation that ends with the child even while
	// something outside its group holds the other end. What the child
	// wrote and was not read by then is lost; leave it false to read a
	// child's output to its end.
	ClosePipesAtExit bool

	childEnds  []*os.File // the child's ends of the pipes: closed here once it has started
	parentEnds []*os.File // this process's ends: closed here if it fails to start
}

// Command is a Cmd that runs name with args, like exec.Command.
func Command(name string, args ...string) *Cmd {
	return &Cmd{Name: name, Args: args}
}

// StdinPipe returns a pipe to the child's stdin. Closing it is the
// caller's; a write after the child has exited fails.
func (c *Cmd) StdinPipe() (io.WriteCloser, error) {
	if c.Stdin != nil {
		return nil, errors.New("proc: Stdin already set")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.Stdin = r
	c.childEnds = append(c.childEnds, r)
	c.parentEnds = append(c.parentEnds, w)
	return w, nil
}

// StdoutPipe returns a pipe from the child's stdout. Unlike
// exec.Cmd.StdoutPipe, reaping the child does not close it: a reader
// beside the reaper reads all the child wrote, then EOF once the child
// and its group are gone. Closing it is the caller's.
func (c *Cmd) StdoutPipe() (io.ReadCloser, error) {
	if c.Stdout != nil {
		return nil, errors.New("proc: Stdout already set")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.Stdout = w
	c.childEnds = append(c.childEnds, w)
	c.parentEnds = append(c.parentEnds, r)
	return r, nil
}

// Start starts the child in a group of its own and a goroutine that
// reaps it. When ctx ends before the child, the child is stopped (Stop);
// context.Background() leaves its end to the caller. A Cmd starts once.
func (c *Cmd) Start(ctx context.Context) (*Process, error) {
	cmd := exec.Command(c.Name, c.Args...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	cmd.ExtraFiles = c.ExtraFiles
	cmd.SysProcAttr = groupAttr(!c.OutliveParent)
	cmd.WaitDelay = orDefault(c.WaitDelay, DefaultWaitDelay)
	err := cmd.Start()
	closeAll(c.childEnds)
	c.childEnds = nil
	if err != nil {
		closeAll(c.parentEnds)
		c.parentEnds = nil
		return nil, err
	}
	p := &Process{
		cmd:       cmd,
		pid:       cmd.Process.Pid,
		interrupt: c.Interrupt,
		grace:     orDefault(c.Grace, DefaultGrace),
		done:      make(chan struct{}),
	}
	if c.ClosePipesAtExit {
		p.pipes = c.parentEnds
	}
	c.parentEnds = nil
	if p.interrupt == 0 {
		p.interrupt = syscall.SIGINT
	}
	// Set before the reaper starts, which reads it.
	p.unwatch = context.AfterFunc(ctx, p.Stop)
	go p.reap()
	return p, nil
}

// Run starts the child and waits for it; its error is Wait's.
func (c *Cmd) Run(ctx context.Context) error {
	p, err := c.Start(ctx)
	if err != nil {
		return err
	}
	return p.Wait()
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
