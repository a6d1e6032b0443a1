package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A process's run directory holds what it makes for its sessions and
// must not outlive it: the binary built for a debug session, a file
// watcher's sentinel. It lies in the temporary directory and is named for
// its owner, "cchub-run-UID-PID-START-RANDOM", where START is when the
// process started (so a pid the kernel gave again is another owner). The
// owner removes it when it ends (RemoveRunDir); an owner killed outright
// cannot, so whoever makes a run directory next sweeps those whose owner
// is gone (SweepRunDirs).

// EnvRunDir marks the processes started for a session with the run
// directory of the process that started it (RunDirEnv): they inherit it,
// the debuggee and what it starts too, so a sweep of a gone owner's
// directory ends those of them that still run (on Linux; a process that
// clears its environment escapes it).
const EnvRunDir = "CCHUB_RUN_DIR"

// runDirPrefix starts every run directory's name.
const runDirPrefix = "cchub-run-"

// legacyDebugAge is how old a binary that builds before run directories
// left in the temporary directory ("cchub-debug-NANOS") must be before a
// sweep removes it: a debug session lives ten minutes unless configured
// longer (an hour at most by default), so one this old has no session.
const legacyDebugAge = 24 * time.Hour

var runDir struct {
	sync.Mutex
	path  string
	swept bool // the temporary directory was swept (Sweep)
}

// Sweep sweeps the temporary directory (SweepRunDirs) once per process:
// a program that starts sessions calls it as it starts; RunDir calls it
// before it makes the first run directory.
func Sweep() {
	runDir.Lock()
	defer runDir.Unlock()
	sweepLocked()
}

func sweepLocked() {
	if !runDir.swept {
		runDir.swept = true
		SweepRunDirs(os.TempDir())
	}
}

// RunDir is this process's run directory, made (mode 0700) on first use,
// after the run directories of owners that are gone have been swept.
func RunDir() (string, error) {
	runDir.Lock()
	defer runDir.Unlock()
	if runDir.path != "" {
		if _, err := os.Lstat(runDir.path); err == nil {
			return runDir.path, nil
		}
		// Removed under it (a person cleaning the temporary directory):
		// made again.
	}
	sweepLocked()
	dir, err := MakeRunDir(os.TempDir())
	if err != nil {
		return "", err
	}
	runDir.path = dir
	return dir, nil
}

// RunDirEnv is the environment entry (EnvRunDir=dir) that marks a
// process started for one of this process's sessions, making the run
// directory if it is not made yet.
func RunDirEnv() (string, error) {
	dir, err := RunDir()
	if err != nil {
		return "", err
	}
	return EnvRunDir + "=" + dir, nil
}

// RemoveRunDir removes this process's run directory and what it holds,
// if RunDir made one; the next RunDir makes another. A program calls it
// as it ends.
func RemoveRunDir() {
	runDir.Lock()
	defer runDir.Unlock()
	if runDir.path != "" {
		os.RemoveAll(runDir.path)
		runDir.path = ""
	}
}

// MakeRunDir makes a new run directory owned by this process in tmp.
// RunDir is what a program calls; this one is for a test that needs a
// live owner's directory somewhere of its own.
func MakeRunDir(tmp string) (string, error) {
	start, err := startTime(os.Getpid())
	if err != nil {
		return "", fmt.Errorf("proc: a run directory needs this process's start time: %w", err)
	}
	dir, err := os.MkdirTemp(tmp, fmt.Sprintf("%s%d-%d-%d-", runDirPrefix, os.Getuid(), os.Getpid(), start))
	if err != nil {
		return "", fmt.Errorf("proc: make a run directory: %w; check that %s is writable, or set TMPDIR to a directory that is", err, tmp)
	}
	return dir, nil
}

// SweepRunDirs removes, from tmp, the run directories of this user whose
// owner no longer runs, after killing the processes still marked with
// one (EnvRunDir: a debuggee whose adapter and supervisor were killed
// with the hub), and the debug binaries earlier builds left there
// ("cchub-debug-NANOS", a day old or more). It leaves everything else:
// another user's directories, a live owner's, a name it cannot read,
// anything that is not a directory of this user's (a symbolic link is
// never followed). It returns what it removed.
func SweepRunDirs(tmp string) []string {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	uid := os.Getuid()
	mine := fmt.Sprintf("%s%d-", runDirPrefix, uid)
	var removed []string
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, mine):
			pid, start, ok := parseOwner(strings.TrimPrefix(name, mine))
			if !ok || !e.IsDir() || !ownedBy(filepath.Join(tmp, name), uid, true) || running(pid, start) {
				continue
			}
		case strings.HasPrefix(name, "cchub-debug-"):
			if _, err := strconv.ParseUint(strings.TrimPrefix(name, "cchub-debug-"), 10, 64); err != nil || !e.Type().IsRegular() {
				continue
			}
			info, err := e.Info()
			if err != nil || time.Since(info.ModTime()) < legacyDebugAge || !ownedBy(filepath.Join(tmp, name), uid, false) {
				continue
			}
		default:
			continue
		}
		p := filepath.Join(tmp, name)
		if strings.HasPrefix(name, mine) {
			killMarked(name)
		}
		if err := os.RemoveAll(p); err == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// parseOwner reads "PID-START-RANDOM".
func parseOwner(s string) (pid int, start uint64, ok bool) {
	f := strings.SplitN(s, "-", 3)
	if len(f) != 3 {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	start, err = strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return pid, start, true
}

// ownedBy says path (not followed) belongs to uid and is a directory, or
// a regular file when dir is false.
func ownedBy(path string, uid int, dir bool) bool {
	info, err := os.Lstat(path)
	if err != nil || info.IsDir() != dir || (!dir && !info.Mode().IsRegular()) {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == uid
}

// running says the process pid that started at start still runs. A pid
// it cannot tell about (another user's, where the system hides it) is
// taken as running: a sweep errs toward keeping.
func running(pid int, start uint64) bool {
	got, err := startTime(pid)
	switch {
	case errors.Is(err, errGone):
		return false
	case err != nil:
		return true
	}
	return got == start
}

// errGone: no such process, or one that has exited (a zombie).
var errGone = errors.New("no such process")
