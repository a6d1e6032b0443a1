package mcpserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace/wstest"
)

// Through the MCP tools an agent calls, a path whose directory is a link
// into .git (as a cloned repository can deliver) is refused by edit,
// write and apply_patch with words that say where it leads and what to
// do instead; .git/config and .git/hooks stay as they were.
func TestMCPWriteToolsRefuseLinksIntoGit(t *testing.T) {
	wstest.RequireProgram(t, "git")
	ws := t.TempDir()
	cmd := exec.Command("git", "init", "-q", ".")
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for target, link := range map[string]string{".git": "g", ".git/hooks": "hooks", ".git/config": "cfg"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	config, err := os.ReadFile(filepath.Join(ws, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	hooksBefore, _ := os.ReadDir(filepath.Join(ws, ".git", "hooks"))
	cs := connect(t, newTestHub(t, ws))

	if text, isErr := callText(t, cs, "read", map[string]any{"path": "g/config"}); isErr {
		t.Fatalf("read g/config (reading is allowed): %s", text)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"edit", map[string]any{"path": "g/config", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = evil"}, "g/config resolves to .git/config, inside .git"},
		{"edit", map[string]any{"path": "cfg", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = evil"}, "cfg is a symlink to .git/config"},
		{"write", map[string]any{"path": "hooks/pre-commit", "content": "#!/bin/sh\nevil\n"}, "hooks/pre-commit resolves to .git/hooks/pre-commit, inside .git"},
		{"write", map[string]any{"path": "g/config", "content": "[core]\n\tfsmonitor = evil\n"}, "inside .git"},
		{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: g/hooks/post-checkout\n+#!/bin/sh\n+evil\n*** End Patch"}, "g/hooks/post-checkout resolves to .git/hooks/post-checkout, inside .git"},
	} {
		text, isErr := callText(t, cs, c.tool, c.args)
		if !isErr || !strings.Contains(text, c.want) || !strings.Contains(text, "use git itself") {
			t.Errorf("%s %v: isErr=%v, want a refusal saying %q and what to do:\n%s", c.tool, c.args, isErr, c.want, text)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(after) != string(config) {
		t.Errorf(".git/config changed:\n%s", after)
	}
	if hooksAfter, _ := os.ReadDir(filepath.Join(ws, ".git", "hooks")); len(hooksAfter) != len(hooksBefore) {
		t.Errorf(".git/hooks had %d entries, now %d", len(hooksBefore), len(hooksAfter))
	}
}
