package hub

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A generous bound for anything that should be prompt: the tests check
// that the server does not hang, not how fast it is.
const prompt = 5 * time.Second

// rawClient speaks newline-delimited JSON-RPC to a server, a line at a
// time, so tests can send what no SDK client would.
type rawClient struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan []byte // the server's output, a line each; closed at its end
}

func newRawClient(t *testing.T, in io.WriteCloser, out io.Reader) *rawClient {
	c := &rawClient{t: t, in: in, lines: make(chan []byte, 64)}
	go func() {
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

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("sending %.80q: %v", line, err)
	}
}

// reply is one JSON-RPC response as a client reads it.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next returns the server's next line, failing the test if none comes.
func (c *rawClient) next() []byte {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		return line
	case <-time.After(prompt):
		c.t.Fatalf("no reply within %v", prompt)
	}
	return nil
}

func (c *rawClient) nextReply() reply {
	c.t.Helper()
	line := c.next()
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		c.t.Fatalf("the server wrote %q, not a JSON-RPC response: %v", line, err)
	}
	return r
}

// replyTo skips lines until the reply with the given id (its JSON).
func (c *rawClient) replyTo(id string) reply {
	c.t.Helper()
	for {
		if r := c.nextReply(); string(r.ID) == id {
			return r
		}
	}
}

// ping checks that the session still answers, and that nothing else was
// written before the answer.
func (c *rawClient) ping(id int) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	r := c.nextReply()
	if string(r.ID) != fmt.Sprint(id) || r.Error != nil {
		c.t.Fatalf("ping %d: got %s", id, mustJSON(r))
	}
}

func (c *rawClient) initialize() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := c.replyTo(`"init"`); r.Error != nil {
		c.t.Fatalf("initialize: %s", r.Error.Message)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// lineServer is serveLines running in the test process over pipes.
type lineServer struct {
	*rawClient
	cancel context.CancelFunc
	done   chan error // serveLines' result

	mu    sync.Mutex
	warns []string
}

func startLineServer(t *testing.T, s *mcp.Server, maxLine int) *lineServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ls := &lineServer{rawClient: newRawClient(t, inW, outR), cancel: cancel, done: make(chan error, 1)}
	warn := func(msg string) {
		ls.mu.Lock()
		ls.warns = append(ls.warns, msg)
		ls.mu.Unlock()
	}
	go func() {
		ls.done <- serveLines(ctx, s, inR, outW, maxLine, warn)
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		<-ls.done
	})
	return ls
}

func (ls *lineServer) warnings() string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return strings.Join(ls.warns, "\n")
}

// ended waits for serveLines to return, as promptly as a client expects.
func (ls *lineServer) ended() error {
	ls.t.Helper()
	select {
	case err := <-ls.done:
		ls.done <- err // for the cleanup
		return err
	case <-time.After(prompt):
		ls.t.Fatalf("the server did not stop within %v", prompt)
	}
	return nil
}

// badLines are lines a client may send by mistake, each with the error
// JSON-RPC says it gets: code, the id to answer with, and words the
// message must have to tell the client what to do instead.
var badLines = []struct {
	name, line string
	code       int
	id         string
	says       string
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

// badLines per JSON-RPC: each gets its error, and the session answers the
// next request as if nothing had happened.
func TestStdioBadLinesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	ls := startLineServer(t, NewMCPServer(newTestHub(t, copyWorkspace(t, "go"))), MaxLineBytes)
	ls.initialize()
	checkBadLines(t, ls.rawClient)
}

// checkBadLines sends each of badLines, then a ping, and checks the
// answers to both.
func checkBadLines(t *testing.T, c *rawClient) {
	t.Helper()
	for i, bl := range badLines {
		c.send(bl.line)
		line := c.next()
		var r reply
		if strings.HasPrefix(string(line), "[") { // a batch is answered in kind
			var rs []reply
			if err := json.Unmarshal(line, &rs); err != nil || len(rs) != 1 {
				t.Fatalf("%s: want one reply in an array, got %s", bl.name, line)
			}
			r = rs[0]
		} else if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s: not a JSON-RPC response: %s", bl.name, line)
		}
		if r.Error == nil || r.Error.Code != bl.code || string(r.ID) != bl.id || !strings.Contains(r.Error.Message, bl.says) {
			t.Errorf("%s: got %s\nwant code %d, id %s, a message saying %q", bl.name, line, bl.code, bl.id, bl.says)
		}
		c.ping(1000 + i)
	}
}

