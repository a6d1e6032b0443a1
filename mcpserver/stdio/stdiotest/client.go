package stdiotest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// Prompt is a generous bound for anything that should be prompt: the tests
// check that the server does not hang, not how fast it is.
const Prompt = 5 * time.Second

// RawClient speaks newline-delimited JSON-RPC to a server, a line at a
// time, so tests can send what no SDK client would.
type RawClient struct {
	t     *testing.T
	In    io.WriteCloser // the server's input: closing it is the client going away
	lines chan []byte    // the server's output, a line each; closed at its end
}

// NewRawClient writes to in and reads the server's lines from out.
func NewRawClient(t *testing.T, in io.WriteCloser, out io.Reader) *RawClient {
	c := &RawClient{t: t, In: in, lines: make(chan []byte, 64)}
	go func() { // owned by the client: ends when out does
		defer close(c.lines)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				c.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

// Send writes line and a newline.
func (c *RawClient) Send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.In, line+"\n"); err != nil {
		c.t.Fatalf("sending %.80q: %v", line, err)
	}
}

// Reply is one JSON-RPC response as a client reads it.
type Reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Next returns the server's next line, failing the test if none comes.
func (c *RawClient) Next() []byte {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		return line
	case <-time.After(Prompt):
		c.t.Fatalf("no reply within %v", Prompt)
	}
	return nil
}

// NextReply returns the server's next line as a response.
func (c *RawClient) NextReply() Reply {
	c.t.Helper()
	line := c.Next()
	var r Reply
	if err := json.Unmarshal(line, &r); err != nil {
		c.t.Fatalf("the server wrote %q, not a JSON-RPC response: %v", line, err)
	}
	return r
}

// ReplyTo skips lines until the reply with the given id (its JSON).
func (c *RawClient) ReplyTo(id string) Reply {
	c.t.Helper()
	for {
		if r := c.NextReply(); string(r.ID) == id {
			return r
		}
	}
}

// Ping checks that the session still answers, and that nothing else was
// written before the answer.
func (c *RawClient) Ping(id int) {
	c.t.Helper()
	c.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	r := c.NextReply()
	if string(r.ID) != fmt.Sprint(id) || r.Error != nil {
		c.t.Fatalf("ping %d: got %s", id, MustJSON(r))
	}
}

// Initialize opens the MCP session.
func (c *RawClient) Initialize() {
	c.t.Helper()
	c.Send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := c.ReplyTo(`"init"`); r.Error != nil {
		c.t.Fatalf("initialize: %s", r.Error.Message)
	}
	c.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// MustJSON is v as JSON, for messages.
func MustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ServeFunc serves one client on in and out until in ends or ctx is done,
// telling warn what the client is not told (the transport's Serve).
type ServeFunc func(ctx context.Context, in io.Reader, out io.Writer, warn func(string)) error

// LineServer is a server running in the test process over pipes, and a
// raw client of it.
type LineServer struct {
	*RawClient
	Cancel context.CancelFunc // ends the server's context: a signal
	done   chan error         // serve's result

	mu    sync.Mutex
	warns []string
}

// StartServer runs serve over pipes until the test ends.
func StartServer(t *testing.T, serve ServeFunc) *LineServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ls := &LineServer{RawClient: NewRawClient(t, inW, outR), Cancel: cancel, done: make(chan error, 1)}
	warn := func(msg string) {
		ls.mu.Lock()
		ls.warns = append(ls.warns, msg)
		ls.mu.Unlock()
	}
	go func() { // owned by the test: waited for in its cleanup
		ls.done <- serve(ctx, inR, outW, warn)
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		<-ls.done
	})
	return ls
}

// Warnings is what the server told warn, a line each.
func (ls *LineServer) Warnings() string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return strings.Join(ls.warns, "\n")
}

// Ended waits for serve to return, as promptly as a client expects.
func (ls *LineServer) Ended() error {
	ls.t.Helper()
	select {
	case err := <-ls.done:
		ls.done <- err // for the cleanup
		return err
	case <-time.After(Prompt):
		ls.t.Fatalf("the server did not stop within %v", Prompt)
	}
	return nil
}

// BadLines are lines a client may send by mistake, each with the error
// JSON-RPC says it gets: code, the id to answer with, and words the
// message must have to tell the client what to do instead.
var BadLines = []struct {
	Name, Line string
	Code       int
	ID         string
	Says       string
}{
	{"not JSON", `{not json`, -32700, "null", "not JSON"},
	{"truncated JSON", `{"jsonrpc":"2.0","id":5,"method":"tools/list"`, -32700, "null", "one line of JSON"},
	{"two values on a line", `{"jsonrpc":"2.0","id":5,"method":"ping"} {}`, -32700, "null", "not JSON"},
	{"batch", `[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, -32600, "5", "one request per line"},
	{"empty batch", `[]`, -32600, "null", "batches are not supported"},
	{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, "null", `"id" is an object`},
	{"array id", `{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`, -32600, "null", `"id" is an array`},
	{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null", `"id" is null`},
	{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null", "not an integer"},
	{"id too large to answer", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "null", "2^53"},
	{"not an object", `42`, -32600, "null", "is a JSON object, not a number"},
	{"string", `"ping"`, -32600, "null", "is a JSON object, not a string"},
	{"no method", `{"jsonrpc":"2.0","id":5}`, -32600, "null", `no "method"`},
	{"wrong version", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, "5", `"jsonrpc" must be "2.0"`},
	{"no version", `{"id":"five","method":"ping"}`, -32600, `"five"`, `"jsonrpc" must be "2.0"`},
	{"method not a string", `{"jsonrpc":"2.0","id":5,"method":5}`, -32600, "5", `"method" must be a string`},
	{"method not a string, no id", `{"jsonrpc":"2.0","method":7}`, -32600, "null", `"method" must be a string`},
	{"too deep for the SDK", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}}`, -32600, "5", "depth"},
}

// CheckBadLines sends each of BadLines, then a ping, and checks the
// answers to both.
func CheckBadLines(t *testing.T, c *RawClient) {
	t.Helper()
	for i, bl := range BadLines {
		c.Send(bl.Line)
		line := c.Next()
		var r Reply
		if strings.HasPrefix(string(line), "[") { // a batch is answered in kind
			var rs []Reply
			if err := json.Unmarshal(line, &rs); err != nil || len(rs) != 1 {
				t.Fatalf("%s: want one reply in an array, got %s", bl.Name, line)
			}
			r = rs[0]
		} else if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s: not a JSON-RPC response: %s", bl.Name, line)
		}
		if r.Error == nil || r.Error.Code != bl.Code || string(r.ID) != bl.ID || !strings.Contains(r.Error.Message, bl.Says) {
			t.Errorf("%s: got %s\nwant code %d, id %s, a message saying %q", bl.Name, line, bl.Code, bl.ID, bl.Says)
		}
		c.Ping(1000 + i)
	}
}
