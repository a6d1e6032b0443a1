package framing

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// notes collects the notifications a jsonrpc2 handler receives.
type notes chan jsonrpc2.Request

func (n notes) wait(t *testing.T, method string) json.RawMessage {
	t.Helper()
	select {
	case req := <-n:
		if req.Method() != method {
			t.Fatalf("notification %q, want %q", req.Method(), method)
		}
		return req.Params()
	case <-time.After(10 * time.Second):
		t.Fatalf("no %q notification", method)
		return nil
	}
}

// TestStreamJSONRPC runs two jsonrpc2.Conns over a net.Pipe through Stream,
// and exchanges calls and notifications both ways.
func TestStreamJSONRPC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := net.Pipe()

	server := jsonrpc2.NewConn(NewStream(b, Options{}))
	server.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		switch req.Method() {
		case "add":
			var args [2]int
			if err := json.Unmarshal(req.Params(), &args); err != nil {
				return reply(ctx, nil, err)
			}
			return reply(ctx, args[0]+args[1], nil)
		case "len":
			var s string
			if err := json.Unmarshal(req.Params(), &s); err != nil {
				return reply(ctx, nil, err)
			}
			return reply(ctx, len(s), nil)
		case "hello":
			// A notification: answer with one of our own.
			var who string
			json.Unmarshal(req.Params(), &who)
			if err := server.Notify(ctx, "greeting", "hello, "+who); err != nil {
				t.Error(err)
			}
			return reply(ctx, nil, nil)
		}
		return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
	})

	got := make(notes, 4)
	client := jsonrpc2.NewConn(NewStream(a, Options{}))
	client.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if _, isCall := req.(*jsonrpc2.Call); !isCall {
			got <- req
		}
		return reply(ctx, nil, nil)
	})

	var sum int
	if _, err := client.Call(ctx, "add", [2]int{2, 40}, &sum); err != nil || sum != 42 {
		t.Fatalf("add = %d, %v", sum, err)
	}
	if err := client.Notify(ctx, "hello", "client"); err != nil {
		t.Fatal(err)
	}
	if p := got.wait(t, "greeting"); string(p) != `"hello, client"` {
		t.Errorf("greeting params = %s", p)
	}
	_, err := client.Call(ctx, "divide", nil, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method = %v, want method not found", err)
	}
	// A big message crosses the pipe in many reads.
	big := strings.Repeat("é", 300_000)
	var n int
	if _, err := client.Call(ctx, "len", big, &n); err != nil || n != len(big) {
		t.Fatalf("len = %d, %v; want %d", n, err, len(big))
	}

	// Closing one side ends the other's read loop with a clean EOF.
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-server.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("server conn did not end when the client closed")
	}
	if err := server.Err(); !errors.Is(err, io.EOF) {
		t.Errorf("server ended with %v, want io.EOF", err)
	}
	<-client.Done()
	if err := client.Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("client ended with %v, want ErrClosed", err)
	}
}

// TestStreamBadMessage checks that a frame whose body is not JSON-RPC is an
// error that says so, and that Stream counts wire bytes.
func TestStreamBadMessage(t *testing.T) {
	in := frame(`{"jsonrpc":"2.0","method":"ok"}`) + frame("not json")
	s := NewStream(struct {
		io.Reader
		io.Writer
		io.Closer
	}{strings.NewReader(in), io.Discard, io.NopCloser(nil)}, Options{})
	msg, n, err := s.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if note, ok := msg.(*jsonrpc2.Notification); !ok || note.Method() != "ok" {
		t.Errorf("Read = %#v", msg)
	}
	if want := int64(len(frame(`{"jsonrpc":"2.0","method":"ok"}`))); n != want {
		t.Errorf("Read counted %d bytes, want %d", n, want)
	}
	if _, _, err := s.Read(context.Background()); err == nil || !strings.Contains(err.Error(), `is not a JSON-RPC message (it starts "not json")`) {
		t.Errorf("Read of a non-JSON frame = %v", err)
	}
}

// TestStreamWrite checks what Stream puts on the wire.
func TestStreamWrite(t *testing.T) {
	var cw countingWriter
	s := NewStream(struct {
		io.Reader
		io.Writer
		io.Closer
	}{strings.NewReader(""), &cw, io.NopCloser(nil)}, Options{})
	note, err := jsonrpc2.NewNotification("initialized", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Write(context.Background(), note)
	if err != nil {
		t.Fatal(err)
	}
	if len(cw.writes) != 1 {
		t.Fatalf("%d writes, want 1", len(cw.writes))
	}
	body := `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	if got := string(cw.writes[0]); got != frame(body) || n != int64(len(got)) {
		t.Errorf("wrote %q (counted %d), want %q", got, n, frame(body))
	}
}
