package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// In a workspace whose .cchub is not the user's (here a symlink), each
// MCP session's first result starts with the notice, and no later one
// does; a result too long for the bound is cut without a spill file a
// model could not read.
func TestMCPStateNoticeOncePerSession(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte(strings.Repeat("needle\n", MaxResultLines+50)), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(ws, ".cchub")); err != nil {
		t.Fatal(err)
	}
	h := newTestHub(t, ws)
	for range 2 {
		cs := connect(t, h)
		first, isErr := callText(t, cs, "glob", map[string]any{"pattern": "*.txt"})
		if isErr || !strings.HasPrefix(first, "[.cchub here is not your cchub's state (it is a symlink)") || !strings.Contains(first, "a.txt") {
			t.Fatalf("first result of a session:\n%s", first)
		}
		second, _ := callText(t, cs, "grep", map[string]any{"pattern": "needle", "limit": MaxResultLines + 50})
		if strings.Contains(second, "not your cchub's state") {
			t.Errorf("the notice was given twice in one session:\n%s", second[:200])
		}
		if !strings.Contains(second, "output cut") || !strings.Contains(second, "not saved") {
			t.Errorf("the long grep was not cut with a note that nothing was saved:\n%s", second[len(second)-400:])
		}
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("%d entries were made where the .cchub symlink points", len(ents))
	}
}
