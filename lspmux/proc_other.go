//go:build !linux

package lspmux

import "syscall"

// procAttr puts a server in a process group of its own; only Linux can
// also tie its life to the hub's.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
