package dapsession

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"cchub/proc"
)

// A session's processes must not outlive the hub, also when the hub is
// killed outright and runs no code of its own. The adapter gets the
// kernel's parent-death signal, but the debuggee is the adapter's child,
// in a process group of its own, and a debuggee whose tracer dies is
// merely let go. So each session has a watchdog: a small process (this
// same binary, re-executed) that reads the process groups to kill from a
// pipe, and kills them when the pipe closes without a "done": when the
// hub is gone.

// watchdogEnv makes a binary that links this package a watchdog.
const watchdogEnv = "CCHUB_DAP_WATCHDOG"

func init() {
	if os.Getenv(watchdogEnv) == "1" {
		runWatchdog(os.Stdin)
		os.Exit(0)
	}
}

// runWatchdog reads "kill PGID", "rm PATH" and "done" lines; at the end
// of its input without "done" it kills every group it was given and
// removes every file (a debug binary built for the session).
func runWatchdog(in io.Reader) {
	var groups []int
	var files []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case len(f) == 1 && f[0] == "done":
			return
		case len(f) == 2 && f[0] == "kill":
			if pgid, err := strconv.Atoi(f[1]); err == nil && pgid > 1 {
				groups = append(groups, pgid)
			}
		case strings.HasPrefix(line, "rm /"):
			files = append(files, strings.TrimPrefix(line, "rm "))
		}
	}
	for _, g := range groups {
		_ = proc.KillGroup(g)
	}
	for _, f := range files {
		_ = os.Remove(f)
	}
}

// watchdog is the hub's end of a session's watchdog.
type watchdog struct {
	proc *proc.Process
	w    io.WriteCloser
}

// startWatchdog starts a watchdog in a process group of its own (so that
// killing a session's groups spares it) and without the parent-death
// signal (it must outlive the hub to do its work). No context stops it:
// only release, or the end of its input when the hub dies.
func startWatchdog() (*watchdog, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	c := proc.Command(exe)
	c.Env = append(os.Environ(), watchdogEnv+"=1")
	c.OutliveParent = true
	w, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	p, err := c.Start(context.Background())
	if err != nil {
		return nil, fmt.Errorf("dapsession: watchdog: %w", err)
	}
	return &watchdog{proc: p, w: w}, nil
}

// remove has the watchdog remove the file at path (absolute) if the hub
// dies.
func (wd *watchdog) remove(path string) {
	fmt.Fprintf(wd.w, "rm %s\n", path)
}

// guard has the watchdog kill the group pgid if the hub dies.
func (wd *watchdog) guard(pgid int) {
	fmt.Fprintf(wd.w, "kill %d\n", pgid)
}

// release tells the watchdog all is well and waits for it to exit.
func (wd *watchdog) release() {
	fmt.Fprintln(wd.w, "done")
	wd.w.Close()
	_ = wd.proc.Wait()
}
