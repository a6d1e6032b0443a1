package dapsession

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/google/go-dap"

	"cchub/framing"
)

// client speaks DAP over one connection: requests correlated with their
// responses by request_seq, events handed to onEvent in order.
type client struct {
	conn    *framing.Conn
	onEvent func(dap.Message)

	mu      sync.Mutex
	seq     int
	pending map[int]chan dap.Message
	err     error         // why the connection ended, once it has
	done    chan struct{} // closed when the read loop ends
}

func newClient(rwc io.ReadWriteCloser, onEvent func(dap.Message)) *client {
	c := &client{
		conn:    framing.NewConn(rwc, framing.Options{}),
		onEvent: onEvent,
		pending: map[int]chan dap.Message{},
		done:    make(chan struct{}),
	}
	go c.read() // owned by the client: it ends when the connection does
	return c
}

// read delivers every message until the connection ends.
func (c *client) read() {
	defer close(c.done)
	for {
		body, err := c.conn.ReadFrame(context.Background())
		if err != nil {
			c.fail(err)
			return
		}
		msg, err := dap.DecodeProtocolMessage(body)
		if err != nil {
			// An adapter's own request or event go-dap does not know:
			// nothing to correlate, nothing to show.
			continue
		}
		if r, ok := msg.(dap.ResponseMessage); ok {
			seq := r.GetResponse().RequestSeq
			c.mu.Lock()
			ch := c.pending[seq]
			delete(c.pending, seq)
			c.mu.Unlock()
			if ch != nil {
				ch <- msg
			}
			continue
		}
		if req, ok := msg.(dap.RequestMessage); ok {
			// Reverse requests (runInTerminal, startDebugging) are never
			// advertised; refuse any that come.
			c.refuse(req)
			continue
		}
		c.onEvent(msg)
	}
}

func (c *client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	for seq, ch := range c.pending {
		close(ch)
		delete(c.pending, seq)
	}
}

// refuse answers an adapter's request with failure.
func (c *client) refuse(req dap.RequestMessage) {
	r := req.GetRequest()
	resp := &dap.ErrorResponse{Response: dap.Response{
		ProtocolMessage: dap.ProtocolMessage{Type: "response"},
		Command:         r.Command, RequestSeq: r.Seq, Success: false,
		Message: "not supported by cchub",
	}}
	_ = c.send(context.Background(), func(seq int) any { resp.Seq = seq; return resp })
}

// send writes the message make builds with the next sequence number.
func (c *client) send(ctx context.Context, make func(seq int) any) error {
	c.mu.Lock()
	c.seq++
	seq := c.seq
	c.mu.Unlock()
	body, err := json.Marshal(make(seq))
	if err != nil {
		return err
	}
	return c.conn.WriteFrame(ctx, body)
}

// call sends a request (command and arguments) and returns its response
// body, or the adapter's refusal as an *Error.
func (c *client) call(ctx context.Context, command string, args any) (json.RawMessage, error) {
	ch, err := c.start(ctx, command, args)
	if err != nil {
		return nil, err
	}
	return c.await(ctx, command, ch)
}

// start sends a request and returns where its response will come.
func (c *client) start(ctx context.Context, command string, args any) (chan dap.Message, error) {
	ch := make(chan dap.Message, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, fmt.Errorf("the debug adapter is gone: %w", err)
	}
	c.seq++
	seq := c.seq
	c.pending[seq] = ch
	c.mu.Unlock()
	body, err := json.Marshal(map[string]any{"seq": seq, "type": "request", "command": command, "arguments": args})
	if err != nil {
		return nil, err
	}
	if err := c.conn.WriteFrame(ctx, body); err != nil {
		c.mu.Lock()
		delete(c.pending, seq)
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", command, err)
	}
	return ch, nil
}

// await waits for a response started by start.
func (c *client) await(ctx context.Context, command string, ch chan dap.Message) (json.RawMessage, error) {
	select {
	case msg, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the debug adapter is gone", command)
		}
		if !msg.(dap.ResponseMessage).GetResponse().Success {
			return nil, errorOf(command, msg)
		}
		raw, _ := json.Marshal(msg)
		var withBody struct {
			Body json.RawMessage `json:"body"`
		}
		_ = json.Unmarshal(raw, &withBody)
		return withBody.Body, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", command, ctx.Err())
	}
}

func (c *client) close() error {
	err := c.conn.Close()
	<-c.done
	return err
}
