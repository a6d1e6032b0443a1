package sharedhub

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Status is what a hub says of itself (cchub status).
type Status struct {
	PID        int         `json:"pid"`
	ID         string      `json:"id"`
	Started    time.Time   `json:"started"`
	Sessions   int         `json:"sessions"`
	IdleFor    string      `json:"idle_for,omitempty"` // with no session, since
	IdleLimit  string      `json:"idle_limit"`
	RSSBytes   int64       `json:"rss_bytes"`
	Workspaces []Workspace `json:"workspaces"`
}

// Workspace is one workspace a hub serves.
type Workspace struct {
	Root     string   `json:"root"`
	Args     []string `json:"args,omitempty"`
	Sessions int      `json:"sessions"`
	Commands int      `json:"commands"` // one-shot commands answered (cchub grep …)
	IdleFor  string   `json:"idle_for,omitempty"`
	Servers  []Server `json:"servers,omitempty"`
}

// Server is one language server a workspace runs.
type Server struct {
	Name     string `json:"name"` // name@root, as lspmux keys it
	PID      int    `json:"pid"`
	RSSBytes int64  `json:"rss_bytes"`
}

// Handler opens what fronts ask for: MCP sessions (OpMCP), one-shot
// commands (OpCLI), and says the hub's workspaces (OpStatus). What it
// refuses is said to the front in the reply.
type Handler interface {
	// Open prepares the session hello asks for, or says why it cannot.
	Open(ctx context.Context, h Hello) (Session, error)
	// Status is the hub's workspaces, for OpStatus.
	Status() []Workspace
	// OpenCLI prepares the one-shot command hello asks for (OpCLI), or
	// says why the hub will not run it (the front then runs it itself):
	// run runs it, writing its output, and returns its exit code.
	OpenCLI(h Hello) (run func(ctx context.Context, stdout, stderr io.Writer) int, err error)
}

// Session is one front's session, begun by Handler.Open.
type Session interface {
	// Serve runs the session over r and c until the front closes or ctx
	// ends.
	Serve(ctx context.Context, r *bufio.Reader, c net.Conn) error
	// Close ends it (after Serve returned).
	Close()
}

// Hub is the serving side: a socket, and the sessions on it.
type Hub struct {
	id      string
	ln      *net.UnixListener
	files   files
	idle    time.Duration
	handler Handler
	warn    func(string)
	started time.Time

	mu       sync.Mutex
	sessions int
	idleAt   time.Time // when the last session ended (or the hub began)
	wake     chan struct{}
}

