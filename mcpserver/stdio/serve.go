package stdio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one line read from the client. A longer line is
// read to its end without being kept, and answered with an error that
// names the limit.
const MaxLineBytes = 16 << 20

// shutdownGrace is how long the server waits, once the client has closed
// its input or a signal has come, for the tool calls it cancelled to
// return. A call that ignores its context must not keep the process
// alive: after the grace the server exits without it.
const shutdownGrace = time.Second

// MaxUnanswered bounds the client's requests that are read and not yet
// answered (the answer not yet written to stdout, or still being made).
// While that many are, no more input is read: a client that stops
// reading its answers, or sends requests faster than they are answered,
// holds the server to that many answers in memory instead of one per
// request it sent (10,000 calls of a client that did not read took
// 1.16 GB). Requests the server itself is waiting on the client to
// answer (sampling, elicitation) do not count, so the client's answers
// to them are always read.
const MaxUnanswered = 32

// errShutdown ends the session when the server is told to stop (a signal);
// tool calls in flight see it as the cause of their context's end.
var errShutdown = errors.New("the server is shutting down")

// Options tunes Serve; the zero value is the default.
type Options struct {
	// MaxLineBytes bounds one line read from the client (0 is
	// MaxLineBytes).
	MaxLineBytes int
	// MaxUnanswered bounds the requests read and not yet answered (0 is
	// MaxUnanswered).
	MaxUnanswered int
	// Warn receives what the client is not told: dropped notifications
	// and calls that outlived the grace (nil: nobody is told).
	Warn func(msg string)
}

// Serve serves s to one client over newline-delimited JSON-RPC on in and
// out until in ends or ctx is done, and then returns promptly: tool calls
// in flight are cancelled and waited for at most shutdownGrace. The client
// closing in, or ctx ending, is a normal end (nil); an error is what broke
// the session (out could not be written).
func Serve(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer, o Options) error {
	maxLine, warn := o.MaxLineBytes, o.Warn
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	if warn == nil {
		warn = func(string) {}
	}
	conn := newLineConn(in, out, maxLine, warn)
	conn.maxUnanswered = o.MaxUnanswered
	if conn.maxUnanswered <= 0 {
		conn.maxUnanswered = MaxUnanswered
	}
	ss, err := s.Connect(ctx, lineTransport{conn}, nil)
	if err != nil {
		return err
	}
	// Ending Read is what makes the SDK cancel every call in flight; closing
	// the session instead would wait for them to finish on their own.
	stop := context.AfterFunc(ctx, func() { conn.hangUp(fmt.Errorf("%w: %w", errShutdown, context.Cause(ctx))) })
	defer stop()
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		return endError(err)
	case <-conn.hungUp:
	}
	select {
	case err := <-ended:
		return endError(err)
	case <-time.After(shutdownGrace):
		warn(fmt.Sprintf("a tool call was still running %v after it was cancelled (%v); exiting without it", shutdownGrace, conn.why))
		return nil
	}
}

// endError is what the end of a session means to the caller: the client
// going away or a signal is a normal end, anything else (stdout broken)
// is reported.
func endError(err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, errShutdown) {
		return nil
	}
	return err
}

// lineTransport hands the SDK one lineConn.
type lineTransport struct{ conn *lineConn }

