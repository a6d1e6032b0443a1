package dapsession

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"cchub/proc"
)

// A session's processes must end with it, also when the hub is killed
// outright and runs no code of its own, and also a debuggee's child that
// called setsid to leave every group the hub knows. So the adapter is not
// the hub's child: each session has a supervisor, a small process (this
// same binary, re-executed) that is the adapter's parent and runs it
// under proc.Supervise (a cgroup of its own where the kernel offers one,
// else the supervisor as child subreaper). It ends the whole tree when
// the adapter exits or its control pipe closes: when the session ends or
// the hub dies. It does not get the parent-death signal: it must outlive
// a killed hub to do its work.
//
// The supervisor's fds: 0-2 are the adapter's (passed on), 3 the control
// pipe from the hub ("rm PATH" lines: files to remove at the end; its end
// ends the session), 4 the status pipe to the hub, one line: "started PID
// HOW" or "failed WHY".

// supervisorEnv makes a binary that links this package a session's
// supervisor; its arguments are the adapter's argv.
const supervisorEnv = "CCHUB_DAP_SUPERVISOR"

// NoCgroupEnv, set to 1, keeps a session out of a cgroup of its own even
// where the kernel offers one: the supervisor as subreaper alone holds
// it.
const NoCgroupEnv = "CCHUB_NO_CGROUP"

func init() {
	if os.Getenv(supervisorEnv) == "1" {
		os.Exit(runSupervisor(os.Args[1:]))
	}
}

// runSupervisor runs the adapter argv until it exits or the control pipe
// ends, then ends all it started and removes the files it was given.
func runSupervisor(argv []string) int {
	syscall.CloseOnExec(3) // the adapter gets neither pipe
	syscall.CloseOnExec(4)
	ctrl, status := os.NewFile(3, "control"), os.NewFile(4, "status")
	if len(argv) == 0 {
		fmt.Fprintln(status, "failed no adapter to run")
		return 2
	}
	var mu sync.Mutex
	var files []string
	stop := make(chan struct{})
	var once sync.Once
	end := func() { once.Do(func() { close(stop) }) }
	go func() { // ends with the control pipe: the session's end or the hub's death
		sc := bufio.NewScanner(ctrl)
		for sc.Scan() {
			if path, ok := strings.CutPrefix(sc.Text(), "rm "); ok && filepath.IsAbs(path) {
				mu.Lock()
				files = append(files, path)
				mu.Unlock()
			}
		}
		end()
	}()
	// Asked to stop rather than killed, it ends the session's processes
	// first.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() { // ends with the process
		<-sig
		end()
	}()
	var env []string // the adapter, or its debuggee, may be cchub: not another supervisor
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, supervisorEnv+"=") {
			env = append(env, kv)
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(status, "failed %v\n", err)
		return 2
	}
	code, err := proc.Supervise(proc.Contained{Path: path, Args: argv, Env: env, NoCgroup: os.Getenv(NoCgroupEnv) == "1"}, stop,
		func(pid int, how string) {
			fmt.Fprintf(status, "started %d %s\n", pid, how)
			status.Close()
		})
	if err != nil {
		fmt.Fprintf(status, "failed %v\n", err)
		return 2
	}
	mu.Lock()
	defer mu.Unlock()
	for _, f := range files {
		_ = os.Remove(f)
	}
	if code < 0 {
		return 1
	}
	return code
}
