package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// startTime is when pid started, in clock ticks after boot (stat's 22nd
// field): with the pid, it names one process for the life of the
// machine. A process that has exited (a zombie) or does not exist is
// errGone.
func startTime(pid int) (uint64, error) {
	f, err := statFields(pid)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, errGone
	}
	if err != nil {
		return 0, err
	}
	if len(f) < 20 {
		return 0, fmt.Errorf("proc: cannot read /proc/%d/stat", pid)
	}
	if f[0] == "Z" || f[0] == "X" {
		return 0, errGone
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// statFields are the fields of /proc/PID/stat after the command's name,
// from the state on ("S ppid pgrp ..."): the name may hold spaces and
// parentheses, so they are counted after the last ')'.
func statFields(pid int) ([]string, error) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("proc: cannot read /proc/%d/stat", pid)
	}
	return strings.Fields(s[i+1:]), nil
}

// killMarked kills every process whose environment marks it as started
// for the run directory named name (EnvRunDir=…/name: the name alone is
// compared, as the owner may have reached the temporary directory by
// another path), and returns their pids. Each is held by a pidfd while
// its environment is read and it is signalled, so a pid reused in
// between is never signalled (where the kernel has pidfds, 5.3).
func killMarked(name string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var killed []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		fd, fdErr := unix.PidfdOpen(pid, 0)
		if env, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && marked(env, name) {
			if fdErr == nil {
				err = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			if fdErr != nil || err == unix.ENOSYS {
				err = syscall.Kill(pid, syscall.SIGKILL)
			}
			if err == nil {
				killed = append(killed, pid)
			}
		}
		if fdErr == nil {
			unix.Close(fd)
		}
	}
	return killed
}

// marked says the environment block env (NUL-separated) holds
// EnvRunDir=…/name.
func marked(env []byte, name string) bool {
	key := []byte(EnvRunDir + "=")
	for len(env) > 0 {
		entry := env
		if i := bytes.IndexByte(env, 0); i >= 0 {
			entry, env = env[:i], env[i+1:]
		} else {
			env = nil
		}
		if v, ok := bytes.CutPrefix(entry, key); ok && filepath.Base(string(v)) == name {
			return true
		}
	}
	return false
}
