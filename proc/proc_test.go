package proc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gone says pid no longer runs: it does not exist, or it is a zombie
// waiting for a parent (an init that reaps slowly) to reap it.
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false // no /proc: only kill could tell, and it said the pid is there
	}
	// "pid (comm) S ...": the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// goneWithin polls until pid no longer runs or d has passed.
func goneWithin(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if gone(pid) {
			return true
		}
	}
	return gone(pid)
}

// readPid reads the first line of r as a process id.
func readPid(t *testing.T, r *bufio.Reader) int {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read pid: %v (got %q)", err, line)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// started starts c with its stdout piped to the returned reader.
func started(t *testing.T, ctx context.Context, c *Cmd) (*Process, *bufio.Reader) {
	t.Helper()
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	p, err := c.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return p, bufio.NewReader(out)
}

// ready reads the child's "ready" line, said once its traps are set.
func ready(t *testing.T, r *bufio.Reader) {
	t.Helper()
	if line, _ := r.ReadString('\n'); line != "ready\n" {
		t.Fatalf("first line %q, want ready", line)
	}
}

func TestCancelKillsGrandchild(t *testing.T) {
	c := Command("sh", "-c", "sleep 100 & echo $!; wait")
	ctx, cancel := context.WithCancel(context.Background())
	p, r := started(t, ctx, c)
	grandchild := readPid(t, r)
	cancel()
	err := p.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("Wait = %v, want an exit error", err)
	}
	if !goneWithin(grandchild, 5*time.Second) {
		syscall.Kill(grandchild, syscall.SIGKILL)
		t.Fatalf("the grandchild %d outlived its group's stop", grandchild)
	}
}

func TestStopInterruptsFirst(t *testing.T) {
	// The child answers the interrupt; were it killed first, it could not.
	c := Command("sh", "-c", `trap 'echo interrupted; exit 3' INT; echo ready; while :; do sleep 0.05; done`)
	c.Grace = 10 * time.Second
	p, r := started(t, context.Background(), c)
	ready(t, r)
	start := time.Now()
	p.Stop()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Stop took %v: the interrupt was not heeded", took)
	}
	rest, _ := io.ReadAll(r)
	if string(rest) != "interrupted\n" {
		t.Errorf("the child said %q after Stop, want it to have trapped the interrupt", rest)
	}
	var ee *exec.ExitError
	if err := p.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("Wait = %v, want exit status 3", err)
	}
}

func TestStopKillsAfterGrace(t *testing.T) {
	// An ignored SIGINT is inherited by sleep: only the kill ends them.
	c := Command("sh", "-c", `trap '' INT; echo ready; sleep 100`)
	c.Grace = 200 * time.Millisecond
	p, r := started(t, context.Background(), c)
	ready(t, r)
	start := time.Now()
	p.Stop()
	took := time.Since(start)
	if took < c.Grace || took > 5*time.Second {
		t.Errorf("Stop took %v, want the grace (%v) and little more", took, c.Grace)
	}
	var ee *exec.ExitError
	if err := p.Wait(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("Wait = %v, want killed", err)
	}
}

func TestExitKillsWhatTheLeaderLeft(t *testing.T) {
	// The leader exits at once; the sleep it leaves holds stdout open.
	// The reader sees EOF because the rest of the group is killed.
	c := Command("sh", "-c", "sleep 100 & echo $!")
	p, r := started(t, context.Background(), c)
	grandchild := readPid(t, r)
	read := make(chan error, 1)
	go func() { _, err := io.ReadAll(r); read <- err }()
	select {
	case err := <-read:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		syscall.Kill(grandchild, syscall.SIGKILL)
		t.Fatal("stdout stayed open after its writer's group leader exited")
	}
	if err := p.Wait(); err != nil {
		t.Fatalf("Wait = %v", err)
	}
	if !goneWithin(grandchild, 5*time.Second) {
		syscall.Kill(grandchild, syscall.SIGKILL)
		t.Fatalf("the grandchild %d outlived its leader", grandchild)
	}
}

// outsider is a shell script whose child leaves the group (setsid),
// holding stdout when hold is "stdout", else stderr; the script prints
// the child's pid once it has left, and exits.
func outsider(t *testing.T, hold string) *Cmd {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	redirect := ">/dev/null"
	if hold == "stdout" {
		redirect = "2>/dev/null"
	}
	// The child exits only once the test has read the pid (release):
	// with ClosePipesAtExit, its exit closes the pipe the pid is read from.
	c := Command("sh", "-c", `setsid sh -c 'echo $$ >pid.new && mv pid.new pid; exec sleep 100' `+redirect+` &
while [ ! -e pid ]; do sleep 0.01; done; cat pid; while [ ! -e go ]; do sleep 0.01; done`)
	c.Dir = t.TempDir()
	return c
}

// release lets an outsider's child exit.
func release(t *testing.T, c *Cmd) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.Dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWaitDelayBoundsWait(t *testing.T) {
	// The grandchild keeps the stderr pipe os/exec copies into the Tail:
	// only the wait delay lets Wait return.
	c := outsider(t, "stderr")
	c.Stderr = NewTail(100)
	c.WaitDelay = 200 * time.Millisecond
	p, r := started(t, context.Background(), c)
	grandchild := readPid(t, r)
	defer KillGroup(grandchild)
	release(t, c)
	waited := make(chan error, 1)
	go func() { waited <- p.Wait() }()
	select {
	case err := <-waited:
		if !errors.Is(err, exec.ErrWaitDelay) {
			t.Errorf("Wait = %v, want %v", err, exec.ErrWaitDelay)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait hung on a pipe a grandchild outside the group holds")
	}
}

func TestClosePipesAtExit(t *testing.T) {
	// The grandchild holds stdout; the conversation ends with the child.
	c := outsider(t, "stdout")
	c.ClosePipesAtExit = true
	p, r := started(t, context.Background(), c)
	grandchild := readPid(t, r)
	defer KillGroup(grandchild)
	release(t, c)
	read := make(chan error, 1)
	go func() { _, err := io.ReadAll(r); read <- err }()
	select {
	case err := <-read:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("read = %v, want %v", err, os.ErrClosed)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("stdout stayed open after the child was reaped")
	}
	p.Wait()
}

func TestRun(t *testing.T) {
	var out strings.Builder
	c := Command("sh", "-c", "echo $X; pwd; exit 2")
	c.Env = []string{"X=env"}
	c.Dir = "/"
	c.Stdout = &out
	err := c.Run(context.Background())
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("Run = %v, want exit status 2", err)
	}
	if out.String() != "env\n/\n" {
		t.Errorf("output %q", out.String())
	}
}

func TestStartFailureClosesPipes(t *testing.T) {
	c := Command("cchub-no-such-program")
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Start(context.Background()); !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("Start = %v, want %v", err, exec.ErrNotFound)
	}
	if _, err := in.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("write to the pipe of a child that never started: %v, want it closed", err)
	}
}

func TestKillAfterExitSignalsNothing(t *testing.T) {
	p, err := Command("true").Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	// The group's id may belong to another group by now: no signal.
	p.Kill()
	p.Stop()
}
