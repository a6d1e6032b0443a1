package lspmux

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"cchub/proc"
)

// server is one running language server: its process, its connection, the
// documents it has been told of and the diagnostics it has published.
type server struct {
	own    *owner
	dir    string // the server's root, absolute
	proc   *proc.Process
	conn   jsonrpc2.Conn
	stderr *proc.Tail
	exited <-chan struct{} // closed when the process has been reaped

	mu       sync.Mutex
	docs     map[uri.URI]int32 // open documents and their versions
	diags    map[uri.URI]published
	seq      uint64          // publishes so far
	active   map[string]bool // work-done progress begun and not ended
	begun    uint64          // work-done progress begun so far
	last     time.Time       // the last publish or progress event
	wake     chan struct{}   // closed and replaced at every event
	used     time.Time       // the last request that needed it
	busy     int             // requests using it now: not idle, whatever used says
	stopping bool            // Close asked it to stop: its exit is no crash
	pulls    bool            // it offers pull diagnostics (set before first use)

	// For a server that checks the project (Spec.ChecksProject,
	// project.go): what it published itself, which counts only for the
	// waits on it (organize); what tsserver last answered of each file,
	// by kind; the documents whose text it was told since the last check
	// (fresh) and whether anything at all was (dirty); whether a check
	// has completed. checking serializes the checks.
	pushed   map[uri.URI]published
	kinds    map[uri.URI]*tsKinds
	fresh    map[uri.URI]bool
	dirty    bool
	checked  bool
	warming  bool // a first check was begun in the background (Mux.warm)
	checking sync.Mutex

	// held is the SHA-256 of what each open document was last given
	// (watched.go); s.mu guards it.
	held map[uri.URI][sha256.Size]byte

	// pool is s's entry in a Pool when the worktrees of a repository
	// share it, and users each Mux using it with its folder (absolute);
	// both nil for a server of one Mux (pool.go). s.mu guards them.
	pool  *pooled
	users map[*Mux]string
}

// published is what the server last said of one document.
type published struct {
	seq     uint64 // the publish's number, in order of arrival
	version int32  // the document version it is for; 0 when not said
	items   []protocol.Diagnostic
}

// defaultStartLimit bounds a server's start (Options.StartLimit): one that
// has not answered initialize in time is taken for a hung one, killed and
// counted as a failed start.
const defaultStartLimit = 60 * time.Second

// start runs the owner's server in dir and initializes it, within ctx
// (the start limit). Its error says, as a clause, what went wrong: the
// program could not be run, exited (with its last words), did not answer
// in time, or refused; the process is reaped before it returns.
func start(ctx context.Context, o *owner, dir string) (*server, error) {
	c := proc.Command(o.bin, o.spec.Args...)
	c.Dir = dir
	c.Env = os.Environ()
	for k, v := range o.spec.Env {
		c.Env = append(c.Env, k+"="+v)
	}
	c.ClosePipesAtExit = true // the connection ends with the server
	stdin, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &server{
		own: o, dir: dir, stderr: proc.NewTail(lastWordsBytes),
		docs: map[uri.URI]int32{}, diags: map[uri.URI]published{}, pushed: map[uri.URI]published{}, fresh: map[uri.URI]bool{},
		active: map[string]bool{}, wake: make(chan struct{}), used: time.Now(), last: time.Now(),
	}
	c.Stderr = s.stderr
	// The server outlives the request that starts it: the Mux stops it.
	if s.proc, err = c.Start(context.Background()); err != nil {
		return nil, fmt.Errorf("%s could not be run (%v)", o.bin, err)
	}
	s.exited = s.proc.Done()
	s.conn = jsonrpc2.NewConn(newStream(o.spec.Name, stdout, stdin))
	s.conn.Go(context.Background(), s.handle)
	if err := s.initialize(ctx); err != nil {
		s.kill()
		return nil, err
	}
	return s, nil
}

// initialize sends initialize and initialized, within ctx. A server that
// exits meanwhile ends the wait at once (the connection alone would not).
func (s *server) initialize(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // ends with initialize: cancel is deferred
		select {
		case <-s.exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	root := uri.File(s.dir)
	params := map[string]any{
		"processId": os.Getpid(),
		"rootUri":   root,
		"clientInfo": map[string]any{
			"name": "cchub",
		},
		"capabilities": map[string]any{
			"window": map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{
				"configuration":          true,
				"didChangeWatchedFiles":  map[string]any{"dynamicRegistration": true},
				"workspaceFolders":       true,
				"applyEdit":              false,
				"workspaceEdit":          map[string]any{"documentChanges": true},
				"symbol":                 map[string]any{},
				"executeCommand":         map[string]any{},
				"didChangeConfiguration": map[string]any{},
			},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
				"diagnostic":         map[string]any{},
				"definition":         map[string]any{"linkSupport": false},
				"references":         map[string]any{},
				"hover":              map[string]any{"contentFormat": []string{"plaintext"}},
				"implementation":     map[string]any{},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"callHierarchy":      map[string]any{},
				"rename":             map[string]any{"prepareSupport": false},
			},
		},
		"workspaceFolders": []map[string]any{{"uri": root, "name": filepath.Base(s.dir)}},
	}
	if s.own.init != nil {
		params["initializationOptions"] = s.own.init
	}
	began := time.Now()
	var result json.RawMessage
	if _, err := s.conn.Call(ctx, "initialize", params, &result); err != nil {
		return s.startFailed("initialize", began, err)
	}
	s.pulls = offersPull(result)
	s.mu.Lock()
	s.last = time.Now() // its quiet begins when it is ready
	s.mu.Unlock()
	if err := s.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		return s.startFailed("initialized", began, err)
	}
	return nil
}

