package framing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Conn is a framed connection over one transport: a Reader and a Writer that
// take contexts, and a Close that ends both. DAP's codec and the jsonrpc2
// Stream sit on it. ReadFrame and WriteFrame may each be called from many
// goroutines; calls of one kind take turns.
type Conn struct {
	rwc io.ReadWriteCloser
	r   *Reader
	w   *Writer

	// readTurn and writeTurn hold a token while a read (a write) is in
	// progress. They are channels, not mutexes, so that a caller waiting for
	// its turn can give up when its context ends.
	readTurn, writeTurn chan struct{}

	// setReadDeadline and setWriteDeadline are the transport's, or nil when
	// it has none; they are how a context interrupts a blocked call.
	setReadDeadline, setWriteDeadline func(time.Time) error

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// NewConn returns a Conn over rwc, which it owns: Close closes it, and the
// Conn sets (and clears) its deadlines when rwc has them.
func NewConn(rwc io.ReadWriteCloser, opts Options) *Conn {
	c := &Conn{
		rwc:       rwc,
		r:         NewReader(rwc, opts),
		w:         NewWriter(rwc),
		readTurn:  make(chan struct{}, 1),
		writeTurn: make(chan struct{}, 1),
	}
	// Setting the zero deadline is a harmless probe: a file that is not
	// pollable (a regular file) says os.ErrNoDeadline.
	if d, ok := rwc.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(time.Time{}) == nil {
		c.setReadDeadline = d.SetReadDeadline
	}
	if d, ok := rwc.(interface{ SetWriteDeadline(time.Time) error }); ok && d.SetWriteDeadline(time.Time{}) == nil {
		c.setWriteDeadline = d.SetWriteDeadline
	}
	return c
}

// ReadFrame returns the body of the next frame, which belongs to the caller,
// or io.EOF when the peer closed the transport between frames. It returns
// ctx's error when ctx ends first: at once if it has ended, while waiting for
// another ReadFrame, and while blocked on the peer if the transport has
// deadlines. Such an interruption loses nothing: the next ReadFrame
// continues the frame.
func (c *Conn) ReadFrame(ctx context.Context) ([]byte, error) {
	body, _, err := c.readFrame(ctx)
	return body, err
}

// readFrame also returns the frame's size on the wire.
func (c *Conn) readFrame(ctx context.Context) ([]byte, int64, error) {
	if err := c.enter(ctx, c.readTurn, "read"); err != nil {
		return nil, 0, err
	}
	defer func() { <-c.readTurn }()
	stop := interruptOn(ctx, c.setReadDeadline)
	body, n, err := c.r.readFrame()
	interrupted := stop()
	if err != nil {
		return nil, 0, c.explain(ctx, "read", err, interrupted)
	}
	// A frame that arrived as ctx ended is delivered: nothing was lost.
	return body, n, nil
}

// WriteFrame writes one frame with body as its body, in one write to the
// transport. It returns ctx's error when ctx ends first: at once if it has
// ended, while waiting for another WriteFrame, and while blocked on the peer
// if the transport has deadlines. An interruption after part of the frame
// went out breaks the Conn for writing (see Writer.WriteFrame).
func (c *Conn) WriteFrame(ctx context.Context, body []byte) error {
	_, err := c.writeFrame(ctx, body)
	return err
}

// writeFrame also returns the bytes written, header included.
func (c *Conn) writeFrame(ctx context.Context, body []byte) (int64, error) {
	if err := c.enter(ctx, c.writeTurn, "write"); err != nil {
		return 0, err
	}
	defer func() { <-c.writeTurn }()
	stop := interruptOn(ctx, c.setWriteDeadline)
	n, err := c.w.writeFrame(body)
	interrupted := stop()
	if err == nil {
		return n, nil
	}
	err = c.explain(ctx, "write", err, interrupted)
	if n > 0 && errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("framing: write interrupted after %d bytes of a frame, which leaves the stream torn and the Conn unable to write: %w",
			n, ctx.Err())
	}
	return n, err
}

// Close closes the transport, which ends any ReadFrame or WriteFrame blocked
// on it, and makes every later call fail with ErrClosed. It returns the
// transport's Close error, the same on every call.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.w.Close()
		if err := c.rwc.Close(); err != nil {
			c.closeErr = fmt.Errorf("framing: close: %w", err)
		}
	})
	return c.closeErr
}

// enter takes the turn for op, unless ctx ends or the Conn is closed first.
func (c *Conn) enter(ctx context.Context, turn chan struct{}, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("framing: %s: %w", op, err)
	}
	if c.closed.Load() {
		return fmt.Errorf("framing: %s: %w", op, ErrClosed)
	}
	select {
	case turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("framing: %s: %w", op, ctx.Err())
	}
	if c.closed.Load() {
		<-turn
		return fmt.Errorf("framing: %s: %w", op, ErrClosed)
	}
	return nil
}

// explain says why a read or write failed: because the Conn was closed,
// because ctx interrupted it, or err itself.
func (c *Conn) explain(ctx context.Context, op string, err error, interrupted bool) error {
	switch {
	case err == io.EOF:
		return err
	case c.closed.Load():
		return fmt.Errorf("framing: %s: %w", op, ErrClosed)
	case interrupted && errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("framing: %s interrupted: %w", op, ctx.Err())
	}
	return err
}

// longAgo is a deadline that has passed: setting it wakes a blocked call.
var longAgo = time.Unix(1, 0)

// interruptOn arranges for set(longAgo) to run when ctx ends, so that a call
// blocked on the transport returns. The returned stop undoes the
// arrangement, clearing the deadline if it was set, and reports whether it
// was. The function AfterFunc runs is waited for by stop, so no goroutine
// outlives the call.
func interruptOn(ctx context.Context, set func(time.Time) error) (stop func() bool) {
	if set == nil || ctx.Done() == nil {
		return func() bool { return false }
	}
	fired := make(chan struct{})
	cancel := context.AfterFunc(ctx, func() {
		set(longAgo)
		close(fired)
	})
	return func() bool {
		if cancel() {
			return false
		}
		<-fired
		set(time.Time{})
		return true
	}
}

// Duplex joins a reader and a writer, such as a child process's stdout and
// stdin, into the io.ReadWriteCloser that NewConn and NewStream take. Close
// closes the writer, then the reader, and returns both errors. Deadlines are
// passed on to the halves that have them (an *os.File pipe does; exec.Cmd's
// StdinPipe hides its file's), so a Conn over a Duplex can interrupt a
// blocked call when its context ends.
func Duplex(r io.ReadCloser, w io.WriteCloser) io.ReadWriteCloser {
	return &duplex{r: r, w: w}
}

type duplex struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (d *duplex) Read(p []byte) (int, error)  { return d.r.Read(p) }
func (d *duplex) Write(p []byte) (int, error) { return d.w.Write(p) }

func (d *duplex) Close() error {
	return errors.Join(d.w.Close(), d.r.Close())
}

func (d *duplex) SetReadDeadline(t time.Time) error {
	if s, ok := d.r.(interface{ SetReadDeadline(time.Time) error }); ok {
		return s.SetReadDeadline(t)
	}
	return os.ErrNoDeadline
}

func (d *duplex) SetWriteDeadline(t time.Time) error {
	if s, ok := d.w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		return s.SetWriteDeadline(t)
	}
	return os.ErrNoDeadline
}
