package mcpserver

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMCPReadSymbolByName: read_symbol without a path finds the name in
// the workspace through the code graph: one definition is read (its path
// named), several are listed with the call that reads each, none says how
// to look; a path that does not define the name says where it is.
func TestMCPReadSymbolByName(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))

	for _, id := range []string{"Store.Remove", "Remove", "(*Store).Remove"} {
		text, isErr := callText(t, cs, "read_symbol", map[string]any{"id": id})
		if isErr || !strings.HasPrefix(text, "store/store.go:77-") || !strings.Contains(text, "77\tfunc (s *Store) Remove(sku string) error {") {
			t.Errorf("read_symbol id=%s:\n%s", id, text)
		}
	}

	// Several: each listed with the call that reads it, and each call works.
	os.MkdirAll(filepath.Join(ws, "extra"), 0o755)
	if err := os.WriteFile(filepath.Join(ws, "extra", "extra.go"), []byte("package extra\n\n// New makes nothing.\nfunc New() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, isErr := callText(t, cs, "read_symbol", map[string]any{"id": "New"})
	if !isErr || !strings.Contains(text, "2 definitions are named New") {
		t.Fatalf("read_symbol id=New with two:\n%s", text)
	}
	calls := regexp.MustCompile(`(?m)^  (\S+):(\d+) func New: read_symbol id=(\S+)$`).FindAllStringSubmatch(text, -1)
	if len(calls) != 2 {
		t.Fatalf("want two listed definitions, path:line kind name and the call:\n%s", text)
	}
	for _, c := range calls {
		body, isErr := callText(t, cs, "read_symbol", map[string]any{"id": c[3]})
		if isErr || !strings.HasPrefix(body, c[1]+":"+c[2]) {
			t.Errorf("the listed call read_symbol id=%s:\n%s", c[3], body)
		}
	}

	// None.
	text, isErr = callText(t, cs, "read_symbol", map[string]any{"id": "NoSuchThingAnywhere"})
	if !isErr || !strings.Contains(text, "no definition named NoSuchThingAnywhere") || !strings.Contains(text, "graph op=symbols name=*NoSuchThingAnywhere*") {
		t.Errorf("read_symbol of an unknown name:\n%s", text)
	}

	// A path that does not define it: the error says where it is.
	text, isErr = callText(t, cs, "read_symbol", map[string]any{"id": "pricing/pricing.go:Remove"})
	if !isErr || !strings.Contains(text, "pricing/pricing.go has no symbol named Remove") || !strings.Contains(text, "read_symbol id=store/store.go:Store.Remove") {
		t.Errorf("read_symbol in the wrong file:\n%s", text)
	}
	works := parseCall(t, text[strings.Index(text, "elsewhere"):], "read_symbol")
	if body, isErr := callText(t, cs, "read_symbol", works); isErr || !strings.HasPrefix(body, "store/store.go:77-") {
		t.Errorf("the call it names, %v:\n%s", works, body)
	}

	// path:Name reads as before, and a file named without a symbol still
	// says to name one.
	if text, isErr := callText(t, cs, "read_symbol", map[string]any{"id": "store/store.go:Store.Remove"}); isErr || !strings.HasPrefix(text, "store/store.go:77-") {
		t.Errorf("path:Name:\n%s", text)
	}
	if text, isErr := callText(t, cs, "read_symbol", map[string]any{"id": "store/store.go"}); !isErr || !strings.Contains(text, "without a symbol name") {
		t.Errorf("a file without a name:\n%s", text)
	}
	if text, isErr := callText(t, cs, "read_symbol", map[string]any{"id": "stroe.go"}); !isErr || !strings.Contains(text, "without a symbol name") {
		t.Errorf("a missing file without a name is not looked up as a symbol:\n%s", text)
	}
}
