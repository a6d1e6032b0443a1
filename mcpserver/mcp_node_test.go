package mcpserver

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cchub/workspace/wstest"
)

// mcpClientDir holds the independent MCP client: a driver on the official
// TypeScript SDK, pinned by its package-lock.json.
const mcpClientDir = "testdata/mcp-client"

// TestMCPWithTheTypeScriptSDKClient drives `cchub mcp` over real stdio with
// the official TypeScript SDK, the way other agents' clients call it.
func TestMCPWithTheTypeScriptSDKClient(t *testing.T) {
	node, err := exec.LookPath("node")
	wstest.RequirePeer(t, "node, which runs the TypeScript SDK client (Node.js 20 or later: apt-get install nodejs npm)", err == nil)
	_, err = os.Stat(filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	wstest.RequirePeer(t, "the MCP TypeScript SDK in mcpserver/"+mcpClientDir+"/node_modules (make test installs it: npm ci in mcpserver/"+mcpClientDir+")", err == nil)

	bin := buildCchub(t)
	ws := copyWorkspace(t, "go")
	script := `[{"list": true},
	{"tool": "glob", "args": {"pattern": "**/*.go"}},
	{"tool": "grep", "args": {"pattern": "package"}},
	{"tool": "outline", "args": {"path": "."}},
	{"tool": "read", "args": {"path": "go.mod"}},
	{"tool": "read", "args": {"path": "../outside"}},
	{"tool": "grep", "args": {"pattern": "Store("}},
	{"tool": "search", "args": {"pattern": "if $X != nil { return $X }", "lang": "go"}},
	{"tool": "edit", "args": {"path": "store/persist.go", "old_string": "    if err != nil {\n        return err\n    }", "new_string": "    if err != nil {\n        return fmt.Errorf(\"save: %w\", err)\n    }"}},
	{"tool": "read", "raw": true, "args": {"file_path": "go.mod"}},
	{"tool": "write", "args": {"path": "notes/todo.txt", "content": "written by the TypeScript client\n"}},
	{"tool": "search", "args": {"pattern": "fmt.Errorf($$$A)", "lang": "go", "counts": true}}]`
	sf := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(sf, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(mcpClientDir, "client.mjs"), sf, "--", bin, "mcp", "--root", ws, "--approval", "human", "--diagnostics-timeout", "5s")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("mcp client: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr)
	}
	type step struct {
		List          []string `json:"list"`
		Bytes         int      `json:"bytes"`
		Tool          string   `json:"tool"`
		IsError       bool     `json:"isError"`
		ProtocolError bool     `json:"protocolError"`
		Text          string   `json:"text"`
	}
	var steps []step
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var s step
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		steps = append(steps, s)
	}
	if len(steps) != 12 {
		t.Fatalf("got %d steps, want 12:\n%s", len(steps), out)
	}
	for _, name := range []string{"glob", "grep", "read", "outline", "read_symbol", "edit", "write", "apply_patch", "search",
		"lsp", "diagnostics", "debug", "graph", "rewrite", "resolve", "anchor"} {
		if !slices.Contains(steps[0].List, name) {
			t.Errorf("tools/list lacks %s: %v", name, steps[0].List)
		}
	}
	// The tool list is paid for on every turn of every conversation: all
	// of it within 6 KB, as the client's SDK hands it to a model.
	if steps[0].Bytes > 6*1024 {
		t.Errorf("tools/list is %d bytes, over 6 KB", steps[0].Bytes)
	}
	for i, s := range steps[1:5] {
		if s.IsError || s.ProtocolError || s.Text == "" {
			t.Errorf("step %d (%s) failed: %s", i+1, s.Tool, s.Text)
		}
	}
	if !strings.Contains(steps[4].Text, "module example.com/shop") {
		t.Errorf("read go.mod does not show the file's module line: %s", steps[4].Text)
	}
	// Strict outside: a path out of the root is a tool error (not a protocol
	// error) that says why.
	if !steps[5].IsError || steps[5].ProtocolError || !strings.Contains(steps[5].Text, "outside the workspace root") {
		t.Errorf("read ../outside: want a tool error about the root, got %+v", steps[5])
	}
	if !steps[6].IsError || !strings.Contains(steps[6].Text, "literal") {
		t.Errorf("invalid regex: want a tool error suggesting literal, got %+v", steps[6])
	}
	if steps[7].IsError || steps[7].ProtocolError || !strings.Contains(steps[7].Text, "store/persist.go:12") {
		t.Errorf("search: want the guard in store/persist.go at line 12, got %+v", steps[7])
	}
	// Tolerant inside: old_string with spaces where the file has tabs lands,
	// in the file's tabs.
	if steps[8].IsError || steps[8].ProtocolError || !strings.Contains(steps[8].Text, "store/persist.go") {
		t.Errorf("edit: %+v", steps[8])
	}
	got, err := os.ReadFile(filepath.Join(ws, "store", "persist.go"))
	if err != nil || !strings.Contains(string(got), "\tif err != nil {\n\t\treturn fmt.Errorf(\"save: %w\", err)\n\t}\n") {
		t.Errorf("the edit did not land in the file's tabs:\n%s", got)
	}
	// Arguments outside the schema (a field name another agent's tools use)
	// are refused with a message that names the field.
	if !steps[9].IsError || !strings.Contains(steps[9].Text, "file_path") {
		t.Errorf("read with file_path: want an error naming the field, got %+v", steps[9])
	}
	if steps[10].IsError || steps[10].ProtocolError {
		t.Errorf("write: %+v", steps[10])
	}
	if got, err := os.ReadFile(filepath.Join(ws, "notes", "todo.txt")); err != nil || string(got) != "written by the TypeScript client\n" {
		t.Errorf("write: file holds %q (%v)", got, err)
	}
	// A field the schema leaves out to keep the list small is still taken.
	if s := steps[11]; s.IsError || s.ProtocolError || !strings.Contains(s.Text, "store/persist.go") {
		t.Errorf("search with counts (a field the schema does not list): %+v", s)
	}
}
