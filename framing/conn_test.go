package framing

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// within fails the test if f does not return in time: a call that should
// have been interrupted must not hang the run.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// TestConnReadInterrupted checks that a context ends a ReadFrame blocked on
// a transport with deadlines (net.Pipe), before the frame and in its
// middle, and that nothing is lost: the next ReadFrame returns the frame
// whole.
func TestConnReadInterrupted(t *testing.T) {
	a, b := net.Pipe()
	c := NewConn(a, Options{})
	defer c.Close()
	defer b.Close()

	read := func(d time.Duration) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		var body []byte
		var err error
		within(t, 5*time.Second, "ReadFrame", func() { body, err = c.ReadFrame(ctx) })
		return body, err
	}

	// Nothing sent yet.
	if _, err := read(20 * time.Millisecond); !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), "framing: read interrupted") {
		t.Fatalf("ReadFrame with nothing sent = %v, want the context's error", err)
	}
	// Half a header, then half a body.
	for _, piece := range []string{"Content-Len", "gth: 11\r\n\r\nhello"} {
		go b.Write([]byte(piece))
		if _, err := read(50 * time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("ReadFrame of a partial frame = %v, want the context's error", err)
		}
	}
	go b.Write([]byte(" world"))
	body, err := read(5 * time.Second)
	if err != nil || string(body) != "hello world" {
		t.Fatalf("ReadFrame after interruptions = %q, %v; want the whole frame", body, err)
	}
	// The deadline was cleared: a read with no deadline of its own waits.
	go func() { time.Sleep(50 * time.Millisecond); b.Write([]byte(frame("later"))) }()
	body, err = read(5 * time.Second)
	if err != nil || string(body) != "later" {
		t.Fatalf("ReadFrame = %q, %v", body, err)
	}
}

// TestConnWriteInterrupted checks that a context ends a WriteFrame blocked on
// a peer that does not read: one that sent nothing leaves the Conn usable,
// one that sent part of its frame breaks it for writing.
func TestConnWriteInterrupted(t *testing.T) {
	a, b := net.Pipe()
	c := NewConn(a, Options{})
	defer c.Close()
	defer b.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	var err error
	within(t, 5*time.Second, "WriteFrame", func() { err = c.WriteFrame(ctx, []byte("unread")) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WriteFrame to a peer that does not read = %v, want the context's error", err)
	}

	// Nothing went out, so the Conn still writes.
	wrote := make(chan error, 1)
	go func() { wrote <- c.WriteFrame(context.Background(), []byte("hello")) }()
	peer := NewReader(b, Options{})
	if body, rerr := peer.ReadFrame(); rerr != nil || string(body) != "hello" {
		t.Fatalf("peer read %q, %v", body, rerr)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("WriteFrame after an interruption that sent nothing = %v", err)
	}

	// The peer reads five bytes of the next frame and stops.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	done := make(chan error)
	go func() { done <- c.WriteFrame(ctx2, []byte("torn frame")) }()
	if _, rerr := io.ReadFull(b, make([]byte, 5)); rerr != nil {
		t.Fatal(rerr)
	}
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("WriteFrame was not interrupted")
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "after 5 bytes of a frame") {
		t.Fatalf("interrupted partial WriteFrame = %v", err)
	}
	err = c.WriteFrame(context.Background(), []byte("after"))
	if err == nil || !strings.Contains(err.Error(), "went out in part") {
		t.Fatalf("WriteFrame after a torn frame = %v, want the Conn broken for writing", err)
	}
}

// TestConnWaitingWriterGivesUp checks that a WriteFrame waiting for its turn
// behind a blocked one returns when its context ends.
func TestConnWaitingWriterGivesUp(t *testing.T) {
	pr, pw := io.Pipe() // no deadlines: the first write blocks until Close
	c := NewConn(struct {
		io.Reader
		io.WriteCloser
	}{pr, pw}, Options{})
	first := make(chan error)
	go func() { first <- c.WriteFrame(context.Background(), []byte("blocks")) }()
	time.Sleep(20 * time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	var err error
	within(t, 5*time.Second, "waiting WriteFrame", func() { err = c.WriteFrame(ctx, []byte("waits")) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting WriteFrame = %v, want the context's error", err)
	}
	c.Close()
	pr.Close()
	if err := <-first; !errors.Is(err, ErrClosed) {
		t.Errorf("blocked WriteFrame after Close = %v, want ErrClosed", err)
	}
}

// TestConnCloseEndsBlockedRead checks the other way out, for transports
// without deadlines and for callers without contexts: Close ends a blocked
// ReadFrame, and every call after it fails with ErrClosed.
func TestConnCloseEndsBlockedRead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	c := NewConn(struct {
		io.ReadCloser
		io.Writer
	}{pr, io.Discard}, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	read := make(chan error)
	go func() { _, err := c.ReadFrame(ctx); read <- err }()
	select {
	case err := <-read:
		t.Fatalf("ReadFrame on a transport without deadlines returned %v before Close", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-read:
		if !errors.Is(err, ErrClosed) || !errors.Is(err, net.ErrClosed) {
			t.Errorf("blocked ReadFrame after Close = %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the blocked ReadFrame")
	}
	if _, err := c.ReadFrame(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("ReadFrame after Close = %v", err)
	}
	if err := c.WriteFrame(context.Background(), []byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteFrame after Close = %v", err)
	}
}

// TestConnDoneContext checks that a context that has already ended stops a
// call before it touches the transport.
func TestConnDoneContext(t *testing.T) {
	var cw countingWriter
	c := NewConn(struct {
		io.Reader
		io.Writer
		io.Closer
	}{strings.NewReader(frame("x")), &cw, io.NopCloser(nil)}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.ReadFrame(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFrame = %v", err)
	}
	if err := c.WriteFrame(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteFrame = %v", err)
	}
	if len(cw.writes) != 0 {
		t.Errorf("wrote %q", cw.writes)
	}
	if body, err := c.ReadFrame(context.Background()); err != nil || string(body) != "x" {
		t.Errorf("ReadFrame = %q, %v: the cancelled call consumed input", body, err)
	}
}

// TestDuplexDeadlines checks that a Duplex of os.Pipe files passes deadlines
// on, so a context interrupts a Conn over a child's stdio.
func TestDuplexDeadlines(t *testing.T) {
	inR, inW, err := os.Pipe() // what the Conn reads
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // what the Conn writes
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	defer outR.Close()
	c := NewConn(Duplex(inR, outW), Options{})
	if c.setReadDeadline == nil || c.setWriteDeadline == nil {
		t.Fatal("Duplex of os.Pipe files hides their deadlines")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	within(t, 5*time.Second, "ReadFrame", func() {
		if _, err := c.ReadFrame(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("ReadFrame = %v", err)
		}
	})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// Close closed both halves.
	if _, err := inR.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("read half after Close: %v", err)
	}
	if _, err := outW.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("write half after Close: %v", err)
	}

	// A half without deadlines says so, and the Conn does without.
	c = NewConn(Duplex(io.NopCloser(strings.NewReader("")), nopWriteCloser{io.Discard}), Options{})
	if c.setReadDeadline != nil || c.setWriteDeadline != nil {
		t.Error("Conn believes a Duplex of plain halves has deadlines")
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
