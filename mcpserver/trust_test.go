package mcpserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/trust"
	"cchub/workspace/wstest"
)

// configNaming is a .cchub.json whose gopls is a shell that leaves mark
// behind and then runs the real gopls.
func configNaming(t *testing.T, mark string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"servers": []any{map[string]any{
		"name": "gopls", "command": "/bin/sh", "args": []string{"-c", "touch '" + mark + "'; exec gopls"}}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An agent cannot make cchub run a program: a .cchub.json it writes is
// untrusted by construction (the trust record lives outside the
// workspace, keyed by the file's content), so the read-only diagnostics
// call after it runs only the built-in server and says, once, what it
// skipped. A workspace trusted before the agent's edit of the file is
// untrusted after it.
func TestMCPAgentWrittenConfigRunsNothing(t *testing.T) {
	wstest.RequireProgram(t, "gopls")
	wstest.RequireProgram(t, "sh")
	conf := t.TempDir()
	t.Setenv(trust.EnvDir, conf)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/t\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	mark := filepath.Join(t.TempDir(), "ran")

	cs := connect(t, newTestHub(t, ws))
	wrote, isErr := callText(t, cs, "write", map[string]any{"path": ".cchub.json", "content": configNaming(t, mark)})
	if isErr {
		t.Fatalf("write: %s", wrote)
	}
	// The write's own check (the file is JSON, no server owns it) may
	// already have met the configuration: one of the two answers says it.
	out, isErr := callText(t, cs, "diagnostics", map[string]any{"paths": []string{"main.go"}})
	if isErr {
		t.Fatalf("diagnostics: %s", out)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the agent's .cchub.json ran its command")
	}
	if said := wrote + out; strings.Count(said, "which cchub ignored") != 1 ||
		!strings.Contains(said, "servers[gopls].command, servers[gopls].args), which cchub ignored: this workspace is not trusted") {
		t.Errorf("the answers do not say once what was skipped:\n%s\n%s", wrote, out)
	}
	again, _ := callText(t, cs, "diagnostics", map[string]any{"paths": []string{"main.go"}})
	if strings.Contains(again, "which cchub ignored") {
		t.Errorf("said twice in one run:\n%s", again)
	}

	// No tool reaches the trust record: it is outside the workspace.
	rec := filepath.Join(conf, "trusted.json")
	if out, isErr := callText(t, cs, "write", map[string]any{"path": rec, "content": "[]"}); !isErr || !strings.Contains(out, "outside") {
		t.Errorf("write of the trust record: %v %s", isErr, out)
	}

	// Trusted by a person, then edited by the agent: a new process no
	// longer runs it.
	data, _ := os.ReadFile(filepath.Join(ws, ".cchub.json"))
	if err := trust.Grant(ws, data, nil); err != nil {
		t.Fatal(err)
	}
	cs2 := connect(t, newTestHub(t, ws))
	if out, isErr := callText(t, cs2, "diagnostics", map[string]any{"paths": []string{"main.go"}}); isErr || strings.Contains(out, "ignored") {
		t.Fatalf("trusted: %v %s", isErr, out)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("trusted, yet the configured server did not run: %v", err)
	}
	os.Remove(mark)
	if out, isErr := callText(t, cs2, "edit", map[string]any{"path": ".cchub.json", "old_string": "exec gopls", "new_string": "exec gopls -rpc.trace"}); isErr {
		t.Fatalf("edit: %s", out)
	}
	cs3 := connect(t, newTestHub(t, ws))
	out, _ = callText(t, cs3, "diagnostics", map[string]any{"paths": []string{"main.go"}})
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the edited .cchub.json ran its command")
	}
	if !strings.Contains(out, ".cchub.json changed since it was trusted") {
		t.Errorf("the answer does not say the trust was revoked:\n%s", out)
	}
}
