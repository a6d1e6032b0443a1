package proc

import (
	"bufio"
	"fmt"
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

// superviseEnv makes the test binary a supervisor (Supervise) of itself
// as a daemon maker (daemonEnv=wait): "cgroup" or "subreaper" says how it
// is to contain it, "cgroup-exit" or "subreaper-exit" makes the child
// exit (3) as soon as its daemon runs. Its stdin ending stops it. It
// prints "started PID HOW" and, at its end, "exit CODE".
const superviseEnv = "PROC_TEST_SUPERVISE"

// daemonEnv makes the test binary start `sleep 300` in a session of its
// own (setsid), print its pid, and then exit (3) ("exit") or wait
// ("wait").
const daemonEnv = "PROC_TEST_DAEMON"

func superviseMain(how string) int {
	mode, daemon, _ := strings.Cut(how, "-")
	if daemon == "" {
		daemon = "wait"
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Println(err)
		return 1
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, superviseEnv+"=") {
			env = append(env, kv)
		}
	}
	stop := make(chan struct{})
	go func() { // ends with stdin, when the test closes it
		io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	c := Contained{Path: exe, Args: []string{exe}, Env: append(env, daemonEnv+"="+daemon), NoCgroup: mode != "cgroup"}
	code, err := Supervise(c, stop, func(pid int, how string) { fmt.Printf("started %d %s\n", pid, how) })
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("exit %d\n", code)
	return 0
}

func daemonMain(how string) int {
	d := exec.Command("sleep", "300")
	d.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := d.Start(); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println(d.Process.Pid)
	if how == "exit" {
		return 3 // the daemon is left an orphan
	}
	time.Sleep(time.Hour) // not select{}: the runtime would call it a deadlock
	return 0
}

// supervised is a running supervisor helper and what it said.
type supervised struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	child  int    // the supervised child
	how    string // its containment
	daemon int    // the child's setsid grandchild
}

// supervise starts a supervisor helper and reads its first two lines.
func supervise(t *testing.T, how string) *supervised {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), superviseEnv+"="+how)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &supervised{cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
		if s.daemon > 0 && !gone(s.daemon) {
			syscall.Kill(s.daemon, syscall.SIGKILL)
		}
	})
	for s.child == 0 || s.daemon == 0 {
		line, err := s.out.ReadString('\n')
		if err != nil {
			t.Fatalf("supervisor: %v (got %q)", err, line)
		}
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "started "); ok {
			pid, how, _ := strings.Cut(rest, " ")
			s.child, _ = strconv.Atoi(pid)
			s.how = how
		} else if s.daemon, err = strconv.Atoi(line); err != nil {
			t.Fatalf("supervisor said %q", line)
		}
	}
	return s
}

// exit reads the supervisor's last line, its child's exit code.
func (s *supervised) exit(t *testing.T) string {
	t.Helper()
	line, err := s.out.ReadString('\n')
	if err != nil {
		t.Fatalf("supervisor's end: %v (got %q)", err, line)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("supervisor: %v", err)
	}
	return strings.TrimSpace(line)
}

// session is pid's session id, from /proc.
func session(t *testing.T, pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	sid, _ := strconv.Atoi(f[3]) // state ppid pgrp session
	return sid
}

// checkContained checks that the daemon runs in a session of its own and,
// in a cgroup, in the supervisor's cgroup for it; it returns that
// cgroup's directory ("" without one). A machine without a writable
// cgroup v2 skips the cgroup's test.
func checkContained(t *testing.T, s *supervised, mode string) string {
	t.Helper()
	if gone(s.daemon) {
		t.Fatalf("daemon %d is not running", s.daemon)
	}
	if session(t, s.daemon) == session(t, s.cmd.Process.Pid) {
		t.Fatalf("daemon %d did not leave the supervisor's session", s.daemon)
	}
	t.Logf("containment: %s", s.how)
	if mode != "cgroup" {
		if s.how != BySubreaper {
			t.Fatalf("containment %q, want %s", s.how, BySubreaper)
		}
		return ""
	}
	dir, ok := strings.CutPrefix(s.how, ByCgroup+" ")
	if !ok {
		t.Skipf("this machine offers no cgroup to this user: %s", s.how)
	}
	cg, err := os.ReadFile("/proc/" + strconv.Itoa(s.daemon) + "/cgroup")
	if err != nil || !strings.Contains(string(cg), "/"+filepath.Base(dir)+"\n") {
		t.Fatalf("daemon's cgroups %q (%v), want %s", cg, err, dir)
	}
	return dir
}

