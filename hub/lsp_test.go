package hub

import (
	"os/exec"
	"strings"
	"testing"

	"cchub/workspace/wstest"
)

func requireGopls(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("gopls")
	wstest.RequirePeer(t, "gopls (make test installs it into .tools/bin)", err == nil)
}

// The lsp tool answers through gopls at a symbol or a position, and the
// diagnostics tool lists what is wrong now.
func TestMCPLSPAndDiagnostics(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "lsp", map[string]any{"op": "references", "path": "pricing/pricing.go", "symbol": "Cents"})
	if isErr || !strings.HasPrefix(text, "references of pricing/pricing.go:24:6: 4\n") || !strings.Contains(text, "main.go:19:") {
		t.Fatalf("references:\n%s", text)
	}
	text, isErr = callText(t, cs, "lsp", map[string]any{"op": "definition", "path": "main.go", "line": 19, "column": 63})
	if isErr || !strings.Contains(text, "pricing/pricing.go:24:6\tfunc Cents(n int64) Money") {
		t.Fatalf("definition:\n%s", text)
	}
	text, isErr = callText(t, cs, "lsp", map[string]any{"op": "rename", "path": "pricing/pricing.go", "symbol": "Cents", "new_name": "FromCents"})
	if isErr || !strings.Contains(text, "would change 2 file(s); nothing was written. To make the change, send this patch to apply_patch:\n*** Begin Patch\n") || !strings.Contains(text, "+func FromCents(n int64) Money") {
		t.Fatalf("rename:\n%s", text)
	}
	// The patch offered makes the rename, and the workspace stays clean.
	patch := text[strings.Index(text, "*** Begin Patch"):]
	callText(t, cs, "read", map[string]any{"path": "main.go"})
	callText(t, cs, "read", map[string]any{"path": "pricing/pricing.go"})
	if text, isErr := callText(t, cs, "apply_patch", map[string]any{"patch": patch}); isErr || strings.Contains(text, "error") {
		t.Fatalf("the rename's patch:\n%s", text)
	}
	text, isErr = callText(t, cs, "lsp", map[string]any{"op": "hover", "path": "pricing/pricing.go"})
	if !isErr || !strings.Contains(text, "needs a place: line and column (1-based), or symbol") {
		t.Fatalf("hover without a place:\n%s", text)
	}
	text, isErr = callText(t, cs, "diagnostics", map[string]any{"paths": []string{"main.go", "pricing/pricing.go"}})
	if isErr || text != "no diagnostics in the 2 file(s) checked\n" {
		t.Fatalf("diagnostics:\n%s", text)
	}
}
