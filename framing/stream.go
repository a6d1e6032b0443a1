package framing

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"go.lsp.dev/jsonrpc2"
)

// Stream is a jsonrpc2.Stream over a Conn: each frame's body is one JSON-RPC
// message, decoded with jsonrpc2.DecodeMessage and encoded as JSON, as
// jsonrpc2's own streams do. It is safe for concurrent use (jsonrpc2.Conn
// serialises its writes anyway).
type Stream struct {
	c *Conn
}

var _ jsonrpc2.Stream = (*Stream)(nil)

// NewStream returns a Stream over rwc, which it owns (see NewConn).
func NewStream(rwc io.ReadWriteCloser, opts Options) *Stream {
	return &Stream{c: NewConn(rwc, opts)}
}

// Conn is the framed connection under the Stream.
func (s *Stream) Conn() *Conn { return s.c }

// Read returns the next message and its size on the wire, header included.
// It returns io.EOF when the peer closed between frames. A body that is not
// a JSON-RPC message is an error, and jsonrpc2.Conn ends the connection on
// it, as it does with its own streams. See Conn.ReadFrame for ctx.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, n, err := s.c.readFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return nil, 0, fmt.Errorf("framing: frame of %d bytes is not a JSON-RPC message (it starts %q): %w",
			len(body), clip(body), err)
	}
	return msg, n, nil
}

// Write frames msg and writes it in one write, returning the bytes written.
// See Conn.WriteFrame for ctx.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("framing: encode %T: %w", msg, err)
	}
	return s.c.writeFrame(ctx, body)
}

// Close closes the Conn and so the transport.
func (s *Stream) Close() error { return s.c.Close() }
