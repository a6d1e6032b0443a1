package dapsession

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cchub/workspace/wstest"
)

// hubEnv makes the test binary a hub that owns one debug session of
// testdata/daemon: its value is dlv's path and the pid file, a newline
// between. Once the daemon runs it prints "ready SUPERVISOR ADAPTER
// DAEMON BUILT HOW" and waits to be killed.
const hubEnv = "DAPSESSION_TEST_HUB"

func TestMain(m *testing.M) {
	if v := os.Getenv(hubEnv); v != "" {
		dlv, pidfile, _ := strings.Cut(v, "\n")
		s, daemon, err := launchDaemon(dlv, pidfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("ready %d %d %d %s %s\n", s.proc.proc.Pid(), s.proc.pid, daemon, s.built, s.Containment())
		time.Sleep(time.Hour)
	}
	os.Exit(wstest.Private(m))
}

// launchDaemon debugs testdata/daemon and returns once its setsid
// daemon runs, with the daemon's pid.
func launchDaemon(dlv, pidfile string) (*Session, int, error) {
	prog, err := filepath.Abs(filepath.Join("testdata", "daemon"))
	if err != nil {
		return nil, 0, err
	}
	s, _, err := Launch(context.Background(), goAdapter(), dlv, prog, Options{
		Program: prog, Args: []string{pidfile}, TTL: 10 * time.Minute, Wait: time.Second,
	})
	if err != nil {
		return nil, 0, err
	}
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidfile); err == nil {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				s.End("the test failed")
				return nil, 0, fmt.Errorf("pid file %q: %v", b, err)
			}
			return s, pid, nil
		}
		if why := s.Ended(); why != "" || time.Now().After(end) {
			s.End("the test failed")
			return nil, 0, fmt.Errorf("the daemon did not start (session ended: %q); output: %s", why, s.Output())
		}
	}
}

// running says pid runs: it exists and is no zombie.
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err != nil || !isZombie(string(stat))
}

// goneWithin polls until pid no longer runs or d has passed.
func goneWithin(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); running(pid) && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	return !running(pid)
}

// sessionOf is pid's session id.
func sessionOf(t *testing.T, pid int) int {
	t.Helper()
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	sid, _ := strconv.Atoi(f[3]) // state ppid pgrp session
	return sid
}

// contained checks the daemon runs out of the hub's session and, in the
// cgroup mode, in the session's cgroup (mode "any": where it may); it returns that cgroup's
// directory, "" in the subreaper mode. Without a cgroup offered to this
// user, the cgroup mode is skipped.
func contained(t *testing.T, mode, how string, daemon, hub int) string {
	t.Helper()
	t.Cleanup(func() {
		if running(daemon) {
			syscall.Kill(daemon, syscall.SIGKILL)
		}
	})
	if !running(daemon) {
		t.Fatalf("the daemon %d does not run", daemon)
	}
	// Its pid may be told before it has called setsid.
	for end := time.Now().Add(10 * time.Second); sessionOf(t, daemon) == sessionOf(t, hub); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the daemon %d did not leave the hub's session", daemon)
		}
	}
	t.Logf("containment: %s", how)
	if mode == "any" {
		return ""
	}
	if mode == "subreaper" {
		if how != "subreaper" {
			t.Fatalf("containment %q with %s=1, want subreaper", how, NoCgroupEnv)
		}
		return ""
	}
	dir, ok := strings.CutPrefix(how, "cgroup ")
	if !ok {
		t.Skipf("this machine offers no cgroup to this user: %s", how)
	}
	cg, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(daemon), "cgroup"))
	if err != nil || !strings.Contains(string(cg), "/"+filepath.Base(dir)+"\n") {
		t.Fatalf("the daemon's cgroups %q (%v), want %s", cg, err, dir)
	}
	return dir
}

// ended checks that nothing of the session is left: the daemon, the
// adapter, the supervisor, the cgroup.
func ended(t *testing.T, daemon, adapter, supervisor int, dir string) {
	t.Helper()
	if !goneWithin(daemon, 10*time.Second) {
		t.Errorf("the setsid daemon %d outlived its debug session", daemon)
	}
	for _, pid := range []int{adapter, supervisor} {
		if !goneWithin(pid, 10*time.Second) {
			t.Errorf("process %d of the session outlived it", pid)
		}
	}
	if dir != "" {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the session's cgroup %s is left: %v", dir, err)
		}
	}
}

