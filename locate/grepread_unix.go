//go:build unix

package locate

import (
	"syscall"
)

// readFileInto reads the file at abs into buf (reused, grown as needed).
// It goes to the system calls directly: os.Open's non-blocking setup and
// finalizer cost more than the read itself on small source files, and grep
// opens thousands of them.
func readFileInto(abs string, buf []byte, maxSize int64) ([]byte, error) {
	var fd int
	var err error
	for {
		// O_NONBLOCK: opening a named pipe must not wait for a writer.
		fd, err = syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, errNotRegular
	}
	if st.Size > maxSize {
		return nil, errTooLarge
	}
	// One byte more than the size, so a file that grew since the stat is
	// read whole and the final read sees EOF.
	if int64(cap(buf)) < st.Size+1 {
		buf = make([]byte, 0, st.Size+st.Size/4+1)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > maxSize {
				return nil, errTooLarge
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
