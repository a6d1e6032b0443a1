//go:build unix

package framing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeServer.dir != "" {
		os.RemoveAll(fakeServer.dir)
	}
	os.Exit(code)
}

// fakeServer is testdata/fakeserver, built once per test binary.
var fakeServer struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

func buildFakeServer(t *testing.T) string {
	t.Helper()
	fakeServer.once.Do(func() {
		fakeServer.dir, fakeServer.err = os.MkdirTemp("", "framing-fakeserver-")
		if fakeServer.err != nil {
			return
		}
		fakeServer.path = filepath.Join(fakeServer.dir, "fakeserver")
		fakeServer.out, fakeServer.err = exec.Command("go", "build", "-o", fakeServer.path, "./testdata/fakeserver").CombinedOutput()
	})
	if fakeServer.err != nil {
		t.Fatalf("go build ./testdata/fakeserver: %v\n%s", fakeServer.err, fakeServer.out)
	}
	return fakeServer.path
}

// safeBuffer is a bytes.Buffer for a child's stderr, which exec copies in
// a goroutine of its own.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFakeServer talks JSON-RPC through Stream to a real child process whose
// framing is hostile: a banner before its first frame, frames cut across
// writes with pauses, two frames and a line of junk in one write, odd header
// cases, a 3 MB answer. The child runs in its own process group, is killed
// with it if the test ends early, and is always reaped.
func TestFakeServer(t *testing.T) {
	bin := buildFakeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	cmd := exec.Command(bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr safeBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// exec.Cmd.Wait closes stdout, so it may only run once reading is over:
	// after the conn ended, or, if the test ends early, after Close and a
	// kill of the whole group.
	var stream *Stream
	reaped := false
	t.Cleanup(func() {
		if reaped {
			return
		}
		if stream != nil {
			stream.Close()
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})

	var junkMu sync.Mutex
	var junk []string
	stream = NewStream(Duplex(stdout, stdin), Options{OnJunk: func(p []byte) {
		junkMu.Lock()
		defer junkMu.Unlock()
		junk = append(junk, string(p))
	}})
	conn := jsonrpc2.NewConn(stream)
	got := make(notes, 8)
	conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if _, isCall := req.(*jsonrpc2.Call); isCall {
			return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
		}
		got <- req
		return reply(ctx, nil, nil)
	})
	defer conn.Close()

	// initialize: its answer comes in five writes, cut inside the header.
	var init struct {
		Capabilities struct {
			HoverProvider bool `json:"hoverProvider"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if _, err := conn.Call(ctx, "initialize", map[string]any{"processId": os.Getpid()}, &init); err != nil {
		t.Fatalf("initialize: %v (server stderr: %s)", err, stderr.String())
	}
	if !init.Capabilities.HoverProvider || init.ServerInfo.Name != "fakeserver" {
		t.Errorf("initialize result = %+v", init)
	}

	// initialized: the server notifies, with a lower-case header.
	if err := conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	var logMsg struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(got.wait(t, "window/logMessage"), &logMsg); err != nil || logMsg.Message != "fake server ready" {
		t.Errorf("window/logMessage = %+v, %v", logMsg, err)
	}

	// ping: junk, the answer and a notification, in one write.
	for i := range 3 {
		var pong struct {
			Pong bool `json:"pong"`
			Echo struct {
				Seq int `json:"seq"`
			} `json:"echo"`
		}
		if _, err := conn.Call(ctx, "ping", map[string]int{"seq": i}, &pong); err != nil {
			t.Fatalf("ping: %v", err)
		}
		if !pong.Pong || pong.Echo.Seq != i {
			t.Errorf("ping %d = %+v", i, pong)
		}
		got.wait(t, "fake/pinged")
	}

	// A 3 MB answer, in 100 KB writes.
	var big string
	if _, err := conn.Call(ctx, "fake/big", map[string]int{"size": 3 << 20}, &big); err != nil || len(big) != 3<<20 || strings.Trim(big, "x") != "" {
		t.Fatalf("fake/big: %d bytes, %v", len(big), err)
	}

	_, err = conn.Call(ctx, "textDocument/hover", nil, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method = %v, want method not found", err)
	}

	// A clean goodbye: shutdown, exit, the process ends with 0 and the conn
	// sees its stdout end between frames.
	if _, err := conn.Call(ctx, "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Notify(ctx, "exit", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-conn.Done():
	case <-ctx.Done():
		t.Fatal("conn did not end after exit")
	}
	if err := conn.Err(); !errors.Is(err, io.EOF) {
		t.Errorf("conn ended with %v, want io.EOF", err)
	}
	err = cmd.Wait()
	reaped = true
	if err != nil {
		t.Errorf("fake server exited with %v (stderr: %s)", err, stderr.String())
	}

	junkMu.Lock()
	defer junkMu.Unlock()
	want := []string{"fake server starting\n", "loading workspace... done\n",
		"fake server: handled ping\n", "fake server: handled ping\n", "fake server: handled ping\n"}
	if strings.Join(junk, "|") != strings.Join(want, "|") {
		t.Errorf("junk reported = %q, want %q", junk, want)
	}
}
