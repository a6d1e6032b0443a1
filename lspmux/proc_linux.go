package lspmux

import "syscall"

// procAttr puts a server in a process group of its own (so that killing
// the group takes its children too) and has the kernel kill it when the
// hub's process dies, however it dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
