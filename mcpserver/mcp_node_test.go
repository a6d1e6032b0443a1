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
	steps := runNodeClient(t, bin, ws, script)
	if len(steps) != 12 {
		t.Fatalf("got %d steps, want 12:\n%+v", len(steps), steps)
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

// nodeStep is one line the TypeScript SDK client prints.
type nodeStep struct {
	List          []string `json:"list"`
	Bytes         int      `json:"bytes"`
	Tool          string   `json:"tool"`
	Exec          string   `json:"exec"`
	Status        int      `json:"status"`
	IsError       bool     `json:"isError"`
	ProtocolError bool     `json:"protocolError"`
	Text          string   `json:"text"`
}

// runNodeClient runs script (client.mjs's steps) with the TypeScript SDK
// client against `bin mcp` on ws, and returns its steps.
func runNodeClient(t *testing.T, bin, ws, script string) []nodeStep {
	t.Helper()
	node, err := exec.LookPath("node")
	wstest.RequirePeer(t, "node, which runs the TypeScript SDK client (Node.js 20 or later: apt-get install nodejs npm)", err == nil)
	_, err = os.Stat(filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	wstest.RequirePeer(t, "the MCP TypeScript SDK in mcpserver/"+mcpClientDir+"/node_modules (make test installs it: npm ci in mcpserver/"+mcpClientDir+")", err == nil)
	sf := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(sf, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(mcpClientDir, "client.mjs"), sf, "--", bin, "mcp", "--root", ws, "--approval", "human", "--diagnostics-timeout", "5s")
	cmd.Dir = ws // the steps' shell commands run in the workspace
	if abs, err := filepath.Abs(mcpClientDir); err == nil {
		cmd.Args[1] = filepath.Join(abs, "client.mjs")
	}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("mcp client: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr)
	}
	var steps []nodeStep
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var s nodeStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		steps = append(steps, s)
	}
	return steps
}

// Through the real binary and an independent client: a problem that was
// there when the conversation began, hidden by an error and back when it
// is fixed, is told as back; what the agent's shell changed on disk leads
// the next answer of any tool, attributed, once.
func TestMCPBackAndDiskChangesThroughTheTypeScriptClient(t *testing.T) {
	requireGopls(t)
	bin := buildCchub(t)
	ws := copyWorkspace(t, "go")
	// A vet warning the conversation finds there.
	if err := os.WriteFile(filepath.Join(ws, "pricing", "w.go"), []byte("package pricing\n\nimport \"fmt\"\n\nfunc W() string { return fmt.Sprintf(\"%d\", \"x\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `[
	{"tool": "edit", "args": {"path": "pricing/pricing.go", "old_string": "// Cents returns n cents as Money.", "new_string": "// Cents returns n cents as Money, exactly."}},
	{"tool": "edit", "args": {"path": "pricing/pricing.go", "old_string": "func Cents(n int64) Money { return Money(n) }", "new_string": "var broken int = \"one\"\n\nfunc Cents(n int64) Money { return Money(n) }"}},
	{"tool": "edit", "args": {"path": "pricing/pricing.go", "old_string": "var broken int = \"one\"\n\n", "new_string": ""}},
	{"exec": "sed -i 's/func Cents(n int64) Money {/func Cents(n int64, unit string) Money {/' pricing/pricing.go"},
	{"tool": "glob", "args": {"pattern": "*.go"}},
	{"tool": "glob", "args": {"pattern": "*.go"}}]`
	steps := runNodeClient(t, bin, ws, script)
	if len(steps) != 6 {
		t.Fatalf("got %d steps, want 6:\n%+v", len(steps), steps)
	}
	if s := steps[0].Text; strings.Contains(s, "new warning") {
		t.Errorf("a comment's answer calls the warning that was there new:\n%s", s)
	}
	if s := steps[1].Text; !strings.Contains(s, "1 new error in pricing/pricing.go") || !strings.Contains(s, "gone: warning") {
		t.Fatalf("the type error, hiding the warning (the case this test is about):\n%s", s)
	}
	if s := steps[2].Text; !strings.Contains(s, "1 warning back (there before your changes) in pricing/w.go") || strings.Contains(s, "new warning") {
		t.Errorf("the warning's return is not told as back:\n%s", s)
	}
	if steps[3].Status != 0 {
		t.Fatalf("sed: %+v", steps[3])
	}
	news := steps[4].Text
	if !strings.HasPrefix(news, "[changes on disk to pricing/pricing.go, not made through cchub") || !strings.Contains(news, "main.go") || !strings.Contains(news, "not enough arguments in call to pricing.Cents") {
		t.Errorf("the next answer does not lead with what the change on disk caused:\n%s", news)
	}
	if s := steps[5].Text; strings.Contains(s, "changes on disk") {
		t.Errorf("told twice:\n%s", s)
	}
}
