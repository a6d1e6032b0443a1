//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package review

import "golang.org/x/sys/unix"

// flushInput throws away what was typed but not yet read, so that a key
// pressed before the question was on screen cannot answer it.
func flushInput(fd int) {
	const fread = 0x1                                      // FREAD of <sys/fcntl.h>: the input queue only
	_ = unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread) // best effort
}
