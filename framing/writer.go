package framing

import (
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// ErrClosed is what every call on a closed Writer, Conn or Stream returns
// (wrapped). It wraps net.ErrClosed, so code that recognises a closed
// network connection recognises a closed Conn too.
var ErrClosed = fmt.Errorf("framing: closed: %w", net.ErrClosed)

// keepWriteBuf is the largest compose buffer a Writer keeps between frames;
// one huge frame should not pin its size for the Writer's life.
const keepWriteBuf = 1 << 20

// Writer writes frames to an io.Writer. It is safe for concurrent use: each
// frame, header and body, goes out in one Write call under a lock, so frames
// from different goroutines never interleave.
type Writer struct {
	dst    io.Writer
	closed atomic.Bool // read without mu, so Close never waits behind a blocked Write

	mu     sync.Mutex
	buf    []byte // header+body of the frame being written
	broken error  // set when a frame went out in part
}

// NewWriter returns a Writer of frames to dst. The Writer does not own dst:
// its Close does not close dst.
func NewWriter(dst io.Writer) *Writer {
	return &Writer{dst: dst}
}

// WriteFrame writes one frame with body as its body. An error after part of
// the frame went out breaks the Writer: the peer holds a torn frame, so every
// later WriteFrame fails too.
func (w *Writer) WriteFrame(body []byte) error {
	_, err := w.writeFrame(body)
	return err
}

// writeFrame also returns the bytes written, header included.
func (w *Writer) writeFrame(body []byte) (int64, error) {
	if w.closed.Load() {
		return 0, fmt.Errorf("framing: write: %w", ErrClosed)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed.Load() {
		return 0, fmt.Errorf("framing: write: %w", ErrClosed)
	}
	if w.broken != nil {
		return 0, w.broken
	}
	buf := appendHeader(w.buf[:0], len(body))
	buf = append(buf, body...)
	if cap(buf) <= keepWriteBuf {
		w.buf = buf
	} else {
		w.buf = nil
	}
	n, err := w.dst.Write(buf)
	if err == nil && n != len(buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		err = fmt.Errorf("framing: write frame of %d bytes: %w", len(body), err)
		if n > 0 {
			w.broken = fmt.Errorf("framing: an earlier frame went out in part (%d of %d bytes), so the stream is torn: %w",
				n, len(buf), err)
		}
		return int64(n), err
	}
	return int64(n), nil
}

// Close makes every later WriteFrame fail with ErrClosed. A WriteFrame
// already blocked in dst.Write is not waited for; closing dst is what ends
// it (Conn.Close does both).
func (w *Writer) Close() error {
	w.closed.Store(true)
	return nil
}
