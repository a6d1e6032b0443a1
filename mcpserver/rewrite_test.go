package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/hub"
)

const wrapPattern = "if $E != nil { return nil, $E }"
const wrapTemplate = "if $E != nil {\n    return nil, fmt.Errorf(\"store: %w\", $E)\n}"

// stagedID is the id in a "staged KIND ID: ..." answer.
func stagedID(t *testing.T, text string) string {
	t.Helper()
	f := strings.Fields(text)
	if len(f) < 3 || f[0] != "staged" {
		t.Fatalf("not a staged change:\n%s", text)
	}
	return strings.TrimSuffix(f[2], ":")
}

// An agent stages a rewrite through MCP: it gets the places and the diff,
// nothing is written, and under the default policy it cannot accept.
func TestMCPRewriteStagesAndHumanPolicyRefusesAccept(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	before, _ := os.ReadFile(filepath.Join(ws, "store/persist.go"))
	text, isErr := callText(t, cs, "rewrite", map[string]any{"pattern": wrapPattern, "template": wrapTemplate, "paths": []string{"store"}})
	if isErr {
		t.Fatal(text)
	}
	id := stagedID(t, text)
	for _, want := range []string{
		// The `if err := s.Add(it); err != nil` has an init statement:
		// not this shape.
		"staged rewrite " + id + ": 1 edit in 1 file; nothing is written yet.\n",
		"  store/persist.go:24: if err != nil {\n",
		"cchub review " + id,
		"--- a/store/persist.go\n+++ b/store/persist.go\n",
		// Written with spaces, it lands in the file's tabs; the diff
		// shows only the line that changed.
		" \tif err != nil {\n-\t\treturn nil, err\n+\t\treturn nil, fmt.Errorf(\"store: %w\", err)\n \t}\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("rewrite answer lacks %q:\n%s", want, text)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(ws, "store/persist.go")); string(after) != string(before) {
		t.Fatal("staging wrote the file")
	}
	text, _ = callText(t, cs, "resolve", map[string]any{})
	if !strings.Contains(text, "1 change staged:\n  "+id+"  1 edit in 1 file  rewrite `if $E != nil { return nil, $E }`") {
		t.Errorf("list:\n%s", text)
	}
	text, isErr = callText(t, cs, "resolve", map[string]any{"action": "accept", "id": id})
	if !isErr || !strings.Contains(text, "approval policy is human") || !strings.Contains(text, "`cchub review "+id+"`") {
		t.Errorf("accept under the human policy:\n%s", text)
	}
	text, isErr = callText(t, cs, "resolve", map[string]any{"action": "discard", "id": id})
	if isErr || text != "discarded "+id+"; no file was changed.\n" {
		t.Errorf("discard:\n%s", text)
	}
	text, isErr = callText(t, cs, "resolve", map[string]any{"action": "accept", "id": id})
	if !isErr || !strings.Contains(text, "nothing is staged now") {
		t.Errorf("accept after discard:\n%s", text)
	}
}

// Under the agent policy the agent applies its change; an edit made in
// between (here through the hub's own edit tool) rejects the change whole.
func TestMCPRewriteAgentPolicyAndDrift(t *testing.T) {
	ws := copyWorkspace(t, "go")
	h, err := hub.Open(ws, hub.Options{Approval: hub.ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	cs := connect(t, h)
	text, _ := callText(t, cs, "rewrite", map[string]any{"pattern": wrapPattern, "template": wrapTemplate})
	id := stagedID(t, text)
	if !strings.Contains(text, "resolve action=accept id="+id) {
		t.Errorf("agent policy: the answer does not say how to accept:\n%s", text)
	}
	// The agent edits one of the files before accepting.
	callText(t, cs, "read", map[string]any{"path": "store/persist.go"})
	if text, isErr := callText(t, cs, "edit", map[string]any{"path": "store/persist.go", "old_string": "// Save writes", "new_string": "// Save stores"}); isErr {
		t.Fatal(text)
	}
	edited, _ := os.ReadFile(filepath.Join(ws, "store/persist.go"))
	text, isErr := callText(t, cs, "resolve", map[string]any{"action": "accept", "id": id})
	if !isErr || !strings.Contains(text, "files changed since the change was staged: store/persist.go") || !strings.Contains(text, "stage it again") {
		t.Fatalf("accept after drift:\n%s", text)
	}
	if now, _ := os.ReadFile(filepath.Join(ws, "store/persist.go")); string(now) != string(edited) {
		t.Fatal("a drifted change was written")
	}
	// Staged again, it applies.
	callText(t, cs, "resolve", map[string]any{"action": "discard", "id": id})
	text, _ = callText(t, cs, "rewrite", map[string]any{"pattern": wrapPattern, "template": wrapTemplate})
	id = stagedID(t, text)
	text, isErr = callText(t, cs, "resolve", map[string]any{"action": "accept", "id": id})
	if isErr || !strings.HasPrefix(text, "applied "+id+": 1 file written.\n  store/persist.go (modified, +1 -1)\n") {
		t.Fatalf("accept:\n%s", text)
	}
	data, _ := os.ReadFile(filepath.Join(ws, "store/persist.go"))
	if strings.Count(string(data), `fmt.Errorf("store: %w", err)`) != 1 || !strings.Contains(string(data), "// Save stores") {
		t.Errorf("applied file:\n%s", data)
	}
	// The agent has seen what was written: it edits the file at once.
	if text, isErr := callText(t, cs, "edit", map[string]any{"path": "store/persist.go", "old_string": "// Save stores", "new_string": "// Save writes"}); isErr {
		t.Errorf("edit after apply: %s", text)
	}
}

// Mistakes get answers that say what to do.
func TestMCPRewriteMistakes(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "foo($A)", "template": "bar($B)"}, "$B"},
		{map[string]any{"pattern": "thisFunctionDoesNotExist($A)", "template": "x($A)"}, "matches nothing"},
		{map[string]any{"pattern": "", "template": "x"}, "pattern is empty"},
		{map[string]any{"pattern": "if $E != nil {", "template": "x"}, "pattern"},
		{map[string]any{"action": "accept"}, "needs the id"},
		{map[string]any{"action": "accept", "id": "nope"}, "nothing is staged now"},
	} {
		tool := "rewrite"
		if _, ok := tc.args["action"]; ok {
			tool = "resolve"
		}
		text, isErr := callText(t, cs, tool, tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: want an error with %q, got:\n%s", tool, tc.args, tc.want, text)
		}
	}
}