// Every process of a debug session ends with it, a daemon the debuggee
// started in a session of its own included, however the session ends:
// terminated, out of time, or with the hub killed outright. In both
// containments: a cgroup of its own, and the supervisor as subreaper.
func TestContainment(t *testing.T) {
	dlv := dlvPath(t)
	for _, mode := range []string{"cgroup", "subreaper"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "subreaper" {
				t.Setenv(NoCgroupEnv, "1")
			} else {
				t.Setenv(NoCgroupEnv, "")
			}
			t.Run("terminate", func(t *testing.T) {
				s, daemon, err := launchDaemon(dlv, filepath.Join(t.TempDir(), "pid"))
				if err != nil {
					t.Fatal(err)
				}
				defer s.End("the test ended")
				dir := contained(t, mode, s.Containment(), daemon, os.Getpid())
				s.End("the test terminated it")
				ended(t, daemon, s.proc.pid, s.proc.proc.Pid(), dir)
			})
			t.Run("ttl", func(t *testing.T) {
				s, daemon, err := launchDaemon(dlv, filepath.Join(t.TempDir(), "pid"))
				if err != nil {
					t.Fatal(err)
				}
				defer s.End("the test ended")
				dir := contained(t, mode, s.Containment(), daemon, os.Getpid())
				// The time limit's own timer, fired now rather than in
				// minutes: a short TTL could run out during the build.
				s.timer.Reset(time.Millisecond)
				for end := time.Now().Add(time.Minute); s.Ended() == "" && time.Now().Before(end); {
					time.Sleep(10 * time.Millisecond)
				}
				if why := s.Ended(); !strings.Contains(why, "time limit") {
					t.Fatalf("the session ended %q, want by its time limit", why)
				}
				ended(t, daemon, s.proc.pid, s.proc.proc.Pid(), dir)
			})
			t.Run("hubkill", func(t *testing.T) { hubKilled(t, dlv, mode) })
		})
	}
}

// hubKilled runs a hub that owns a session, kills it with SIGKILL, and
// checks that the session's processes end all the same.
func hubKilled(t *testing.T, dlv, mode string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hub := exec.Command(exe)
	hub.Env = append(os.Environ(), hubEnv+"="+dlv+"\n"+filepath.Join(t.TempDir(), "pid"))
	hub.Stderr = os.Stderr
	out, err := hub.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		hub.Process.Kill()
		hub.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) < 6 || f[0] != "ready" {
		t.Fatalf("the hub said %q (%v)", line, err)
	}
	var pids [3]int // supervisor, adapter, daemon
	for i := range pids {
		pids[i], _ = strconv.Atoi(f[1+i])
	}
	built, how := f[4], strings.Join(f[5:], " ")
	dir := contained(t, mode, how, pids[2], hub.Process.Pid)
	if _, err := os.Stat(built); err != nil {
		t.Fatalf("the debug binary: %v", err)
	}
	hub.Process.Signal(syscall.SIGKILL)
	hub.Wait()
	ended(t, pids[2], pids[1], pids[0], dir)
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(built); os.IsNotExist(err) {
			return
		}
	}
	t.Errorf("the debug binary %s outlived the killed hub's session", built)
}

// An adapter that speaks over stdio speaks through its supervisor: the
// supervisor passes its stdin and stdout on.
func TestStdioAdapter(t *testing.T) {
	a := &Adapter{Name: "echo", Command: "sh", Args: []string{"-c", `read line; echo "got $line"`}}
	st, err := startAdapter(context.Background(), a, "/bin/sh", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.kill()
	if st.pid == st.proc.Pid() || st.how == "" {
		t.Errorf("adapter %d under supervisor %d, held by %q", st.pid, st.proc.Pid(), st.how)
	}
	fmt.Fprintln(st.conn, "hello")
	line, err := bufio.NewReader(st.conn).ReadString('\n')
	if err != nil || line != "got hello\n" {
		t.Fatalf("the adapter said %q (%v)", line, err)
	}
	st.kill()
	if running(st.pid) {
		t.Errorf("the adapter %d outlived its end", st.pid)
	}
}

// An adapter that cannot be run says why.
func TestMissingAdapter(t *testing.T) {
	_, err := startAdapter(context.Background(), &Adapter{Name: "nosuch"}, filepath.Join(t.TempDir(), "nosuch-dap"), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "nosuch-dap") {
		t.Fatalf("start of a missing adapter: %v", err)
	}
}

// A supervisor asked to stop (SIGTERM) ends the session's processes
// before it exits.
func TestSupervisorTerminated(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid program")
	}
	a := &Adapter{Name: "daemon", Command: "sh", Args: []string{"-c", `setsid sleep 300 & echo $!; wait`}}
	st, err := startAdapter(context.Background(), a, "/bin/sh", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.kill()
	line, err := bufio.NewReader(st.conn).ReadString('\n')
	daemon, _ := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || daemon <= 0 {
		t.Fatalf("the adapter said %q (%v)", line, err)
	}
	contained(t, "any", st.how, daemon, os.Getpid())
	syscall.Kill(st.proc.Pid(), syscall.SIGTERM)
	select {
	case <-st.gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the supervisor did not end on SIGTERM")
	}
	if !goneWithin(daemon, 10*time.Second) {
		t.Errorf("the setsid daemon %d outlived its terminated supervisor", daemon)
	}
}
