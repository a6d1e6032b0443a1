package mcpserver

import (
	"strings"
	"testing"
)

// An error repeats what it was given, cut: a 100,000-character argument
// does not come back whole, and the advice at the end is kept.
func TestErrorResultsAreBounded(t *testing.T) {
	cs := connect(t, newTestHub(t, copyWorkspace(t, "go")))
	huge := strings.Repeat("x", 100_000)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read", map[string]any{"path": "../" + huge}},
		{"read", map[string]any{"path": huge + "/a.go"}},
		{"grep", map[string]any{"pattern": "(" + huge}},
		{"edit", map[string]any{"path": "go.mod", "old_string": huge, "new_string": "y"}},
		{"search", map[string]any{"pattern": "$X(" + huge, "lang": "go"}},
		{"write", map[string]any{"path": huge, "content": "x"}},
	} {
		text, isErr := callText(t, cs, c.tool, c.args)
		if !isErr {
			t.Errorf("%s: no error for a %d-byte argument", c.tool, len(huge))
		}
		if len(text) > maxErrorBytes+200 {
			t.Errorf("%s: error of %d bytes, want at most about %d", c.tool, len(text), maxErrorBytes)
		}
	}
}
