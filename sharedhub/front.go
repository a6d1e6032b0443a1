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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Front is what a `cchub mcp` process needs to join the user's hub.
type Front struct {
	// Dir is the sockets' directory (Dir()), ID the hub's name
	// (Identity()).
	Dir, ID string
	// Start starts the hub process, detached, to listen on Dir as ID; it
	// returns once the process runs (the front waits for the socket),
	// with a channel closed should the process end.
	Start func() (exited <-chan struct{}, err error)
	// Warn says what the client is not told (a restarted hub).
	Warn func(string)
}

// startWait bounds the wait for a started hub's socket.
const startWait = 20 * time.Second

// maxRestarts bounds how often one session starts a hub that died under
// it: past that, sharing is given up and the session ends with an error.
const maxRestarts = 3

// Join connects to the hub, starting it when none answers, and opens the
// session hello asks for. What it returns is the session's connection
// and a reader of it; an error means the session must be served some
// other way (in this process), and says why.
func (f *Front) Join(ctx context.Context, hello Hello) (*net.UnixConn, *bufio.Reader, error) {
	fs := hubFiles(f.Dir, f.ID)
	if len(fs.socket) > maxSocketPath {
		return nil, nil, fmt.Errorf("the hub's socket path %s is %d bytes, more than a unix socket's %d: set %s to a shorter directory", fs.socket, len(fs.socket), maxSocketPath, EnvDir)
	}
	var last error
	for attempt := range joinAttempts {
		if attempt > 0 {
			// The hub that was dialled ended before it answered (it
			// was killed, or reached its idle time): the next dial
			// finds it gone and starts another.
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
			}
		}
		c, err := dialHub(fs.socket)
		if err != nil {
			c, err = f.startHub(ctx, fs)
			if err != nil {
				return nil, nil, err
			}
		}
		r := bufio.NewReaderSize(c, 64<<10)
		if err := writeLine(c, hello); err != nil {
			c.Close()
			last = fmt.Errorf("saying hello to the hub: %w", err)
			continue
		}
		var rep reply
		if err := readLine(c, r, &rep); err != nil {
			c.Close()
			last = fmt.Errorf("the hub's answer to hello: %w", err)
			continue
		}
		if rep.Error != "" {
			c.Close()
			return nil, nil, fmt.Errorf("the hub refused the session: %s", rep.Error)
		}
		return c, r, nil
	}
	return nil, nil, last
}

// joinAttempts bounds how often Join dials a hub that ends before it
// answers hello.
const joinAttempts = 4

// dialHub connects to socket and checks that the hub is this user's.
func dialHub(socket string) (*net.UnixConn, error) {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		return nil, err
	}
	if _, err := samePeer(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// startHub starts the hub under the start lock (another front may be
// starting it: then it is joined) and connects to it.
func (f *Front) startHub(ctx context.Context, fs files) (*net.UnixConn, error) {
	unlock, err := lockFile(ctx, fs.lock)
	if err != nil {
		return nil, fmt.Errorf("the hub's start lock: %w", err)
	}
	defer unlock()
	if c, err := dialHub(fs.socket); err == nil {
		return c, nil // another front started it meanwhile
	}
	exited, err := f.Start()
	if err != nil {
		return nil, fmt.Errorf("starting the hub: %w", err)
	}
	deadline := time.Now().Add(startWait)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		c, err := dialHub(fs.socket)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the hub started did not answer within %v (its log: %s): %w", startWait, fs.log, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-exited:
			if c, err := dialHub(fs.socket); err == nil {
				return c, nil // it found another hub answering, and left
			}
			return nil, fmt.Errorf("the hub started exited at once (%s; its log: %s)", lastLine(fs.log), fs.log)
		case <-time.After(wait):
		}
	}
}

// maxSocketPath is the longest path a unix socket can have (Linux's
// sun_path holds 108 bytes with the final NUL; other systems 104).
const maxSocketPath = 103

// lastLine is the last line of the file name (a hub's log), bounded and
// with control characters escaped, or "no log" when it has none.
func lastLine(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		return "no log"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	line := lines[len(lines)-1]
	if len(line) > 300 {
		line = line[:300] + "…"
	}
	return strconv.Quote(line)
}

