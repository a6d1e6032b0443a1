package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/mcpserver/stdio/stdiotest"
)

const (
	backpressureEnv = "CCHUB_STDIO_BACKPRESSURE_CHILD"
	// backpressureCalls answers of backpressureAnswer bytes each: 160 MB
	// of text, and 195 MiB of peak memory, had the server kept
	// them all.
	backpressureCalls  = 10000
	backpressureAnswer = 16 << 10
)

// TestBackpressureChild is run as a child by TestStdioClientThatDoesNotRead:
// it serves, on its own stdin and stdout, a tool whose every answer is
// backpressureAnswer bytes.
func TestBackpressureChild(t *testing.T) {
	if os.Getenv(backpressureEnv) == "" {
		t.Skip("run as a child by TestStdioClientThatDoesNotRead")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "t"}, nil)
	s.AddTool(&mcp.Tool{Name: "big", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", backpressureAnswer)}}}, nil
		})
	if err := Serve(context.Background(), s, os.Stdin, os.Stdout, Options{}); err != nil {
		t.Fatal(err)
	}
}

// A client that sends 10,000 calls and reads none of the answers until it
// has sent them all: the server stops reading while MaxUnanswered answers
// are unsent, so its memory stays bounded (it took 1.16 GB), and once the
// client reads, every answer arrives, each once (in the order the calls
// finish, which the SDK does not tie to the order they were sent).
func TestStdioClientThatDoesNotRead(t *testing.T) {
	if os.Getenv(backpressureEnv) != "" {
		t.Skip("in the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBackpressureChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), backpressureEnv+"=1")
	cmd.Stderr = os.Stderr
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
	defer cmd.Process.Kill() // after Wait, a no-op; on a failure, the reaper below waits
	out := bufio.NewReaderSize(stdout, 1<<20)
	send := func(line string) {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if line, err := out.ReadBytes('\n'); err != nil || !strings.Contains(string(line), `"id":0`) {
		t.Fatalf("initialize: %v %s", err, line)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// Send every call without reading; the writes block once the server
	// stops reading, so they run on their own goroutine, owned by this test.
	var sent atomic.Int64
	writerDone := make(chan error, 1)
	go func() {
		var err error
		for i := 1; i <= backpressureCalls && err == nil; i++ {
			_, err = fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{}}}`+"\n", i)
			sent.Add(1)
		}
		writerDone <- err
	}()
	// Wait until the writer is done (a server without backpressure reads
	// every call) or makes no progress for a while (the server stopped
	// reading). This only chooses when to start reading; nothing is
	// asserted about time.
	last, still := int64(-1), 0
	for still < 10 {
		select {
		case err := <-writerDone:
			if err != nil {
				t.Fatal(err)
			}
			writerDone <- nil
			still = 10
			continue
		case <-time.After(100 * time.Millisecond):
		}
		if n := sent.Load(); n == last {
			still++
		} else {
			last, still = n, 0
		}
	}
	t.Logf("%d of %d calls sent before reading", sent.Load(), backpressureCalls)

	// Now read every answer.
	got, seen := 0, make([]bool, backpressureCalls+1)
	for got < backpressureCalls {
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %d answers: %v", got, err)
		}
		var r struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("answer %d: %v: %.200s", got+1, err, line)
		}
		got++
		// Calls are answered as they finish, not in the order sent.
		if r.ID < 1 || r.ID > backpressureCalls || seen[r.ID] {
			t.Fatalf("answer %d has id %d: not a call sent, or answered twice", got, r.ID)
		}
		seen[r.ID] = true
		if len(r.Result.Content) != 1 || len(r.Result.Content[0].Text) != backpressureAnswer {
			t.Fatalf("answer %d is not the tool's whole text: %.200s", got, line)
		}
	}
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the server: %v", err)
	}
	kib := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	t.Logf("peak RSS %d MiB", kib>>10)
	// MaxUnanswered answers of 16 KiB, a few copies each, and the test
	// binary's own footprint; all answers held took 414 MiB (32 KiB each).
	if limit := int64(100 << 10); kib > limit {
		t.Errorf("the server's peak RSS was %d MiB, want < %d MiB", kib>>10, limit>>10)
	}
}

// A call the server makes of the client (here a ping from inside a tool)
// does not count against the backlog: with room for one unanswered call,
// taken by the tool call, the client's answer to the server's ping is
// still read, and the tool call ends.
func TestStdioBacklogStillReadsAnswersToTheServer(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t"}, nil)
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := req.Session.Ping(ctx, nil); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the client answered"}}}, nil
		})
	ls := stdiotest.StartServer(t, func(ctx context.Context, in io.Reader, out io.Writer, warn func(string)) error {
		return Serve(ctx, s, in, out, Options{MaxUnanswered: 1, Warn: warn})
	})
	ls.Initialize()
	ls.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	var ping struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if line := ls.Next(); json.Unmarshal(line, &ping) != nil || ping.Method != "ping" {
		t.Fatalf("want the server's ping, got %s", line)
	}
	ls.Send(`{"jsonrpc":"2.0","id":` + string(ping.ID) + `,"result":{}}`)
	if r := ls.NextReply(); string(r.ID) != "1" || !strings.Contains(string(r.Result), "the client answered") {
		t.Fatalf("the tool call: %s", stdiotest.MustJSON(r))
	}
	ls.Ping(2)
}
