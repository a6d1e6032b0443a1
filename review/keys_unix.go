//go:build unix

package review

import (
	"context"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// keyReader reads key presses from a terminal and gives up as soon as
// its context is done. A read blocked in the kernel cannot be cancelled,
// and os.File deadlines do not work on a blocking descriptor (os.Stdin
// usually is one), so it waits with poll(2) on the terminal and on a
// pipe that the context closes; it reads only once the terminal has
// input. No goroutine is left behind reading the terminal, so a key
// typed after Prompt returns reaches whoever reads next.
type keyReader struct {
	ctx   context.Context
	rc    syscall.RawConn
	buf   []byte
	wakeR *os.File
	wakeW *os.File
	wake  int // wakeR's descriptor
	stop  func() bool
	fired chan struct{} // closed once the AfterFunc has closed wakeW
}

func newKeyReader(ctx context.Context, _ *os.File, rc syscall.RawConn) (*keyReader, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	k := &keyReader{ctx: ctx, rc: rc, wakeR: r, wakeW: w, wake: int(r.Fd()), fired: make(chan struct{})}
	k.stop = context.AfterFunc(ctx, func() {
		w.Close() // the read end sees end of file: poll wakes up
		close(k.fired)
	})
	return k, nil
}

// close releases the pipe; once it returns no goroutine of k runs.
func (k *keyReader) close() {
	if !k.stop() {
		<-k.fired
	}
	k.wakeW.Close()
	k.wakeR.Close()
}

// fill appends what the terminal has to k.buf, waiting at most
// timeoutMillis (-1: for ever). It returns errTimeout, io.EOF, the
// context's error, or the read's error (EIO when the terminal hung up).
func (k *keyReader) fill(timeoutMillis int) error {
	var (
		n    int
		rerr error
	)
	var chunk [256]byte
	cerr := k.rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{
			{Fd: int32(fd), Events: unix.POLLIN},
			{Fd: int32(k.wake), Events: unix.POLLIN},
		}
		for {
			fds[0].Revents, fds[1].Revents = 0, 0
			ready, err := unix.Poll(fds, timeoutMillis)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				rerr = err
				return
			}
			if fds[1].Revents != 0 {
				rerr = context.Cause(k.ctx)
				if rerr == nil {
					rerr = context.Canceled // cannot happen: only the AfterFunc closes wakeW
				}
				return
			}
			if ready == 0 {
				rerr = errTimeout
				return
			}
			if fds[0].Revents&unix.POLLNVAL != 0 {
				rerr = syscall.EBADF
				return
			}
			// POLLIN, POLLHUP or POLLERR: the read says which.
			n, err = unix.Read(int(fd), chunk[:])
			if err == unix.EINTR || err == unix.EAGAIN {
				continue
			}
			if err != nil {
				rerr = err
				return
			}
			if n == 0 {
				rerr = io.EOF
			}
			return
		}
	})
	if cerr != nil {
		return cerr
	}
	if rerr != nil {
		if rerr == errTimeout || rerr == io.EOF {
			return rerr
		}
		if k.ctx.Err() != nil {
			return k.ctx.Err()
		}
		return &os.PathError{Op: "read", Path: "terminal", Err: rerr}
	}
	k.buf = append(k.buf, chunk[:n]...)
	return nil
}