// Listen makes the socket of hub id in dir (a socket left by a hub that
// died is replaced; one a live hub answers on is not: ErrRunning).
func Listen(dir, id string, idle time.Duration, handler Handler, warn func(string)) (*Hub, error) {
	fs := hubFiles(dir, id)
	if c, err := net.DialTimeout("unix", fs.socket, time.Second); err == nil {
		c.Close()
		return nil, ErrRunning
	}
	os.Remove(fs.socket) // a dead hub's
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: fs.socket, Net: "unix"})
	if err != nil {
		return nil, err
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(fs.socket, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	if warn == nil {
		warn = func(string) {}
	}
	now := time.Now()
	return &Hub{id: id, ln: ln, files: fs, idle: idle, handler: handler, warn: warn, started: now, idleAt: now, wake: make(chan struct{}, 1)}, nil
}

// ErrRunning says a hub already answers on the socket.
var ErrRunning = errors.New("a hub already answers on this socket")

// Run accepts fronts until the hub has had no session for its idle time
// or ctx ends; then it stops accepting, ends the sessions (ctx's end
// reaches them) and returns once they have. A hub that ends well takes
// its socket and its log with it (the empty start lock stays: a lock
// file removed while another front waits on it would let two hubs
// start).
func (h *Hub) Run(ctx context.Context) (err error) {
	defer func() {
		if err == nil {
			h.removeLog()
		}
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() { // owned: waited for above; ends the listener at ctx's end or idle
		defer wg.Done()
		h.watchIdle(ctx)
		h.ln.Close()
	}()
	for {
		c, err := h.ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		wg.Add(1)
		go func() { // owned: waited for in Run
			defer wg.Done()
			defer c.Close()
			h.serve(ctx, c)
		}()
	}
}

// removeLog removes the hub's log, unless a hub started since (under
// the start lock, which a starting front holds) may be writing to it.
func (h *Hub) removeLog() {
	fh, err := os.OpenFile(h.files.lock, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer fh.Close()
	if syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // a front is starting a hub: the log is its
	}
	defer syscall.Flock(int(fh.Fd()), syscall.LOCK_UN)
	if c, err := net.DialTimeout("unix", h.files.socket, time.Second); err == nil {
		c.Close()
		return // a hub started since answers: the log is its
	}
	os.Remove(h.files.log)
}

// watchIdle returns when ctx ends or the hub has been without a session
// for its idle time.
func (h *Hub) watchIdle(ctx context.Context) {
	for {
		h.mu.Lock()
		busy, since := h.sessions > 0, h.idleAt
		h.mu.Unlock()
		wait := h.idle
		if !busy {
			wait = h.idle - time.Since(since)
			if wait <= 0 {
				return
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-h.wake:
			t.Stop()
		case <-t.C:
		}
	}
}

func (h *Hub) begin() {
	h.mu.Lock()
	h.sessions++
	h.mu.Unlock()
	h.poke()
}

func (h *Hub) end() {
	h.mu.Lock()
	h.sessions--
	if h.sessions == 0 {
		h.idleAt = time.Now()
	}
	h.mu.Unlock()
	h.poke()
}

func (h *Hub) poke() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// serve answers one front: its uid checked, its hello read and answered,
// then its session served.
func (h *Hub) serve(ctx context.Context, c *net.UnixConn) {
	if _, err := samePeer(c); err != nil {
		h.warn("refused a connection: " + err.Error())
		return
	}
	r := bufio.NewReaderSize(c, 64<<10)
	var hello Hello
	if err := readLine(c, r, &hello); err != nil {
		h.warn("a front's hello did not read: " + err.Error())
		return
	}
	switch hello.Op {
	case OpStatus:
		st := h.status()
		writeLine(c, reply{Status: &st})
	case OpMCP:
		h.begin()
		defer h.end()
		s, err := h.handler.Open(ctx, hello)
		if err != nil {
			writeLine(c, reply{Error: err.Error()})
			return
		}
		defer s.Close()
		if err := writeLine(c, reply{}); err != nil {
			return
		}
		if err := s.Serve(ctx, r, c); err != nil && ctx.Err() == nil {
			h.warn(fmt.Sprintf("session on %s ended: %v", hello.Root, err))
		}
	case OpCLI:
		run, err := h.handler.OpenCLI(hello)
		if err != nil {
			writeLine(c, reply{Error: err.Error()})
			return
		}
		if err := writeLine(c, reply{}); err != nil {
			return
		}
		fw := &frameWriter{c: c}
		code := run(ctx, fw.out(), fw.err())
		fw.send(frame{Exit: &code})
	default:
		writeLine(c, reply{Error: fmt.Sprintf("unknown op %q: this hub speaks %q and %q", hello.Op, OpMCP, OpStatus)})
	}
}

// frameWriter sends a command's output as frames, one at a time.
type frameWriter struct {
	mu     sync.Mutex
	c      net.Conn
	failed bool
}

func (fw *frameWriter) send(f frame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.failed {
		return io.ErrClosedPipe
	}
	if _, err := fw.c.Write(append(b, '\n')); err != nil {
		fw.failed = true
		return err
	}
	return nil
}

type frameOut struct {
	fw    *frameWriter
	isErr bool
}

func (o frameOut) Write(p []byte) (int, error) {
	f := frame{Out: string(p)}
	if o.isErr {
		f = frame{Err: string(p)}
	}
	if err := o.fw.send(f); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (fw *frameWriter) out() io.Writer { return frameOut{fw: fw} }
func (fw *frameWriter) err() io.Writer { return frameOut{fw: fw, isErr: true} }

func (h *Hub) status() Status {
	h.mu.Lock()
	st := Status{PID: os.Getpid(), ID: h.id, Started: h.started, Sessions: h.sessions, IdleLimit: h.idle.String()}
	if h.sessions == 0 {
		st.IdleFor = time.Since(h.idleAt).Round(time.Second).String()
	}
	h.mu.Unlock()
	st.RSSBytes = RSS(st.PID)
	st.Workspaces = h.handler.Status()
	return st
}

// RSS is the resident memory of process pid, in bytes (0 when it cannot
// be read).
func RSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	var size, resident int64
	if _, err := fmt.Sscan(string(b), &size, &resident); err != nil {
		return 0
	}
	return resident * int64(syscall.Getpagesize())
}
