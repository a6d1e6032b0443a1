package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"cchub/framing"
	"cchub/proc"
)

// The bare settle: the same edits sent straight to the language server
// (no cchub), timed from didChange to the last publishDiagnostics that
// follows it before the server has been quiet for settleQuiet. It is the
// floor of what waiting for diagnostics can cost, the "bare server
// settle" of issue 23's target for the time an edit adds.
const (
	settleQuiet = 1500 * time.Millisecond
	settleMax   = 30 * time.Second
)

// lspClient is a minimal LSP client: Content-Length frames on the
// server's stdio, every request the server makes answered (configuration
// with nulls, the rest with null), publishDiagnostics timed.
type lspClient struct {
	p    *proc.Process
	w    *framing.Writer
	mu   sync.Mutex // guards w, next, wait, last
	next int
	wait map[int]chan json.RawMessage
	last time.Time // when diagnostics were last published
	done chan struct{}
}

// serverCmd is how cchub's built-in registry starts each server.
func serverCmd(lang string) (string, []string, map[string]any) {
	switch lang {
	case "go":
		return "gopls", nil, map[string]any{"diagnosticsDelay": "0s"}
	case "py":
		return "pyright-langserver", []string{"--stdio"}, nil
	default:
		return "typescript-language-server", []string{"--stdio"}, nil
	}
}

func startLSP(ctx context.Context, lang, root string, env []string) (*lspClient, error) {
	name, args, initOpts := serverCmd(lang)
	path := name
	for _, d := range filepath.SplitList(lookupEnv(env, "PATH")) {
		if fileExists(filepath.Join(d, name)) {
			path = filepath.Join(d, name)
			break
		}
	}
	cmd := proc.Command(path, args...)
	cmd.Dir, cmd.Env = root, env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p, err := cmd.Start(ctx)
	if err != nil {
		in.Close()
		out.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &lspClient{p: p, w: framing.NewWriter(in), wait: map[int]chan json.RawMessage{}, done: make(chan struct{})}
	go c.read(out)
	uri := "file://" + root
	_, err = c.call(ctx, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": uri,
		"workspaceFolders": []any{map[string]any{"uri": uri, "name": filepath.Base(root)}},
		"capabilities": map[string]any{
			"textDocument": map[string]any{"publishDiagnostics": map[string]any{}, "synchronization": map[string]any{"didSave": true}},
			"workspace":    map[string]any{"configuration": true, "workspaceFolders": true},
			"window":       map[string]any{"workDoneProgress": true},
		},
		"initializationOptions": initOpts,
	})
	if err != nil {
		c.close()
		return nil, fmt.Errorf("%s initialize: %w", name, err)
	}
	c.notify("initialized", map[string]any{})
	return c, nil
}

func lookupEnv(env []string, k string) string {
	v := ""
	for _, kv := range env {
		if len(kv) > len(k) && kv[:len(k)+1] == k+"=" {
			v = kv[len(k)+1:]
		}
	}
	return v
}

// read owns out: it answers the server's requests, wakes callers and
// times diagnostics, until the server's stdout ends.
func (c *lspClient) read(out interface{ Read([]byte) (int, error) }) {
	defer close(c.done)
	r := framing.NewReader(out, framing.Options{})
	for {
		body, err := r.ReadFrame()
		if err != nil {
			return
		}
		var m struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			Params json.RawMessage  `json:"params"`
			Result json.RawMessage  `json:"result"`
		}
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		switch {
		case m.Method == "textDocument/publishDiagnostics":
			c.mu.Lock()
			c.last = time.Now()
			c.mu.Unlock()
		case m.Method != "" && m.ID != nil:
			var result any
			if m.Method == "workspace/configuration" {
				var p struct{ Items []any }
				json.Unmarshal(m.Params, &p)
				result = make([]any, len(p.Items))
			}
			c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		case m.ID != nil:
			var id int
			json.Unmarshal(*m.ID, &id)
			c.mu.Lock()
			ch := c.wait[id]
			delete(c.wait, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- m.Result
			}
		}
	}
}

func (c *lspClient) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.w.WriteFrame(b)
}

func (c *lspClient) notify(method string, params any) error {
	return c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (c *lspClient) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.next++
	id := c.next
	c.wait[id] = ch
	c.mu.Unlock()
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-c.done:
		return nil, fmt.Errorf("the server exited")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// settle waits until no diagnostics have come for settleQuiet (or
// settleMax has passed) and returns how long after since the last ones
// came; zero when none came.
func (c *lspClient) settle(since time.Time) time.Duration {
	for time.Since(since) < settleMax {
		time.Sleep(100 * time.Millisecond)
		c.mu.Lock()
		last := c.last
		c.mu.Unlock()
		quietFrom := since
		if last.After(since) {
			quietFrom = last
		}
		if time.Since(quietFrom) >= settleQuiet {
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last.After(since) {
		return c.last.Sub(since)
	}
	return 0
}

func (c *lspClient) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	c.call(ctx, "shutdown", nil)
	cancel()
	c.notify("exit", nil)
	select {
	case <-c.p.Done():
	case <-time.After(3 * time.Second):
		c.p.Stop()
	}
	<-c.p.Done()
}

// bareSettle makes c's edits in dir (a fresh copy) straight through the
// server: every file the edits touch is opened first and the server left
// to settle (warm, as in the warm condition), then each edit is written
// and sent as didChange, and its settle timed.
func bareSettle(ctx context.Context, c *corpus, dir string, env []string) ([]time.Duration, error) {
	s, err := startLSP(ctx, c.Lang, dir, env)
	if err != nil {
		return nil, err
	}
	defer s.close()
	langID := map[string]string{"go": "go", "py": "python", "ts": "typescript", "js": "javascript"}[c.Lang]
	version := map[string]int{}
	start := time.Now()
	for _, e := range c.edits {
		if _, ok := version[e.Path]; ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.Path)))
		if err != nil {
			return nil, err
		}
		version[e.Path] = 1
		s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": "file://" + filepath.Join(dir, filepath.FromSlash(e.Path)), "languageId": langID, "version": 1, "text": string(b)}})
	}
	s.settle(start)
	var out []time.Duration
	for _, e := range c.edits {
		if err := apply(dir, e); err != nil {
			return nil, err
		}
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.Path)))
		version[e.Path]++
		t := time.Now()
		s.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": "file://" + filepath.Join(dir, filepath.FromSlash(e.Path)), "version": version[e.Path]},
			"contentChanges": []any{map[string]any{"text": string(b)}},
		})
		out = append(out, s.settle(t))
	}
	return out, nil
}
