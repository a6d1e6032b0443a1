package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"cchub/proc"
)

// session is one `cchub mcp` process driven as an agent's client drives
// it: newline-delimited JSON-RPC on its stdin and stdout, initialize,
// then tools/call. It is written here rather than taken from an SDK so
// that the benchmark sees the bytes an agent gets and links no protocol
// package; requests the server makes of the client are refused (the
// client declares no capabilities, so a server should make none).
type session struct {
	p      *proc.Process
	stdin  io.WriteCloser
	mu     sync.Mutex // guards next and waiting
	next   int
	wait   map[int]chan rpcReply
	done   chan struct{} // closed when stdout ends
	stderr *tailBuf
}

type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startSession starts `cchub mcp` in root with env and initializes it.
func startSession(ctx context.Context, cchub, root string, env []string, extra ...string) (*session, error) {
	cmd := proc.Command(cchub, append([]string{"mcp", "--root", root}, extra...)...)
	cmd.Dir = root
	cmd.Env = env
	s := &session{wait: map[int]chan rpcReply{}, done: make(chan struct{}), stderr: &tailBuf{max: 8 << 10}}
	cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// The process is stopped by close (or when ctx ends); its reaper is
	// proc's.
	if s.p, err = cmd.Start(ctx); err != nil {
		out.Close()
		s.stdin.Close()
		return nil, fmt.Errorf("start %s mcp: %w (build it with `go build ./cmd/cchub` or pass -cchub)", cchub, err)
	}
	go s.read(out)
	if _, err := s.call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "diagtruth", "version": "1"},
	}); err != nil {
		s.close()
		return nil, fmt.Errorf("initialize: %w; cchub said: %s", err, s.stderr.String())
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// read dispatches the server's lines until its stdout ends; it owns out.
func (s *session) read(out io.ReadCloser) {
	defer close(s.done)
	defer out.Close()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 32<<20)
	for sc.Scan() {
		var m struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			rpcReply
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue // a notification (log, progress) or noise
		}
		if m.Method != "" { // a request of the client: refused
			s.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "diagtruth offers no client methods"}})
			continue
		}
		var id int
		if json.Unmarshal(*m.ID, &id) != nil {
			continue
		}
		s.mu.Lock()
		ch := s.wait[id]
		delete(s.wait, id)
		s.mu.Unlock()
		if ch != nil {
			ch <- m.rpcReply
		}
	}
}

func (s *session) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = s.stdin.Write(append(b, '\n'))
	return err
}

// call sends one request and waits for its reply.
func (s *session) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan rpcReply, 1)
	s.mu.Lock()
	s.next++
	id := s.next
	s.wait[id] = ch
	s.mu.Unlock()
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	case <-s.done:
		return nil, fmt.Errorf("%s: cchub mcp exited; it said: %s", method, s.stderr.String())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// tool calls a tool and returns its text and whether it is an error.
func (s *session) tool(ctx context.Context, name string, args map[string]any) (string, bool, error) {
	raw, err := s.call(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return "", false, err
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String(), res.IsError, nil
}

// close ends the session as a client does (stdin closed), then stops the
// process if it has not exited within a few seconds.
func (s *session) close() {
	s.stdin.Close()
	select {
	case <-s.p.Done():
	case <-time.After(5 * time.Second):
		s.p.Stop()
	}
	<-s.p.Done()
}

// tailBuf keeps the last max bytes written to it.
type tailBuf struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuf) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuf) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