// lockFile takes an exclusive lock on path (made 0600), waiting for it
// until ctx ends or startWait passes.
func lockFile(ctx context.Context, path string) (func(), error) {
	fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(startWait)
	for {
		err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(fh.Fd()), syscall.LOCK_UN)
				fh.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			fh.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			fh.Close()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Status asks the running hub for its status: ok is false when no hub
// answers.
func (f *Front) Status() (st Status, ok bool, err error) {
	c, err := dialHub(hubFiles(f.Dir, f.ID).socket)
	if err != nil {
		return st, false, nil
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if err := writeLine(c, Hello{Op: OpStatus}); err != nil {
		return st, true, err
	}
	var rep reply
	if err := readLine(c, r, &rep); err != nil {
		return st, true, err
	}
	if rep.Error != "" || rep.Status == nil {
		return st, true, fmt.Errorf("the hub did not say its status: %s", rep.Error)
	}
	return *rep.Status, true, nil
}

// Call runs a one-shot command in the running hub, if there is one and
// it takes it (served): its output goes to stdout and stderr as the hub
// writes it, and code is its exit code. No hub is started for it: a
// command the hub does not serve runs in the caller's process.
func (f *Front) Call(ctx context.Context, hello Hello, stdout, stderr io.Writer) (code int, served bool, err error) {
	c, err := dialHub(hubFiles(f.Dir, f.ID).socket)
	if err != nil {
		return 0, false, nil
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	r := bufio.NewReaderSize(c, 64<<10)
	if err := writeLine(c, hello); err != nil {
		return 0, false, nil
	}
	var rep reply
	if err := readLine(c, r, &rep); err != nil || rep.Error != "" {
		return 0, false, nil
	}
	for {
		line, err := readRaw(r)
		if len(line) > 0 {
			var fr frame
			if jerr := json.Unmarshal(line, &fr); jerr != nil {
				return 2, true, fmt.Errorf("the shared hub's answer does not read: %v", jerr)
			}
			switch {
			case fr.Exit != nil:
				return *fr.Exit, true, nil
			case fr.Out != "":
				if _, err := io.WriteString(stdout, fr.Out); err != nil {
					return 2, true, err
				}
			case fr.Err != "":
				io.WriteString(stderr, fr.Err)
			}
		}
		if err != nil {
			return 2, true, fmt.Errorf("the shared hub stopped before the command ended: %w (run it again with CCHUB_NO_SHARE=1 to run it on its own)", err)
		}
	}
}

// Carry carries an MCP session between the client (in, out: newline-
// delimited JSON-RPC) and the hub (c, r from Join), byte for byte, until
// the client closes in and the hub has answered. When the hub dies under
// the session it is joined again (started again if need be): the
// client's initialize and initialized are told to the new hub (its
// answer is the client's no longer), and each request the old hub had
// not answered is answered with an error that says to call again.
func (f *Front) Carry(ctx context.Context, hello Hello, c *net.UnixConn, r *bufio.Reader, in io.Reader, out io.Writer) error {
	cr := &carrier{f: f, hello: hello, conn: c, pending: map[string]json.RawMessage{}}
	inDone := make(chan struct{})
	go func() { // ends at the client's EOF, or with the process: a read of stdin cannot be interrupted
		defer close(inDone)
		cr.fromClient(in)
	}()
	// A signal ends the session: the hub's side closes, which ends the
	// read below.
	stop := context.AfterFunc(ctx, cr.closeConn)
	defer stop()
	err := cr.toClient(ctx, r, out, inDone)
	cr.closeConn()
	if err == nil && ctx.Err() == nil {
		<-inDone // the client closed its end: the reader has returned
	}
	// On an error the client may still be waiting for answers: the
	// caller ends the process, which closes its output and ends the
	// reader.
	return err
}

// carrier is one carried session.
type carrier struct {
	f     *Front
	hello Hello

	mu          sync.Mutex
	conn        *net.UnixConn
	initialize  []byte                     // the client's initialize request, as sent
	initialized []byte                     // its initialized notification
	pending     map[string]json.RawMessage // requests sent, not answered: id → id
	queued      [][]byte                   // lines the client sent while the hub was joined again
	clientDone  bool
}

// rpcHead is what the carrier reads of a message.
type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// fromClient sends the client's lines to the hub, noting its requests.
func (cr *carrier) fromClient(in io.Reader) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readRaw(br)
		if len(line) > 0 {
			var h rpcHead
			_ = json.Unmarshal(line, &h) // a malformed line is the hub's to answer
			cr.mu.Lock()
			switch {
			case h.Method == "initialize" && cr.initialize == nil:
				cr.initialize = append([]byte(nil), line...)
			case h.Method == "notifications/initialized" && cr.initialized == nil:
				cr.initialized = append([]byte(nil), line...)
			}
			if h.Method != "" && len(h.ID) > 0 && string(h.ID) != "null" {
				cr.pending[string(h.ID)] = h.ID
			}
			conn := cr.conn
			if conn == nil {
				// The hub is being joined again: the line goes to the
				// new one.
				cr.queued = append(cr.queued, append([]byte(nil), line...))
			}
			cr.mu.Unlock()
			if conn != nil {
				// A failed write is the hub's death: the reader side
				// finds it, and answers the request left pending.
				conn.Write(line)
			}
		}
		if err != nil {
			cr.mu.Lock()
			cr.clientDone = true
			conn := cr.conn
			cr.mu.Unlock()
			if conn != nil {
				conn.CloseWrite()
			}
			return
		}
	}
}

// toClient sends the hub's lines to the client, noting its answers, and
// joins the hub again when it dies while the client is still there.
func (cr *carrier) toClient(ctx context.Context, r *bufio.Reader, out io.Writer, inDone <-chan struct{}) error {
	restarts := 0
	var swallow string // the id of a replayed initialize, whose answer is not the client's
	for {
		line, err := readRaw(r)
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var h rpcHead
			if json.Unmarshal(line, &h) == nil && h.Method == "" && len(h.ID) > 0 {
				if string(h.ID) == swallow {
					swallow = ""
					continue
				}
				cr.mu.Lock()
				delete(cr.pending, string(h.ID))
				cr.mu.Unlock()
			}
			if _, werr := out.Write(line); werr != nil {
				return werr
			}
			continue
		}
		if err == nil {
			continue
		}
		// The hub closed the session: after the client's EOF, its end;
		// before, its death.
		select {
		case <-inDone:
			return nil
		default:
		}
		if ctx.Err() != nil {
			return nil // a signal: the session ends, as in-process
		}
		cr.mu.Lock()
		done := cr.clientDone
		cr.mu.Unlock()
		if done {
			return nil
		}
		if restarts == maxRestarts {
			return fmt.Errorf("the shared hub stopped %d times under this session: ending it (cchub mcp --no-share serves a session in its own process)", restarts)
		}
		restarts++
		if err := cr.answerPending(out); err != nil {
			return err
		}
		var nr *bufio.Reader
		var replayID string
		if nr, replayID, err = cr.rejoin(ctx, restarts); err != nil {
			return fmt.Errorf("the shared hub stopped and could not be joined again: %w", err)
		}
		r, swallow = nr, replayID
		cr.f.warn("the shared hub stopped under this session; it was joined again")
	}
}

