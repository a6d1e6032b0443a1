package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/hub"
)

// copyWorkspace copies a bundled workspace into a temp dir, so tests may
// write into it (spill files, edits) without touching testdata.
func copyWorkspace(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "testdata", "workspaces", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// connect serves h over the SDK's in-memory transport and returns a client
// session, as an agent would hold it.
func connect(t *testing.T, h *hub.Hub) *mcp.ClientSession {
	t.Helper()
	return connectServer(t, NewServer(h))
}

// connectServer is connect to a server of the test's own.
func connectServer(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.(*mcp.TextContent).Text)
	}
	return b.String(), res.IsError
}

func newTestHub(t *testing.T, ws string) *hub.Hub {
	t.Helper()
	h, err := hub.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func TestMCPToolsListIsSmallAndDescribed(t *testing.T) {
	cs := connect(t, newTestHub(t, copyWorkspace(t, "go")))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"glob": true, "grep": true, "read": true, "outline": true, "read_symbol": true, "edit": true, "write": true, "apply_patch": true, "search": true}
	for _, tl := range res.Tools {
		delete(want, tl.Name)
		if tl.Description == "" {
			t.Errorf("%s has no description", tl.Name)
		}
		// What every tool has in common is said once, in the
		// instructions; a description says only what is particular.
		if len(tl.Description) > 200 {
			t.Errorf("%s: a %d-byte description; the conventions belong in the instructions", tl.Name, len(tl.Description))
		}
		var schema struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
		}
		raw, _ := json.Marshal(tl.InputSchema)
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		if len(schema.Properties) == 0 {
			t.Errorf("%s has no input properties", tl.Name)
		}
		for field, p := range schema.Properties {
			if p.Type == "" {
				t.Errorf("%s.%s has no type", tl.Name, field)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("tools missing: %v", want)
	}
	raw, _ := json.Marshal(res.Tools)
	if len(res.Tools) > 20 || len(raw) > 6*1024 {
		t.Errorf("tools/list is %d tools, %d bytes; the budget is 20 tools, 6 KB", len(res.Tools), len(raw))
	}
	init := cs.InitializeResult()
	if init == nil {
		t.Fatal("no initialize result")
	}
	for _, want := range []string{"outline", "path:LINE", "offset", "$$$X", "resolve", "8 KB"} {
		if !strings.Contains(init.Instructions, want) {
			t.Errorf("the server instructions do not say %q: %s", want, init.Instructions)
		}
	}
}

func TestMCPRoundTripOutlineThenReadSymbol(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))

	globText, isErr := callText(t, cs, "glob", map[string]any{"pattern": "**/*.go"})
	if isErr {
		t.Fatal(globText)
	}
	var file string
	for _, line := range strings.Split(globText, "\n") {
		if strings.HasSuffix(line, ".go") && !strings.Contains(line, " ") {
			file = strings.TrimSpace(line)
			break
		}
	}
	if file == "" {
		t.Fatalf("glob listed no .go file:\n%s", globText)
	}
	if filepath.IsAbs(file) {
		t.Fatalf("glob gave an absolute path %q; results are relative to the root", file)
	}

	outline, isErr := callText(t, cs, "outline", map[string]any{"path": file})
	if isErr {
		t.Fatal(outline)
	}
	if !strings.HasPrefix(outline, file+" (") {
		t.Fatalf("outline header does not start with the path:\n%s", outline)
	}
	// A symbol line is START-END, then a kind word or, for a function, its
	// name and parameters.
	m := regexp.MustCompile(`(?m)^(\d+)-(\d+) (?:(?:struct|type|interface) )?([A-Za-z_][\w.]*)\(`).FindStringSubmatch(outline)
	if m == nil {
		t.Fatalf("no symbol line in outline:\n%s", outline)
	}
	// The name as outline shows it is an id read_symbol takes, with or
	// without the line.
	for _, id := range []string{file + ":" + m[3], file + ":" + m[1] + ":" + m[3]} {
		body, isErr := callText(t, cs, "read_symbol", map[string]any{"id": id})
		if isErr {
			t.Fatalf("read_symbol %s: %s", id, body)
		}
		if !strings.HasPrefix(body, file+":"+m[1]+"-"+m[2]+" ") || !strings.Contains(body, "\n"+m[1]+"\t") {
			t.Fatalf("read_symbol %s does not show the symbol at %s:%s-%s:\n%s", id, file, m[1], m[2], body)
		}
	}
}

func TestMCPConfinementIsAToolErrorNamingTheRoot(t *testing.T) {
	ws := copyWorkspace(t, "go")
	h := newTestHub(t, ws)
	cs := connect(t, h)
	for _, args := range []map[string]any{
		{"path": "../../../etc/passwd"},
		{"path": "/etc/passwd"},
	} {
		text, isErr := callText(t, cs, "read", args)
		if !isErr {
			t.Fatalf("read %v: not an error:\n%s", args, text)
		}
		if !strings.Contains(text, h.Root.Dir()) {
			t.Errorf("read %v: error does not say what the root is: %s", args, text)
		}
	}
}

func TestMCPLargeResultIsCutAndSpilled(t *testing.T) {
	ws := copyWorkspace(t, "go")
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		b.WriteString("// a line long enough that two thousand of them pass fifty kilobytes easily\n")
	}
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "grep", map[string]any{"pattern": "long enough", "limit": 3000})
	if isErr {
		t.Fatal(text)
	}
	if len(text) > 50*1024 || strings.Count(text, "\n") > 2000 {
		t.Fatalf("result is %d bytes, %d lines: over the bound", len(text), strings.Count(text, "\n"))
	}
	m := regexp.MustCompile(`saved to (\.cchub/spill/\S+?);`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no spill marker at the end:\n%s", text[len(text)-500:])
	}
	full, err := os.ReadFile(filepath.Join(ws, m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(full), "long enough"); got != 3000 {
		t.Fatalf("spill file holds %d matches, want all 3000", got)
	}
	// The spill file is itself readable through the read tool.
	page, isErr := callText(t, cs, "read", map[string]any{"path": m[1], "offset": 2990, "limit": 5})
	if isErr || !strings.Contains(page, "long enough") {
		t.Fatalf("spill file not readable with offset/limit: %s", page)
	}
	if gi, err := os.ReadFile(filepath.Join(ws, ".cchub", ".gitignore")); err != nil || string(gi) != "*\n" {
		t.Fatalf(".cchub/.gitignore = %q, %v", gi, err)
	}
}
