package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An edit's answer carries the diagnostics it introduced, and only those
// this conversation has not been told: moved or repeated ones are not
// news, a fixed and reintroduced one is, and a caller broken in another
// file is reported for that file.
func TestMCPEditsReportOnlyNewDiagnostics(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	h := newTestHub(t, ws)
	cs := connect(t, h)
	edit := func(old, nw string) string {
		t.Helper()
		text, isErr := callText(t, cs, "edit", map[string]any{"path": "pricing/pricing.go", "old_string": old, "new_string": nw})
		if isErr {
			t.Fatalf("edit: %s", text)
		}
		return text
	}
	if _, isErr := callText(t, cs, "read", map[string]any{"path": "pricing/pricing.go"}); isErr {
		t.Fatal("read failed")
	}
	if running := h.RunningServers(); len(running) != 0 {
		t.Fatalf("a server runs after a read: %v", running)
	}
	const anchor = "func Cents(n int64) Money { return Money(n) }"
	bad := "var broken int = \"one\"\n\n"

	// Introduced: reported, with its place.
	text := edit(anchor, bad+anchor)
	if !strings.Contains(text, "diagnostics: 1 new error in pricing/pricing.go") || !strings.Contains(text, "24:18 error [compiler IncompatibleAssign] cannot use \"one\" (untyped string constant) as int value in variable declaration") {
		t.Fatalf("the type error was not reported:\n%s", text)
	}
	if got := h.RunningServers(); len(got) != 1 || got[0] != "gopls@" {
		t.Errorf("after the first .go edit: %v, want exactly one gopls", got)
	}
	// An unrelated edit elsewhere: not repeated.
	text = edit("func (m Money) String() string {", "// String shows m in euros.\nfunc (m Money) String() string {")
	if strings.Contains(text, "cannot use \"one\"") || !strings.Contains(text, "diagnostics: nothing new") {
		t.Errorf("a known error was repeated, or the answer said nothing:\n%s", text)
	}
	// The erroneous line moved down: not repeated.
	text = edit(bad, "// moved\n\n"+bad)
	if strings.Contains(text, "cannot use \"one\"") {
		t.Errorf("a moved error was repeated:\n%s", text)
	}
	// A second distinct error: only it.
	text = edit(anchor, "var alsoBroken bool = 2\n\n"+anchor)
	if !strings.Contains(text, "diagnostics: 1 new error in pricing/pricing.go") || !strings.Contains(text, "as bool value") || strings.Contains(text, "cannot use \"one\"") {
		t.Errorf("the second error:\n%s", text)
	}
	// Fixed: what went away is named, not only counted.
	text = edit(bad, "")
	if !strings.Contains(text, "gone: error [IncompatibleAssign] cannot use \"one\" (untyped string constant) as int value in variable declaration (pricing/pricing.go)\n") {
		t.Errorf("the fixed error is not named as gone:\n%s", text)
	}
	// Reintroduced: news again.
	text = edit(anchor, bad+anchor)
	if !strings.Contains(text, "cannot use \"one\"") {
		t.Errorf("a fixed and reintroduced error was not reported:\n%s", text)
	}
	// A caller in another file and package broken.
	text = edit(anchor, "func Cents(n int64, unit string) Money { return Money(n) }")
	if !strings.Contains(text, "main.go") || !strings.Contains(text, "not enough arguments in call to pricing.Cents") {
		t.Errorf("the broken caller in main.go was not reported:\n%s", text)
	}
}

// A change whose server has not settled within the bound says
// "pending", every time, and what it caused leads the next answer of any
// tool once the server has settled — attributed to it, and told once.
func TestMCPPendingDiagnosticsArriveWithTheNextAnswer(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	// A bound no cold gopls meets.
	if err := os.WriteFile(filepath.Join(ws, ".cchub.json"), []byte(`{"diagnostics_timeout": "1ms"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "edit", map[string]any{"path": "pricing/pricing.go",
		"old_string": "func Cents(n int64) Money {", "new_string": "func Cents(n int64, unit string) Money {"})
	if isErr || !strings.Contains(text, "[diagnostics pending: gopls had not settled after 1ms;") || !strings.Contains(text, "comes with your next answer") {
		t.Fatalf("the first edit does not say pending:\n%s", text)
	}
	text, isErr = callText(t, cs, "edit", map[string]any{"path": "pricing/pricing.go",
		"old_string": "// Cents returns", "new_string": "// Cents (with a unit) returns"})
	if isErr || !strings.Contains(text, "diagnostics pending") && !strings.Contains(text, "have settled") {
		t.Fatalf("the second edit, while the first may still be pending, says neither pending nor settled:\n%s", text)
	}
	all := text
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(all, "not enough arguments in call to pricing.Cents") && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		text, _ = callText(t, cs, "glob", map[string]any{"pattern": "*.go"})
		all += text
	}
	if !strings.Contains(all, "[diagnostics of the change to pricing/pricing.go, pending when it was answered, have settled]") ||
		!strings.Contains(all, "3 new errors in main.go") {
		t.Fatalf("the late news never came, or came unattributed:\n%s", all)
	}
	if n := strings.Count(all, "not enough arguments in call to pricing.Cents"); n != 1 {
		t.Errorf("the late news was told %d times:\n%s", n, all)
	}
	text, _ = callText(t, cs, "glob", map[string]any{"pattern": "*.go"})
	if strings.Contains(text, "have settled") {
		t.Errorf("told again:\n%s", text)
	}
}

// A new error the server has a quick fix for shows the fix's title.
func TestMCPNewErrorShowsItsQuickFix(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "edit", map[string]any{"path": "pricing/pricing.go",
		"old_string": "func Cents(n int64) Money { return Money(n) }",
		"new_string": "func Cents(n int64) Money { return Money(n) }\n\nvar errNegative = errors.New(\"negative\")"})
	if isErr {
		t.Fatalf("edit: %s", text)
	}
	if !strings.Contains(text, "undefined: errors") || !strings.Contains(text, "quick fix: Add import: \"errors\"") {
		t.Errorf("no quick fix shown:\n%s", text)
	}
}
