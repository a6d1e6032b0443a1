//go:build !linux

package pgtest

import "syscall"

// sysAttr puts the server in a process group of its own (Kill reaches its
// backends) and runs it as cred's user when cred is set.
func sysAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred}
}
