package mcpserver

import (
	"strings"
	"testing"
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
	if !strings.Contains(text, "diagnostics: 1 new in pricing/pricing.go") || !strings.Contains(text, "24:18 error [compiler IncompatibleAssign] cannot use \"one\" (untyped string constant) as int value in variable declaration") {
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
	if !strings.Contains(text, "diagnostics: 1 new in pricing/pricing.go") || !strings.Contains(text, "as bool value") || strings.Contains(text, "cannot use \"one\"") {
		t.Errorf("the second error:\n%s", text)
	}
	// Fixed, then reintroduced: news again.
	edit(bad, "")
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