// startFailed says, as a clause, why the start failed at what.
func (s *server) startFailed(what string, began time.Time, err error) error {
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		// A write to a server that has just exited fails before its
		// reaper has said how it exited: give it a moment.
		t := time.NewTimer(time.Second)
		select {
		case <-s.exited:
		case <-t.C:
		}
		t.Stop()
	}
	select {
	case <-s.exited:
		return fmt.Errorf("it exited during %s (%s)%s", what, exitText(s.proc.Wait()), lastWords(s.stderr))
	default:
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("it did not answer %s within %v and was killed%s", what, time.Since(began).Round(time.Second), lastWords(s.stderr))
	case errors.Is(err, context.Canceled):
		return errStopped
	}
	return fmt.Errorf("it answered %s with an error (%v)%s", what, err, lastWords(s.stderr))
}

// exitText is how a process exited, in words.
func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// failed is the error for a request that failed, with the server's last
// words when it has exited.
func (s *server) failed(what string, err error) error {
	select {
	case <-s.exited:
		return fmt.Errorf("lspmux: %s %s: the server exited (%v)%s", s.own.spec.Name, what, s.proc.Wait(), lastWords(s.stderr))
	default:
	}
	return fmt.Errorf("lspmux: %s %s: %w", s.own.spec.Name, what, err)
}

// handle answers what the server sends: diagnostics and progress are kept,
// requests a client must answer are answered, the rest ignored.
func (s *server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			s.published(uri.URI(p.URI), int32(p.Version), p.Diagnostics)
		}
		return reply(ctx, nil, nil)
	case "$/progress":
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			s.progress(string(p.Token), p.Value.Kind)
		}
		return reply(ctx, nil, nil)
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			var item struct {
				Section string `json:"section"`
			}
			_ = json.Unmarshal(it, &item)
			out[i] = s.own.spec.setting(item.Section)
		}
		return reply(ctx, out, nil)
	case "workspace/workspaceFolders":
		return reply(ctx, s.folderList(), nil)
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "window/showDocument":
		return reply(ctx, nil, nil)
	case "workspace/applyEdit":
		return reply(ctx, map[string]any{"applied": false, "failureReason": "cchub applies no edits from a server"}, nil)
	}
	if _, ok := req.(*jsonrpc2.Call); ok {
		return reply(ctx, nil, jsonrpc2.ErrMethodNotFound)
	}
	return reply(ctx, nil, nil)
}

func (s *server) published(u uri.URI, version int32, items []protocol.Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	p := published{seq: s.seq, version: version, items: items}
	if s.own.spec.ChecksProject {
		// Its diagnostics are what the checks found, not this.
		s.pushed[u] = p
	} else {
		s.diags[u] = p
	}
	s.event()
}

func (s *server) progress(token, kind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch kind {
	case "begin":
		s.active[token] = true
		s.begun++
	case "end":
		delete(s.active, token)
	}
	s.event()
}

// event records that something happened and wakes the waiters; s.mu is
// held.
func (s *server) event() {
	s.last = time.Now()
	close(s.wake)
	s.wake = make(chan struct{})
}

// hold marks s in use until the returned release, which also counts as
// its last use.
func (s *server) hold() (release func()) {
	s.mu.Lock()
	s.busy++
	s.used = time.Now()
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.busy--
		s.used = time.Now()
		s.mu.Unlock()
	}
}

// alive says the process has not exited.
func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// stop asks the server to shut down and exit, and kills its process group
// if it has not within grace. It returns once the process is reaped.
func (s *server) stop(grace time.Duration) {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	if s.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		if _, err := s.conn.Call(ctx, "shutdown", nil, nil); err == nil {
			_ = s.conn.Notify(ctx, "exit", nil)
		}
		cancel()
		select {
		case <-s.exited:
		case <-time.After(grace):
		}
	}
	s.kill()
}

// kill ends the process group, closes the connection and waits for the
// reaper.
func (s *server) kill() {
	s.proc.Kill()
	_ = s.conn.Close()
}

// lastWordsBytes is how much of what a server wrote to stderr is kept
// for the message when it dies.
const lastWordsBytes = 500

// lastWords is the end of what the server wrote to stderr, as a clause.
func lastWords(stderr *proc.Tail) string {
	b := strings.TrimSpace(string(stderr.Bytes()))
	if b == "" {
		return ""
	}
	return "; its last words: " + b
}

var errStopped = errors.New("lspmux: closed")
