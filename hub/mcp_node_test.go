package hub

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requirePeer skips when a real peer is missing, unless the run promised to
// have installed every peer (make test sets CCHUB_REQUIRE_PEERS=1): then a
// missing peer is a failure, not a silent skip.
func requirePeer(t *testing.T, what string, ok bool) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CCHUB_REQUIRE_PEERS") == "1" {
		t.Fatalf("%s is missing; `make test` installs it into .tools/", what)
	}
	t.Skipf("%s is missing; run `make test` to install it", what)
}

// buildCchub builds the binary once per test process.
func buildCchub(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cchub")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/cchub")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestMCPWithTheTypeScriptSDKClient drives `cchub mcp` over real stdio with
// the official TypeScript SDK, the way other agents' clients call it.
func TestMCPWithTheTypeScriptSDKClient(t *testing.T) {
	node, err := exec.LookPath("node")
	requirePeer(t, "node", err == nil)
	sdk := os.Getenv("MCP_SDK_DIR")
	_, statErr := os.Stat(filepath.Join(sdk, "package.json"))
	requirePeer(t, "the MCP TypeScript SDK (MCP_SDK_DIR)", sdk != "" && statErr == nil)
	client, _ := filepath.Abs(filepath.Join("..", "..", "shared", "tools", "mcp-client.mjs"))
	_, statErr = os.Stat(client)
	requirePeer(t, "shared/tools/mcp-client.mjs", statErr == nil)

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
	{"tool": "edit", "args": {"path": "store/persist.go", "old_string": "    if err != nil {\n        return err\n    }", "new_string": "    if err != nil {\n        return fmt.Errorf(\"save: %w\", err)\n    }"}}]`
	sf := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(sf, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, client, sf, "--", bin, "mcp", "--root", ws)
	cmd.Env = append(os.Environ(), "MCP_SDK_DIR="+sdk)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcp-client: %v\n%s", err, out)
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
	if len(steps) != 9 {
		t.Fatalf("got %d steps, want 9:\n%s", len(steps), out)
	}
	if len(steps[0].List) != 9 || steps[0].Bytes > 20*1024 {
		t.Errorf("tools/list = %v (%d bytes)", steps[0].List, steps[0].Bytes)
	}
	for i, s := range steps[1:5] {
		if s.IsError || s.ProtocolError || s.Text == "" {
			t.Errorf("step %d (%s) failed: %s", i+1, s.Tool, s.Text)
		}
	}
	if !strings.Contains(steps[4].Text, "module ") {
		t.Errorf("read go.mod shows no module line: %s", steps[4].Text)
	}
	if !steps[5].IsError || steps[5].ProtocolError || !strings.Contains(steps[5].Text, "outside the workspace root") {
		t.Errorf("read ../outside: want a tool error about the root, got %+v", steps[5])
	}
	if !steps[6].IsError || !strings.Contains(steps[6].Text, "literal") {
		t.Errorf("invalid regex: want a tool error suggesting literal, got %+v", steps[6])
	}
	if steps[7].IsError || !strings.Contains(steps[7].Text, "store/persist.go:12:2  $X = err") {
		t.Errorf("search: %+v", steps[7])
	}
	if steps[8].IsError || !strings.HasPrefix(steps[8].Text, "Edited store/persist.go: lines 12-14") {
		t.Errorf("edit: %+v", steps[8])
	}
	got, err := os.ReadFile(filepath.Join(ws, "store", "persist.go"))
	if err != nil || !strings.Contains(string(got), "\tif err != nil {\n\t\treturn fmt.Errorf(\"save: %w\", err)\n\t}\n") {
		t.Errorf("the edit did not land in the file's tabs:\n%s", got)
	}
}
