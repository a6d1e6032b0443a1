package pgtest

import "syscall"

// sysAttr puts the server in a process group of its own (Kill reaches its
// backends), runs it as cred's user when cred is set, and has it shut
// down at once (SIGQUIT) if this process dies without stopping it.
func sysAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred, Pdeathsig: syscall.SIGQUIT}
}