func (t lineTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// lineConn is an mcp.Connection over a line stream that answers bad lines
// itself and passes good ones to the SDK.
type lineConn struct {
	lines <-chan inLine
	warn  func(string)

	// writeMu keeps every frame whole: the SDK's responses and this
	// transport's error replies go out through write, one line each.
	writeMu sync.Mutex
	out     io.Writer

	hangOnce sync.Once
	hungUp   chan struct{} // closed when the input ended or hangUp was called
	why      error         // what Read returns from then on; set before hungUp closes

	closeOnce sync.Once
	closed    chan struct{}

	// The backlog: Read takes no line while unanswered-awaiting reaches
	// maxUnanswered. Guarded by backlogMu; changed is closed (and
	// replaced) when the backlog shrinks.
	maxUnanswered int
	backlogMu     sync.Mutex
	unanswered    int // the client's calls read, their answers not yet written
	awaiting      int // the server's calls written, their answers not yet read
	changed       chan struct{}
}

// inLine is one line of input, or the end of the input.
type inLine struct {
	data []byte         // the line, without its line ending
	over *oversizedLine // set, instead of data, for a line over the limit
	err  error          // io.EOF at the end of the input, or why it failed
}

func newLineConn(in io.Reader, out io.Writer, maxLine int, warn func(string)) *lineConn {
	lines := make(chan inLine)
	c := &lineConn{lines: lines, out: out, warn: warn, hungUp: make(chan struct{}), closed: make(chan struct{}),
		maxUnanswered: MaxUnanswered, changed: make(chan struct{})}
	// Reading happens on its own goroutine so that Read can return when the
	// connection is closed or hung up: a read of stdin cannot be
	// interrupted. The goroutine then ends with the process.
	go pumpLines(bufio.NewReaderSize(in, 64<<10), maxLine, lines, c.closed)
	return c
}

// pumpLines sends in's lines to lines until the input ends or closed is.
func pumpLines(in *bufio.Reader, maxLine int, lines chan<- inLine, closed <-chan struct{}) {
	for {
		l := readLine(in, maxLine)
		select {
		case lines <- l:
		case <-closed:
			return
		}
		if l.err != nil {
			return
		}
	}
}

// readLine reads one line, keeping at most about maxLine bytes of it: the
// rest of a longer line is only scanned, for the request id to answer.
func readLine(in *bufio.Reader, maxLine int) inLine {
	var buf []byte
	var over *oversizedLine
	for {
		chunk, err := in.ReadSlice('\n')
		if over != nil {
			over.scan(chunk)
		} else {
			buf = append(buf, chunk...)
			if len(buf) > maxLine+len("\r\n") {
				over = &oversizedLine{limit: maxLine}
				over.scan(buf)
				buf = nil
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) == 0 && over == nil:
			return inLine{err: io.EOF}
		case err != nil && !errors.Is(err, io.EOF):
			return inLine{err: err}
		}
		// A whole line, or the last one without a newline: the next call
		// reports the end.
		if over != nil {
			return inLine{over: over}
		}
		buf = trimLineEnding(buf)
		if len(buf) > maxLine {
			over = &oversizedLine{limit: maxLine}
			over.scan(buf)
			return inLine{over: over}
		}
		return inLine{data: buf}
	}
}

func trimLineEnding(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// Read returns the next good message. Bad lines met on the way are
// answered (or, for notifications, dropped with a warning) here, so the
// SDK never sees them.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if err := c.waitForRoom(ctx); err != nil {
			return nil, err
		}
		var l inLine
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.hungUp:
			return nil, c.why
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			// Still io.EOF to the SDK at the end (a normal end), but a cause
			// a cancelled call or a warning can show.
			err := fmt.Errorf("reading stdin: %w", l.err)
			if errors.Is(l.err, io.EOF) {
				err = fmt.Errorf("the client closed stdin: %w", io.EOF)
			}
			c.hangUp(err)
			return nil, err
		}
		var v verdict
		if l.over != nil {
			v = l.over.verdict()
		} else {
			v = judgeLine(l.data)
		}
		switch {
		case v.msg != nil:
			c.count(v.msg, true)
			return v.msg, nil
		case v.reply != nil:
			if err := c.write(v.reply); err != nil {
				return nil, err
			}
		case v.dropped != "":
			c.warn(v.dropped)
		}
	}
}

// hangUp ends reading: Read returns why from now on, which makes the SDK
// cancel every call in flight. Only the first call counts.
func (c *lineConn) hangUp(why error) {
	c.hangOnce.Do(func() {
		c.why = why
		close(c.hungUp)
	})
}

// Write sends one message from the SDK as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if _, ok := msg.(*jsonrpc.Response); ok {
		defer c.count(msg, false) // written or failed, on every path: no longer held
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
		c.count(msg, false) // before its answer can be read
	}
	return c.write(data)
}

// count keeps the backlog: msg was read (in) or written (!in).
func (c *lineConn) count(msg jsonrpc.Message, in bool) {
	c.backlogMu.Lock()
	defer c.backlogMu.Unlock()
	shrank := false
	switch m := msg.(type) {
	case *jsonrpc.Request:
		switch {
		case !m.IsCall():
		case in:
			c.unanswered++
		default:
			c.awaiting++
			shrank = true
		}
	case *jsonrpc.Response:
		if in {
			c.awaiting = max(c.awaiting-1, 0)
		} else {
			c.unanswered = max(c.unanswered-1, 0)
			shrank = true
		}
	}
	if shrank {
		close(c.changed)
		c.changed = make(chan struct{})
	}
}

// waitForRoom returns when the backlog lets Read take another line, or
// with the error Read returns when the session ends meanwhile.
func (c *lineConn) waitForRoom(ctx context.Context) error {
	for {
		c.backlogMu.Lock()
		room := c.unanswered-c.awaiting < c.maxUnanswered
		changed := c.changed
		c.backlogMu.Unlock()
		if room {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.hungUp:
			return c.why
		case <-c.closed:
			return io.EOF
		}
	}
}

// write sends data and a newline as one frame.
func (c *lineConn) write(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close stops reading. It does not close stdin or stdout: the process
// owns them, and a blocked read of stdin would not end anyway.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
