package blast

import "syscall"

// procAttr puts git in a process group of its own (so that killing the
// group takes its children too: hooks, filters, pagers) and has the kernel
// kill it when cchub dies, however it dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the process group led by pid.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
