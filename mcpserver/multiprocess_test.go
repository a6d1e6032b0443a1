package mcpserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTwoServersEditingOneFileLoseNothing runs two `cchub mcp` processes
// on one workspace, each editing its own lines of the same file as fast as
// it can, the way two agents (or an agent and a human's CLI) would. Every
// edit answered as applied must be in the file at the end: the flock held
// from read to write makes each edit land on the other's result, or be
// refused as stale, and a refused edit is read again and retried, as an
// agent does.
func TestTwoServersEditingOneFileLoseNothing(t *testing.T) {
	bin := buildCchub(t)
	ws := t.TempDir()
	const perServer = 100
	var src strings.Builder
	src.WriteString("package shared\n\n")
	for s := range 2 {
		for i := range perServer {
			fmt.Fprintf(&src, "var s%dv%03d = 0\n", s, i)
		}
	}
	file := filepath.Join(ws, "shared.go")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	applied := make([][]int, 2)
	stale := make([]int, 2)
	for s := range 2 {
		wg.Add(1)
		go func() { // owned by this test: waited for below
			defer wg.Done()
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "editor", Version: "1"}, nil).
				Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "mcp", "--root", ws)}, nil)
			if err != nil {
				t.Errorf("server %d: %v", s, err)
				return
			}
			defer cs.Close()
			call := func(name string, args map[string]any) (string, bool) {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				if err != nil {
					t.Errorf("server %d: %s: %v", s, name, err)
					return "", true
				}
				return res.Content[0].(*mcp.TextContent).Text, res.IsError
			}
			call("read", map[string]any{"path": "shared.go"})
			for i := range perServer {
				// Another process's edits may win the race many times
				// in a row on a loaded machine: retry for a minute.
				for giveUp := time.Now().Add(time.Minute); ; {
					text, isErr := call("edit", map[string]any{
						"path":       "shared.go",
						"old_string": fmt.Sprintf("var s%dv%03d = 0\n", s, i),
						"new_string": fmt.Sprintf("var s%dv%03d = %d\n", s, i, i+1),
					})
					if !isErr {
						applied[s] = append(applied[s], i)
						break
					}
					if !strings.Contains(text, "changed on disk") || time.Now().After(giveUp) {
						t.Errorf("server %d edit %d: %s", s, i, text)
						break
					}
					stale[s]++
					call("read", map[string]any{"path": "shared.go"})
				}
			}
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for s := range 2 {
		if len(applied[s]) != perServer {
			t.Errorf("server %d: %d of %d edits applied", s, len(applied[s]), perServer)
		}
		for _, i := range applied[s] {
			if !strings.Contains(string(data), fmt.Sprintf("var s%dv%03d = %d\n", s, i, i+1)) {
				lost++
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d edits answered as applied are missing from the file", lost)
	}
	t.Logf("%d edits applied, %d refused as stale and retried, %d lost", len(applied[0])+len(applied[1]), stale[0]+stale[1], lost)
}