// connectAsking is connect with a client that answers elicitation as
// approve says.
func connectAsking(t *testing.T, h *hub.Hub, approve func(msg string) *mcp.ElicitResult) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewServer(h).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "asking", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return approve(req.Params.Message), nil
		},
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Under the human policy, a client that can ask its user (MCP
// elicitation) is asked; the user's answer decides.
func TestResolveAsksTheUserThroughElicitation(t *testing.T) {
	ws := copyWorkspace(t, "go")
	var asked []string
	answer := "decline"
	cs := connectAsking(t, newTestHub(t, ws), func(msg string) *mcp.ElicitResult {
		asked = append(asked, msg)
		if answer == "accept" {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
		}
		return &mcp.ElicitResult{Action: answer}
	})
	text, _ := callText(t, cs, "rewrite", map[string]any{"pattern": wrapPattern, "template": wrapTemplate})
	id := stagedID(t, text)
	before, _ := os.ReadFile(filepath.Join(ws, "store/persist.go"))
	text, isErr := callText(t, cs, "resolve", map[string]any{"action": "accept", "id": id})
	if isErr || !strings.Contains(text, "the user did not approve "+id) {
		t.Fatalf("declined:\n%s", text)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "Apply "+id+": 1 edit in 1 file?") {
		t.Errorf("the question: %q", asked)
	}
	if after, _ := os.ReadFile(filepath.Join(ws, "store/persist.go")); string(after) != string(before) {
		t.Fatal("written without approval")
	}
	answer = "accept"
	text, isErr = callText(t, cs, "resolve", map[string]any{"action": "accept", "id": id})
	if isErr || !strings.HasPrefix(text, "applied "+id) {
		t.Fatalf("approved:\n%s", text)
	}
}

// After a commit the language server is told of the files, and the
// answer carries the diagnostics the change brought.
func TestApplyReportsNewDiagnostics(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	h, err := hub.Open(ws, hub.Options{Approval: hub.ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	cs := connect(t, h)
	// The template calls a function that does not exist.
	text, _ := callText(t, cs, "rewrite", map[string]any{"pattern": wrapPattern, "template": "if $E != nil { return nil, wrapErr($E) }"})
	id := stagedID(t, text)
	text, isErr := callText(t, cs, "resolve", map[string]any{"action": "accept", "id": id})
	if isErr || !strings.Contains(text, "diagnostics: 1 new error in store/persist.go") || !strings.Contains(text, "undefined: wrapErr") {
		t.Fatalf("apply:\n%s", text)
	}
}

// A rewrite over hundreds of files answers within 8 KB: the counts,
// how to resolve, the first files, places and hunks, and the call that
// shows the next page of the diff.
func TestRewriteAnswerIsBounded(t *testing.T) {
	ws := t.TempDir()
	for i := range 300 {
		src := "package p\n\nfunc f" + strconv.Itoa(i) + "() {\n\tlegacyLog(\"a very long message that takes room in the diff\", " + strconv.Itoa(i) + ")\n}\n"
		if err := os.WriteFile(filepath.Join(ws, "f"+strconv.Itoa(i)+".go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "rewrite", map[string]any{"pattern": "legacyLog($$$A)", "template": "slog.Info($$$A)"})
	if isErr || len(text) > 8*1024 || !strings.HasPrefix(text, "staged rewrite ") || !strings.Contains(text, ": 300 edits in 300 files;") {
		t.Fatalf("%d bytes:\n%.400s", len(text), text)
	}
	id := stagedID(t, text)
	next := "resolve action=show id=" + id + " page=2"
	if !strings.Contains(text, next) {
		t.Errorf("the answer does not say how to see the rest:\n%s", text[len(text)-600:])
	}
	if i := strings.Index(text, "cchub review "); i < 0 || i > 400 {
		t.Errorf("how to resolve is not at the top of the answer:\n%.600s", text)
	}
	page, isErr := callText(t, cs, "resolve", map[string]any{"action": "show", "id": id, "page": 2})
	if isErr || len(page) > 8*1024 || !strings.HasPrefix(page, "staged rewrite "+id+", diff page 2 of ") || !strings.Contains(page, "page=3") {
		t.Errorf("page 2, %d bytes:\n%s", len(page), page)
	}
	if text, isErr := callText(t, cs, "resolve", map[string]any{"action": "list", "page": 2}); !isErr || !strings.Contains(text, "action=show") {
		t.Errorf("a page with list:\n%s", text)
	}
}
