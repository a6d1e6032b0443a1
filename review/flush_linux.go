package review

import "golang.org/x/sys/unix"

// flushInput throws away what was typed but not yet read, so that a key
// pressed before the question was on screen cannot answer it.
func flushInput(fd int) {
	_ = unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) // best effort
}
