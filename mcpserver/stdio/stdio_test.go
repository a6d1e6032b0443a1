package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/mcpserver/stdio/stdiotest"
)

// startLineServer runs Serve with s over pipes until the test ends.
func startLineServer(t *testing.T, s *mcp.Server, maxLine int) *stdiotest.LineServer {
	t.Helper()
	return stdiotest.StartServer(t, func(ctx context.Context, in io.Reader, out io.Writer, warn func(string)) error {
		return Serve(ctx, s, in, out, Options{MaxLineBytes: maxLine, Warn: warn})
	})
}

// A batch's requests are each answered, so a client that sent one is not
// left waiting; its notifications are not.
func TestStdioBatchAnswersEachRequestInIt(t *testing.T) {
	ls := startLineServer(t, mcp.NewServer(&mcp.Implementation{Name: "t"}, nil), MaxLineBytes)
	ls.Send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b","method":"tools/list"},{"id":{},"method":"ping"},7]`)
	var rs []stdiotest.Reply
	if line := ls.Next(); json.Unmarshal(line, &rs) != nil || len(rs) != 2 || string(rs[0].ID) != "1" || string(rs[1].ID) != `"b"` {
		t.Fatalf("want an array of errors for ids 1 and \"b\", got %s", line)
	}
	for _, r := range rs {
		if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "one request per line") {
			t.Errorf("batch reply %s", stdiotest.MustJSON(r))
		}
	}
	ls.Ping(2)
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
		ls.Send(tc.line)
		r := ls.NextReply()
		if r.Error == nil || r.Error.Code != -32600 || string(r.ID) != tc.id || !strings.Contains(r.Error.Message, "over the limit of 1000 bytes") {
			t.Errorf("line %d: got %s, want an invalid request error for id %s naming the limit", i, stdiotest.MustJSON(r), tc.id)
		}
		ls.Ping(100 + i)
	}
	ls.Send(`{"jsonrpc":"2.0","method":"notifications/message","params":"` + big + `"}`)
	ls.Ping(200)
	if w := ls.Warnings(); !strings.Contains(w, "dropped a notification: the line is") {
		t.Errorf("stderr does not say an oversized notification was dropped:\n%s", w)
	}
	// A line at the limit is read whole.
	pad := strings.Repeat(" ", limit-len(`{"jsonrpc":"2.0","id":300,"method":"ping"}`))
	ls.Send(`{"jsonrpc":"2.0","id":300,"method":"ping"}` + pad + "\r")
	if r := ls.NextReply(); string(r.ID) != "300" || r.Error != nil {
		t.Errorf("a line of exactly the limit: got %s", stdiotest.MustJSON(r))
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
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ended"}}}, nil
		})
	return s, ended, started
}

func callBlock(c *stdiotest.RawClient, id int) {
	c.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{}}}`, id))
}

func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(stdiotest.Prompt):
		t.Fatalf("%s: nothing within %v", what, stdiotest.Prompt)
	}
	var zero T
	return zero
}

// notifications/cancelled ends the call's context, and the session goes on.
func TestStdioCancelledNotificationCancelsTheCall(t *testing.T) {
	s, ended, started := blockingServer(nil)
	ls := startLineServer(t, s, MaxLineBytes)
	ls.Initialize()
	callBlock(ls.RawClient, 2)
	waitFor(t, started, "the call starting")
	ls.Ping(3) // calls run concurrently: the session answers meanwhile
	ls.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user changed their mind"}}`)
	if cause := waitFor(t, ended, "the call seeing its cancellation"); !errors.Is(cause, context.Canceled) {
		t.Errorf("the call ended by %v, want context.Canceled", cause)
	}
	ls.ReplyTo("2")
	ls.Ping(4)
}

// When the client closes its end, calls in flight are cancelled and the
// server returns, without an error.
func TestStdioClosedInputCancelsCallsAndEnds(t *testing.T) {
	s, ended, started := blockingServer(nil)
	ls := startLineServer(t, s, MaxLineBytes)
	ls.Initialize()
	callBlock(ls.RawClient, 2)
	waitFor(t, started, "the call starting")
	ls.In.Close()
	if cause := waitFor(t, ended, "the call seeing the end of input"); !errors.Is(cause, io.EOF) {
		t.Errorf("the call ended by %v, want io.EOF (the client went away)", cause)
	}
	if err := ls.Ended(); err != nil {
		t.Errorf("Serve: %v, want nil: a client closing its end is a normal end", err)
	}
}

// When ctx ends (a signal), calls in flight are cancelled with a cause
// that says so, and the server returns, without an error.
func TestStdioShutdownCancelsCallsAndEnds(t *testing.T) {
	s, ended, started := blockingServer(nil)
	ls := startLineServer(t, s, MaxLineBytes)
	ls.Initialize()
	callBlock(ls.RawClient, 2)
	waitFor(t, started, "the call starting")
	ls.Cancel()
	if cause := waitFor(t, ended, "the call seeing the shutdown"); !errors.Is(cause, errShutdown) {
		t.Errorf("the call ended by %v, want errShutdown", cause)
	}
	if err := ls.Ended(); err != nil {
		t.Errorf("Serve: %v, want nil", err)
	}
}

// A call that ignores its context does not keep the server: after the
// grace it returns anyway, and says so on stderr.
func TestStdioShutdownDoesNotWaitForACallThatIgnoresIt(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s, _, started := blockingServer(release)
	ls := startLineServer(t, s, MaxLineBytes)
	ls.Initialize()
	callBlock(ls.RawClient, 2)
	waitFor(t, started, "the call starting")
	ls.Cancel()
	if err := ls.Ended(); err != nil {
		t.Errorf("Serve: %v, want nil", err)
	}
	if w := ls.Warnings(); !strings.Contains(w, "still running") {
		t.Errorf("stderr does not say a call was left running:\n%s", w)
	}
}

// No line, whole or oversized, makes the transport panic or answer with
// anything but one valid JSON-RPC error.
func FuzzStdioLine(f *testing.F) {
	for _, bl := range stdiotest.BadLines {
		f.Add([]byte(bl.Line))
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
			var one stdiotest.Reply
			var many []stdiotest.Reply
			if json.Unmarshal(v.reply, &one) != nil && json.Unmarshal(v.reply, &many) != nil {
				t.Fatalf("%q is answered with %s, not a JSON-RPC response", line, v.reply)
			}
		}
	})
}
