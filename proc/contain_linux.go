package proc

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// killBound bounds how long Supervise goes on killing and reaping a tree
// that will not die (a process stuck in the kernel): it then gives up.
const killBound = 30 * time.Second

// Supervise runs c as a child of this process and keeps it, and all it
// starts, contained: when the child exits, or stop is closed (the
// supervisor's owner is done, or dead), every process descended from it
// is killed and reaped, and Supervise returns the child's exit code (-1
// if a signal ended it). started is called once the child runs, with its
// pid and how it is held: "cgroup <dir>" or "subreaper" (with why the
// cgroup was not had, when it was tried).
//
// Only a process that is a supervisor and nothing else may call it: it
// makes this process a child subreaper, so that orphans of the tree
// (setsid daemons included) become its children instead of init's, and
// it reaps every child this process has, not only c.
func Supervise(c Contained, stop <-chan struct{}, started func(pid int, how string)) (int, error) {
	// The child's parent-death signal is tied to this thread: it stays
	// locked to this goroutine, which ends only with the process.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("proc: become a subreaper: %w", err)
	}
	sigchld := make(chan os.Signal, 1)
	signal.Notify(sigchld, syscall.SIGCHLD) // before the fork, to miss no exit
	defer signal.Stop(sigchld)

	how := BySubreaper
	var cg *cgroup
	if !c.NoCgroup {
		var err error
		if cg, err = newCgroup(); err != nil {
			how += " (no cgroup: " + err.Error() + ")"
		}
	}
	pid, err := forkExec(c, cg)
	if err != nil && cg != nil {
		cg.remove()
		how += " (no cgroup: start into it: " + err.Error() + ")"
		cg = nil
		pid, err = forkExec(c, nil)
	}
	if err != nil {
		return -1, fmt.Errorf("proc: start %s: %w", c.Path, err)
	}
	if cg != nil {
		how = ByCgroup + " " + cg.dir
	}
	started(pid, how)

	code, exited := -1, false
	for !exited {
		select {
		case <-sigchld:
		case <-stop:
			return killTree(pid, code, cg, sigchld), nil
		}
		exited, code, _ = reapAll(pid)
	}
	return killTree(pid, code, cg, sigchld), nil
}

// forkExec starts c, into cg when it is not nil. The child shares this
// process's group and gets the parent-death signal.
func forkExec(c Contained, cg *cgroup) (int, error) {
	sys := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if cg != nil {
		sys.UseCgroupFD, sys.CgroupFD = true, cg.fd // clone3's CLONE_INTO_CGROUP
	}
	return syscall.ForkExec(c.Path, c.Args, &syscall.ProcAttr{
		Dir: c.Dir, Env: c.Env, Files: []uintptr{0, 1, 2}, Sys: sys,
	})
}

// reapAll reaps every child that has exited, without waiting. It says
// whether child was among them and with which code, and whether this
// process has no child left.
func reapAll(child int) (exited bool, code int, none bool) {
	code = -1
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil: // ECHILD
			return exited, code, true
		case pid <= 0:
			return exited, code, false
		case pid == child:
			exited = true
			if ws.Exited() {
				code = ws.ExitStatus()
			}
		}
	}
}

// killTree kills every process of the tree (the cgroup's, and every
// descendant /proc shows), reaps them as they become this process's
// children, until it has none; then removes the cgroup. It returns the
// child's exit code: code if the child had already been reaped.
func killTree(child, code int, cg *cgroup, sigchld <-chan os.Signal) int {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for end := time.Now().Add(killBound); time.Now().Before(end); {
		if cg != nil {
			_ = cg.kill()
		}
		// Also in a cgroup: a descendant with the right to may have
		// moved itself out of it.
		for _, pid := range descendants(os.Getpid()) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		exited, c, none := reapAll(child)
		if exited {
			code = c
		}
		if none {
			break
		}
		select {
		case <-sigchld:
		case <-tick.C:
		}
	}
	if cg != nil {
		cg.remove()
	}
	return code
}

// descendants are the processes descended from pid, read from /proc.
func descendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := ppid(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	for todo := children[pid]; len(todo) > 0; {
		p := todo[len(todo)-1]
		todo = append(todo[:len(todo)-1], children[p]...)
		out = append(out, p)
	}
	return out
}

// ppid is pid's parent, or 0 when it cannot be read.
func ppid(pid int) int {
	f, err := statFields(pid)
	if err != nil || len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

// cgroup is a cgroup v2 made for one supervised tree, a child of the
// supervisor's own.
type cgroup struct {
	dir string
	fd  int // the directory, open for clone3
}

// newCgroup makes a cgroup for the tree under this process's cgroup v2,
// if the kernel offers one this user may write and that can be killed
// whole (cgroup.kill, Linux 5.14).
func newCgroup() (*cgroup, error) {
	parent, err := ownCgroupDir()
	if err != nil {
		return nil, err
	}
	sweepCgroups(parent)
	dir := filepath.Join(parent, fmt.Sprintf("cchub-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err // not delegated to this user, read-only, ...
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		os.Remove(dir)
		return nil, errors.New("no cgroup.kill (Linux older than 5.14)")
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil, err
	}
	return &cgroup{dir: dir, fd: fd}, nil
}

// sweepCgroups removes the cgroups under parent that supervisors which
// no longer run left (killed before they removed them), if empty.
func sweepCgroups(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "cchub-*"))
	for _, dir := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "cchub-"))
		if err == nil && pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH {
			_ = unix.Rmdir(dir) // fails, and leaves it, while a process is in it
		}
	}
}

// kill kills every process in the cgroup at once: no fork escapes it.
func (cg *cgroup) kill() error {
	return os.WriteFile(filepath.Join(cg.dir, "cgroup.kill"), []byte("1"), 0)
}

// remove removes the cgroup once it is empty: the kernel may take a
// moment after the last of its processes is reaped.
func (cg *cgroup) remove() {
	unix.Close(cg.fd)
	for i := 0; i < 200; i++ {
		if err := unix.Rmdir(cg.dir); err != unix.EBUSY {
			return
		}
		_ = cg.kill()
		time.Sleep(10 * time.Millisecond)
	}
}

// ownCgroupDir is the directory of this process's cgroup v2: its path in
// /proc/self/cgroup ("0::/path") under where cgroup2 is mounted.
func ownCgroupDir() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	path, found := "", false
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path, found = p, true
		}
	}
	if !found {
		return "", errors.New("no cgroup v2 in /proc/self/cgroup")
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(mi), "\n") {
		// "id parent dev root mountpoint opts [tags] - fstype source opts"
		pre, post, ok := strings.Cut(line, " - ")
		f := strings.Fields(pre)
		if !ok || len(f) < 5 || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		root, mnt := unescapeMount(f[3]), unescapeMount(f[4])
		if rel, ok := strings.CutPrefix(path, root); ok && (root == "/" || rel == "" || rel[0] == '/') {
			return filepath.Join(mnt, rel), nil
		}
	}
	return "", errors.New("cgroup2 is not mounted where this process's cgroup is")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