// A batch's requests are each answered, so a client that sent one is not
// left waiting; its notifications are not.
func TestStdioBatchAnswersEachRequestInIt(t *testing.T) {
	ls := startLineServer(t, mcp.NewServer(&mcp.Implementation{Name: "t"}, nil), MaxLineBytes)
	ls.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b","method":"tools/list"},{"id":{},"method":"ping"},7]`)
	var rs []reply
	if line := ls.next(); json.Unmarshal(line, &rs) != nil || len(rs) != 2 || string(rs[0].ID) != "1" || string(rs[1].ID) != `"b"` {
		t.Fatalf("want an array of errors for ids 1 and \"b\", got %s", line)
	}
	for _, r := range rs {
		if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "one request per line") {
			t.Errorf("batch reply %s", mustJSON(r))
		}
	}
	ls.ping(2)
}

// A notification is never answered, malformed or not (JSON-RPC forbids
// it); a bad one is dropped with a note on stderr, and a response from the
// client that is bad is dropped the same way (an answer could be taken for
// the reply to the client's own request of that id).
func TestStdioBadNotificationsAreDroppedQuietly(t *testing.T) {
	ls := startLineServer(t, NewMCPServer(newTestHub(t, copyWorkspace(t, "go"))), MaxLineBytes)
	ls.initialize()
	for i, line := range []string{
		`{"jsonrpc":"1.0","method":"notifications/progress"}`,
		`{"method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":"not an object"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"no":"such id"}}}`,
		`{"jsonrpc":"2.0","method":"no/such/notification"}`,
		`{"jsonrpc":"1.0","id":77,"result":{}}`,
		`{"jsonrpc":"2.0","id":77,"result":{}}`,
		``,
		`   `,
	} {
		ls.send(line)
		ls.ping(i) // the first thing written is the ping's answer
	}
	if w := ls.warnings(); !strings.Contains(w, `dropped the notification "notifications/progress": "jsonrpc" must be "2.0"`) || !strings.Contains(w, "dropped the response to 77") {
		t.Errorf("stderr does not say what was dropped:\n%s", w)
	}
}

// A line over the limit is not kept, yet its request is answered by id,
// wherever the id is in it (the TypeScript SDK writes it last), so the
// client's call fails at once saying why.
func TestStdioOversizedLineIsAnsweredByItsID(t *testing.T) {
	const limit = 1000
	ls := startLineServer(t, mcp.NewServer(&mcp.Implementation{Name: "t"}, nil), limit)
	big := strings.Repeat(`x\"{[,:`, 400)
	for i, tc := range []struct{ line, id string }{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write","arguments":{"content":"` + big + `"}}}`, "7"},
		{`{"method":"tools/call","params":{"name":"write","arguments":{"id":3,"content":"` + big + `"}},"jsonrpc":"2.0","id":"last"}`, `"last"`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/call","params":"` + big + `"}`, "null"},
		{`{"jsonrpc":"2.0","id":8,"params":"` + big + `"}`, "null"}, // no method: no request
		{`{"jsonrpc":"2.0","method":"x","id":01,"params":"` + big + `"}`, "null"},
		{`{"jsonrpc":"2.0","method":"x","params":"` + big + `","id":"unterminated`, "null"},
		{`["` + big + `"]`, "null"},
		{strings.Repeat("z", 5000), "null"},
	} {
		ls.send(tc.line)
		r := ls.nextReply()
		if r.Error == nil || r.Error.Code != -32600 || string(r.ID) != tc.id || !strings.Contains(r.Error.Message, "over the limit of 1000 bytes") {
			t.Errorf("line %d: got %s, want an invalid request error for id %s naming the limit", i, mustJSON(r), tc.id)
		}
		ls.ping(100 + i)
	}
	ls.send(`{"jsonrpc":"2.0","method":"notifications/message","params":"` + big + `"}`)
	ls.ping(200)
	if w := ls.warnings(); !strings.Contains(w, "dropped a notification: the line is") {
		t.Errorf("stderr does not say an oversized notification was dropped:\n%s", w)
	}
	// A line at the limit is read whole.
	pad := strings.Repeat(" ", limit-len(`{"jsonrpc":"2.0","id":300,"method":"ping"}`))
	ls.send(`{"jsonrpc":"2.0","id":300,"method":"ping"}` + pad + "\r")
	if r := ls.nextReply(); string(r.ID) != "300" || r.Error != nil {
		t.Errorf("a line of exactly the limit: got %s", mustJSON(r))
	}
}

// The scan of an oversized line does not depend on how the line arrives.
func TestOversizedLineScanIsIndependentOfChunks(t *testing.T) {
	line := `  {"params":{"id":1,"s":"\"id\":2,"},"ID":3,"methods":4,"id" : "a\"b" ,"method":"x"}`
	for size := 1; size <= len(line); size++ {
		s := &oversizedLine{limit: 10}
		for i := 0; i < len(line); i += size {
			s.scan([]byte(line[i:min(i+size, len(line))]))
		}
		if !s.hasMethod || !s.hasID || string(s.id) != `"a\"b"` || s.size != int64(len(line)) {
			t.Fatalf("chunks of %d: method %v, id %v %s, size %d", size, s.hasMethod, s.hasID, s.id, s.size)
		}
	}
}

// blockingServer has one tool, block, that waits for its context to end
// (or, with ignore, for release) and reports the cause on ended.
func blockingServer(ignore <-chan struct{}) (*mcp.Server, <-chan error, <-chan struct{}) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t"}, nil)
	started := make(chan struct{}, 8)
	ended := make(chan error, 8)
	s.AddTool(&mcp.Tool{Name: "block", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			if ignore != nil {
				<-ignore
			} else {
				<-ctx.Done()
			}
			ended <- context.Cause(ctx)
			return textResult("ended"), nil
		})
	return s, ended, started
}

