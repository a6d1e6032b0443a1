//go:build !linux

package blast

import "syscall"

// procAttr puts git in a process group of its own; only Linux can also tie
// its life to cchub's.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group led by pid.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
