package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/mcpserver/stdio"
	"cchub/mcpserver/stdio/stdiotest"
)

// These tests run `cchub mcp` as a client does: a real process on real
// pipes, sent lines no SDK client would send, closed, signalled.

// cchubProc is a running `cchub mcp` and a raw client on its stdio.
type cchubProc struct {
	*stdiotest.RawClient
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan error
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startCchub(t *testing.T, root string) *cchubProc {
	t.Helper()
	bin := buildCchub(t)
	// Pipes of our own, not cmd's: cmd.Wait would close its pipes under the
	// reader.
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &cchubProc{stderr: &syncBuffer{}, exited: make(chan error, 1)}
	p.cmd = exec.Command(bin, "mcp", "--root", root)
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	p.RawClient = stdiotest.NewRawClient(t, inW, outR)
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		inW.Close()
		p.cmd.Process.Kill()
		<-p.exited
		outR.Close()
		if t.Failed() {
			t.Logf("cchub mcp stderr:\n%s", p.stderr)
		}
	})
	return p
}

// waitExit waits for the process to exit, failing the test if it takes
// longer than a client would wait, and checks it exited 0.
func (p *cchubProc) waitExit(t *testing.T, after string) {
	t.Helper()
	start := time.Now()
	select {
	case err := <-p.exited:
		p.exited <- err // for the cleanup
		if err != nil {
			t.Errorf("after %s, cchub mcp exited with %v, want status 0; stderr:\n%s", after, err, p.stderr)
		}
		t.Logf("exited %v after %s", time.Since(start).Round(time.Millisecond), after)
	case <-time.After(stdiotest.Prompt):
		t.Fatalf("cchub mcp still running %v after %s", stdiotest.Prompt, after)
	}
}

func TestMCPStdioBadLinesKeepTheSessionAlive(t *testing.T) {
	p := startCchub(t, copyWorkspace(t, "go"))
	p.Initialize()
	stdiotest.CheckBadLines(t, p.RawClient)
	// A line over 16 MiB, its id at the end as the TypeScript SDK writes
	// it: answered by id, and the process does not keep it.
	big := strings.Repeat("a", stdio.MaxLineBytes)
	p.Send(`{"method":"tools/call","params":{"name":"write","arguments":{"path":"big.txt","content":"` + big + `"}},"jsonrpc":"2.0","id":42}`)
	r := p.NextReply()
	if string(r.ID) != "42" || r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "over the limit of 16 MiB") {
		t.Errorf("oversized line: got %s, want an invalid request error for id 42 naming the 16 MiB limit", stdiotest.MustJSON(r))
	}
	p.Ping(43)
	// Tools still work.
	p.Send(`{"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"read","arguments":{"path":"go.mod"}}}`)
	if r := p.ReplyTo("44"); r.Error != nil || !strings.Contains(string(r.Result), "module example.com/shop") {
		t.Errorf("read go.mod after the bad lines: %s", stdiotest.MustJSON(r))
	}
}

// slowGrep is a grep call that takes a long while over text of a and b:
// its pattern leaves grep's DFA no state it can reuse, so every byte costs
// an NFA step. Uncancelled it runs many seconds over a slowWorkspace, far
// longer than the bounds the tests allow.
func slowGrep(path string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":"[ab]*a[ab]{20}$","path":"` + path + `"}}}`
}

// slowWorkspace writes files lines of random a and b, 60 to a line.
func slowWorkspace(t *testing.T, files, lines int) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	line := make([]byte, 61)
	for i := range files {
		var b bytes.Buffer
		for range lines {
			for j := range 60 {
				line[j] = "ab"[rng.IntN(2)]
			}
			line[60] = '\n'
			b.Write(line)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// slowGreps are long greps in flight when a server is told to stop: one
// over many files, which grep stops between files when its context ends,
// and one over a single big file, which grep reads to its end whatever
// happens (locate's grepWorker.search does not look at the context): the
// server must not wait for it.
var slowGreps = []struct {
	name         string
	files, lines int
	path         string
}{
	{"many files", 120, 1000, ""},
	{"one big file", 1, 50000, "f000.txt"},
}

// startSlowGrep starts a slow grep and gives it time to get going.
func startSlowGrep(t *testing.T, files, lines int, path string) *cchubProc {
	p := startCchub(t, slowWorkspace(t, files, lines))
	p.Initialize()
	p.Send(slowGrep(path))
	time.Sleep(300 * time.Millisecond)
	return p
}

// The client closing stdin is MCP's way to stop a server: it exits at
// once, cancelling the grep in flight.
func TestMCPStdioClosedStdinExitsPromptly(t *testing.T) {
	for _, g := range slowGreps {
		t.Run(g.name, func(t *testing.T) {
			p := startSlowGrep(t, g.files, g.lines, g.path)
			p.In.Close()
			p.waitExit(t, "stdin was closed during a long grep")
		})
	}
}

// SIGTERM and SIGINT stop the server at once too, in-flight calls or not.
func TestMCPStdioSignalExitsPromptly(t *testing.T) {
	for _, g := range slowGreps {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			name := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT"}[sig]
			t.Run(name+" "+g.name, func(t *testing.T) {
				p := startSlowGrep(t, g.files, g.lines, g.path)
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				p.waitExit(t, name+" during a long grep")
			})
		}
	}
}

// notifications/cancelled stops a grep over many files: the call returns
// (it answers that it was cancelled, long before the grep could have
// finished) and the server answers the next request.
func TestMCPStdioCancelledGrepStops(t *testing.T) {
	g := slowGreps[0]
	p := startSlowGrep(t, g.files, g.lines, g.path)
	p.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"no longer needed"}}`)
	r := p.ReplyTo("2")
	if !strings.Contains(string(r.Result), "context canceled") {
		t.Errorf("the cancelled grep answered %s; want it to stop and say it was cancelled", stdiotest.MustJSON(r))
	}
	p.Ping(3)
}

// startLineServer runs the transport's Serve with s over pipes until the
// test ends.
func startLineServer(t *testing.T, s *mcp.Server, maxLine int) *stdiotest.LineServer {
	t.Helper()
	return stdiotest.StartServer(t, func(ctx context.Context, in io.Reader, out io.Writer, warn func(string)) error {
		return stdio.Serve(ctx, s, in, out, stdio.Options{MaxLineBytes: maxLine, Warn: warn})
	})
}

// badLines per JSON-RPC: each gets its error, and the session answers the
// next request as if nothing had happened.
func TestStdioBadLinesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	ls := startLineServer(t, NewServer(newTestHub(t, copyWorkspace(t, "go"))), stdio.MaxLineBytes)
	ls.Initialize()
	stdiotest.CheckBadLines(t, ls.RawClient)
}

// A notification is never answered, malformed or not (JSON-RPC forbids
// it); a bad one is dropped with a note on stderr, and a response from the
// client that is bad is dropped the same way (an answer could be taken for
// the reply to the client's own request of that id).
func TestStdioBadNotificationsAreDroppedQuietly(t *testing.T) {
	ls := startLineServer(t, NewServer(newTestHub(t, copyWorkspace(t, "go"))), stdio.MaxLineBytes)
	ls.Initialize()
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
		ls.Send(line)
		ls.Ping(i) // the first thing written is the ping's answer
	}
	if w := ls.Warnings(); !strings.Contains(w, `dropped the notification "notifications/progress": "jsonrpc" must be "2.0"`) || !strings.Contains(w, "dropped the response to 77") {
		t.Errorf("stderr does not say what was dropped:\n%s", w)
	}
}