func callBlock(c *rawClient, id int) {
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{}}}`, id))
}

func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(prompt):
		t.Fatalf("%s: nothing within %v", what, prompt)
	}
	var zero T
	return zero
}

// notifications/cancelled ends the call's context, and the session goes on.
func TestStdioCancelledNotificationCancelsTheCall(t *testing.T) {
	s, ended, started := blockingServer(nil)
	ls := startLineServer(t, s, MaxLineBytes)
	ls.initialize()
	callBlock(ls.rawClient, 2)
	waitFor(t, started, "the call starting")
	ls.ping(3) // calls run concurrently: the session answers meanwhile
	ls.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user changed their mind"}}`)
	if cause := waitFor(t, ended, "the call seeing its cancellation"); !errors.Is(cause, context.Canceled) {
		t.Errorf("the call ended by %v, want context.Canceled", cause)
	}
	ls.replyTo("2")
	ls.ping(4)
}

// When the client closes its end, calls in flight are cancelled and the
// server returns, without an error.
func TestStdioClosedInputCancelsCallsAndEnds(t *testing.T) {
	s, ended, started := blockingServer(nil)
	ls := startLineServer(t, s, MaxLineBytes)
	ls.initialize()
	callBlock(ls.rawClient, 2)
	waitFor(t, started, "the call starting")
	ls.in.Close()
	if cause := waitFor(t, ended, "the call seeing the end of input"); !errors.Is(cause, io.EOF) {
		t.Errorf("the call ended by %v, want io.EOF (the client went away)", cause)
	}
	if err := ls.ended(); err != nil {
		t.Errorf("serveLines: %v, want nil: a client closing its end is a normal end", err)
	}
}

// When ctx ends (a signal), calls in flight are cancelled with a cause
// that says so, and the server returns, without an error.
func TestStdioShutdownCancelsCallsAndEnds(t *testing.T) {
	s, ended, started := blockingServer(nil)
	ls := startLineServer(t, s, MaxLineBytes)
	ls.initialize()
	callBlock(ls.rawClient, 2)
	waitFor(t, started, "the call starting")
	ls.cancel()
	if cause := waitFor(t, ended, "the call seeing the shutdown"); !errors.Is(cause, errShutdown) {
		t.Errorf("the call ended by %v, want errShutdown", cause)
	}
	if err := ls.ended(); err != nil {
		t.Errorf("serveLines: %v, want nil", err)
	}
}

// A call that ignores its context does not keep the server: after the
// grace it returns anyway, and says so on stderr.
func TestStdioShutdownDoesNotWaitForACallThatIgnoresIt(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s, _, started := blockingServer(release)
	ls := startLineServer(t, s, MaxLineBytes)
	ls.initialize()
	callBlock(ls.rawClient, 2)
	waitFor(t, started, "the call starting")
	ls.cancel()
	if err := ls.ended(); err != nil {
		t.Errorf("serveLines: %v, want nil", err)
	}
	if w := ls.warnings(); !strings.Contains(w, "still running") {
		t.Errorf("stderr does not say a call was left running:\n%s", w)
	}
}

// No line, whole or oversized, makes the transport panic or answer with
// anything but one valid JSON-RPC error.
func FuzzStdioLine(f *testing.F) {
	for _, bl := range badLines {
		f.Add([]byte(bl.line))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","method":"x","id":01}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		over := &oversizedLine{limit: 1}
		over.scan(line)
		for _, v := range []verdict{judgeLine(line), over.verdict()} {
			if v.reply == nil {
				continue
			}
			var one reply
			var many []reply
			if json.Unmarshal(v.reply, &one) != nil && json.Unmarshal(v.reply, &many) != nil {
				t.Fatalf("%q is answered with %s, not a JSON-RPC response", line, v.reply)
			}
		}
	})
}