// answerPending answers each request the dead hub left unanswered.
func (cr *carrier) answerPending(out io.Writer) error {
	cr.mu.Lock()
	ids := cr.pending
	cr.pending = map[string]json.RawMessage{}
	cr.conn = nil // lines the client sends meanwhile are not carried
	cr.mu.Unlock()
	for _, id := range ids {
		msg, _ := json.Marshal(map[string]any{
			"jsonrpc": "2.0", "id": id,
			"error": map[string]any{"code": -32603, "message": "cchub's shared hub stopped while answering this call; it has been started again: call again"},
		})
		if _, err := out.Write(append(msg, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// rejoin joins the hub again and replays the client's initialize (with a
// front's own id, whose answer is swallowed) and initialized.
func (cr *carrier) rejoin(ctx context.Context, n int) (*bufio.Reader, string, error) {
	c, r, err := cr.f.Join(ctx, cr.hello)
	if err != nil {
		return nil, "", err
	}
	cr.mu.Lock()
	init, initd := cr.initialize, cr.initialized
	cr.mu.Unlock()
	var id string
	if init != nil {
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(init, &msg); err != nil {
			c.Close()
			return nil, "", err
		}
		id = fmt.Sprintf("%q", fmt.Sprintf("cchub-front-rejoin-%d", n))
		msg["id"] = json.RawMessage(id)
		b, _ := json.Marshal(msg)
		if _, err := c.Write(append(b, '\n')); err != nil {
			c.Close()
			return nil, "", err
		}
		if initd != nil {
			if _, err := c.Write(initd); err != nil {
				c.Close()
				return nil, "", err
			}
		}
	}
	cr.mu.Lock()
	for _, line := range cr.queued {
		c.Write(line) // a failure is this hub's death, found by the reader
	}
	cr.queued = nil
	old := cr.conn
	cr.conn = c
	done := cr.clientDone
	cr.mu.Unlock()
	if old != nil {
		old.Close()
	}
	if done {
		c.CloseWrite()
	}
	return r, id, nil
}

func (cr *carrier) closeConn() {
	cr.mu.Lock()
	c := cr.conn
	cr.conn = nil
	cr.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

func (f *Front) warn(msg string) {
	if f.Warn != nil {
		f.Warn(msg)
	}
}

// readRaw reads one line, its newline included, of any length: the hub
// bounds what it takes, the front only carries it. At EOF it returns
// what was left with the error.
func readRaw(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}