func checkEnded(t *testing.T, s *supervised, dir string) {
	t.Helper()
	if !goneWithin(s.daemon, 5*time.Second) {
		t.Errorf("setsid daemon %d outlived its supervisor's end", s.daemon)
	}
	if !gone(s.child) {
		t.Errorf("child %d outlived its supervisor's end", s.child)
	}
	if dir != "" {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("cgroup %s is left: %v", dir, err)
		}
	}
}

// Stopping a supervisor kills the child and the daemon it started in a
// session of its own, in a cgroup and by the subreaper alone.
func TestSuperviseStop(t *testing.T) {
	for _, mode := range []string{"cgroup", "subreaper"} {
		t.Run(mode, func(t *testing.T) {
			s := supervise(t, mode)
			dir := checkContained(t, s, mode)
			s.in.Close()
			if got := s.exit(t); got != "exit -1" {
				t.Errorf("supervisor said %q, want exit -1 (killed)", got)
			}
			checkEnded(t, s, dir)
		})
	}
}

// A child that exits leaving a setsid daemon orphaned: the daemon is
// killed, and Supervise returns the child's exit code.
func TestSuperviseChildExits(t *testing.T) {
	for _, mode := range []string{"cgroup", "subreaper"} {
		t.Run(mode, func(t *testing.T) {
			s := supervise(t, mode+"-exit")
			got := s.exit(t)
			if got != "exit 3" {
				t.Errorf("supervisor said %q, want exit 3", got)
			}
			dir, inCgroup := strings.CutPrefix(s.how, ByCgroup+" ")
			if mode == "cgroup" && !inCgroup {
				t.Skipf("this machine offers no cgroup to this user: %s", s.how)
			}
			if !inCgroup {
				dir = ""
			}
			checkEnded(t, s, dir)
		})
	}
}

// The tree walk finds a grandchild through its parent.
func TestDescendants(t *testing.T) {
	c := Command("sh", "-c", "sleep 100 & echo $!; wait")
	p, r := started(t, t.Context(), c)
	defer p.Kill()
	grandchild := readPid(t, r)
	found := map[int]bool{}
	for _, pid := range descendants(os.Getpid()) {
		found[pid] = true
	}
	if !found[p.Pid()] || !found[grandchild] {
		t.Fatalf("descendants of %d: %v, want %d and %d", os.Getpid(), found, p.Pid(), grandchild)
	}
}

// cgroup.kill alone ends what runs in the cgroup, and the cgroup is
// removed after.
func TestCgroupKill(t *testing.T) {
	cg, err := newCgroup()
	if err != nil {
		t.Skipf("this machine offers no cgroup to this user: %v", err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	pid, err := forkExec(Contained{Path: sleep, Args: []string{"sleep", "100"}}, cg)
	if err != nil {
		cg.remove()
		t.Fatal(err)
	}
	if procs, _ := os.ReadFile(filepath.Join(cg.dir, "cgroup.procs")); strings.TrimSpace(string(procs)) != strconv.Itoa(pid) {
		t.Errorf("cgroup.procs %q, want %d", procs, pid)
	}
	if err := cg.kill(); err != nil {
		t.Error(err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.Signal() != syscall.SIGKILL {
		t.Errorf("sleep ended %v (%v), want killed", ws, err)
	}
	cg.remove()
	if _, err := os.Stat(cg.dir); !os.IsNotExist(err) {
		t.Errorf("cgroup %s is left: %v", cg.dir, err)
	}
}

// A cgroup a killed supervisor left is removed by the next one, once
// empty.
func TestSweepCgroups(t *testing.T) {
	parent, err := ownCgroupDir()
	if err != nil {
		t.Skipf("this machine offers no cgroup to this user: %v", err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(parent, fmt.Sprintf("cchub-%d", dead.Process.Pid))
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Skipf("this machine offers no cgroup to this user: %v", err)
	}
	defer os.Remove(stale)
	cg, err := newCgroup()
	if err != nil {
		t.Fatal(err)
	}
	cg.remove()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale cgroup %s is left: %v", stale, err)
	}
}
