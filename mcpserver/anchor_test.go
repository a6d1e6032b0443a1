//lint:file-ignore SA1019 the anchor's model tier is tested through MCP sampling, deprecated without a replacement (see sampling.go).

package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The anchor tool places a quote; without a model it never asks one.
func TestMCPAnchor(t *testing.T) {
	t.Setenv("CCHUB_ANCHOR_LLM_URL", "")
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "anchor", map[string]any{"path": "store/persist.go", "snippet": "  data, err := os.ReadFile(path)  \n  if err != nil {"})
	if isErr || text != "anchored (same-file): store/persist.go:23-24\n23\t\tdata, err := os.ReadFile(path)\n24\t\tif err != nil {\n" {
		t.Fatalf("anchor:\n%q", text)
	}
	text, _ = callText(t, cs, "anchor", map[string]any{"path": "main.go", "snippet": "data, err := os.ReadFile(path)"})
	if !strings.HasPrefix(text, "anchored (other-file): store/persist.go:23\nmoved: the snippet is not in main.go but in store/persist.go\n") {
		t.Errorf("moved:\n%s", text)
	}
	text, _ = callText(t, cs, "anchor", map[string]any{"path": "store/persist.go", "snippet": "data, err := os.ReadAll(path)"})
	if !strings.HasPrefix(text, "unplaced: ") || !strings.Contains(text, "no model tier") {
		t.Errorf("unplaced:\n%s", text)
	}
	text, isErr = callText(t, cs, "anchor", map[string]any{"path": "store/persist.go", "snippet": "\n\n"})
	if !isErr || !strings.Contains(text, "snippet is empty") {
		t.Errorf("empty:\n%s", text)
	}
}

// The model tier through the client's own model (MCP sampling), and
// through an endpoint from the environment, which takes precedence.
func TestMCPAnchorModelTier(t *testing.T) {
	ws := copyWorkspace(t, "go")
	h := newTestHub(t, ws)
	var sampled atomic.Int32
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewServer(h).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sampling", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			sampled.Add(1)
			if !strings.Contains(req.Params.SystemPrompt, "code-location assistant") {
				t.Errorf("system prompt: %q", req.Params.SystemPrompt)
			}
			return &mcp.CreateMessageResult{Role: "assistant", Model: "client-model", Content: &mcp.TextContent{Text: "```go\n\tdata, err := os.ReadFile(path)\n```"}}, nil
		},
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	before, _ := os.ReadFile(filepath.Join(ws, "store/persist.go"))
	t.Setenv("CCHUB_ANCHOR_LLM_URL", "")
	args := map[string]any{"path": "store/persist.go", "snippet": "we read the whole file into memory here", "comment": "stream it instead"}
	text, isErr := callText(t, cs, "anchor", args)
	if isErr || !strings.HasPrefix(text, "anchored (llm): store/persist.go:23\nthe snippet was replaced by the lines the model chose:\n23\t\tdata, err := os.ReadFile(path)\n") || sampled.Load() != 1 {
		t.Fatalf("sampling (%d asked):\n%s", sampled.Load(), text)
	}

	// A stand-in for an OpenAI-compatible endpoint, set in the
	// environment: it is asked instead of the client.
	var asked atomic.Int32
	standIn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		io.Copy(io.Discard, r.Body)
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": "```\nreturn s, nil\n```"}}}})
	}))
	t.Cleanup(standIn.Close)
	t.Setenv("CCHUB_ANCHOR_LLM_URL", standIn.URL)
	t.Setenv("CCHUB_ANCHOR_LLM_MODEL", "stand-in")
	text, isErr = callText(t, cs, "anchor", args)
	if isErr || !strings.HasPrefix(text, "anchored (llm): store/persist.go:37\n") || asked.Load() != 1 || sampled.Load() != 1 {
		t.Fatalf("endpoint (%d asked, %d sampled):\n%s", asked.Load(), sampled.Load(), text)
	}
	// Anchoring reads; it never edits.
	if after, _ := os.ReadFile(filepath.Join(ws, "store/persist.go")); string(after) != string(before) {
		t.Error("anchor changed the file")
	}
}
