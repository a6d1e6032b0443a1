package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// suggestedCall finds the call an answer teaches, written as
// `tool key=value key=value` (values without spaces), and returns its
// tool and arguments.
var suggestedCall = regexp.MustCompile("\\b(glob|grep|read|outline|read_symbol|edit|search|lsp|diagnostics|graph|resolve)((?: [a-z_]+=[^\\s;,`]+)+)")

func parseCall(t *testing.T, text, tool string) map[string]any {
	t.Helper()
	for _, m := range suggestedCall.FindAllStringSubmatch(text, -1) {
		if m[1] != tool {
			continue
		}
		args := map[string]any{}
		for _, kv := range strings.Fields(m[2]) {
			k, v, _ := strings.Cut(kv, "=")
			v = strings.TrimRight(v, ".)]?")
			var n int
			if err := json.Unmarshal([]byte(v), &n); err == nil && k != "id" && k != "path" && k != "pattern" {
				args[k] = n
			} else if v == "true" || v == "false" {
				args[k] = v == "true"
			} else {
				args[k] = v
			}
		}
		return args
	}
	t.Fatalf("the answer names no %s call:\n%s", tool, text)
	return nil
}

// TestMCPUsualMistakesTeachACallThatWorks makes the mistakes models make
// most, through an MCP client; each answer says what was wrong and names
// a call that then succeeds.
func TestMCPUsualMistakesTeachACallThatWorks(t *testing.T) {
	ws := copyWorkspace(t, "go")
	var big strings.Builder
	for i := 1; i <= 5000; i++ {
		big.WriteString("// line of a long generated file, long enough to need more than one page " + strings.Repeat("x", i%40) + "\n")
	}
	if err := os.WriteFile(filepath.Join(ws, "big.go"), []byte("package main\n"+big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newTestHub(t, ws))

	mistake := func(name, tool string, args map[string]any, wants ...string) string {
		t.Helper()
		text, isErr := callText(t, cs, tool, args)
		if !isErr {
			t.Errorf("%s: %s %v answered without an error:\n%s", name, tool, args, text)
		}
		for _, w := range wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the answer lacks %q:\n%s", name, w, text)
			}
		}
		return text
	}
	works := func(name, tool string, args map[string]any) string {
		t.Helper()
		text, isErr := callText(t, cs, tool, args)
		if isErr {
			t.Errorf("%s: the suggested call %s %v fails:\n%s", name, tool, args, text)
		}
		return text
	}

	// 1. A misspelled path.
	mistake("misspelled path", "read", map[string]any{"path": "store/stroe.go"}, "no such file", "did you mean store/store.go")
	works("misspelled path", "read", map[string]any{"path": "store/store.go"})

	// 2. A symbol name in the wrong case.
	text := mistake("wrong-case symbol", "read_symbol", map[string]any{"id": "store/store.go:store.add"}, "no symbol named store.add")
	works("wrong-case symbol", "read_symbol", parseCall(t, text, "read_symbol"))

	// 3. A stale line (the symbol is at 58).
	text = mistake("stale line", "read_symbol", map[string]any{"id": "store/store.go:61:New"}, "does not start at store/store.go:61")
	works("stale line", "read_symbol", parseCall(t, text, "read_symbol"))

	// 4. An id without a line is not a mistake any more.
	works("id without line", "read_symbol", map[string]any{"id": "store/store.go:Store.Remove"})

	// 5. A regex with an unescaped paren.
	mistake("unescaped paren", "grep", map[string]any{"pattern": "Add("}, "literal")
	works("unescaped paren", "grep", map[string]any{"pattern": "Add(", "literal": true})

	// 6. old_string that is not in the file.
	text = mistake("old_string absent", "edit", map[string]any{"path": "store/store.go", "old_string": "func (s *Store) Delete(sku string) error {", "new_string": "x"}, "read")
	works("old_string absent", "read", parseCall(t, text, "read"))

	// 7. old_string that is in the file three times.
	mistake("old_string three times", "edit", map[string]any{"path": "store/store.go", "old_string": "s.mu.Lock()", "new_string": "s.mu.RLock()"},
		"Found 3", "67", "78", "89", "replace_all")

	// 8. Reading a whole big file: not an error, but a page that says
	// where to continue.
	page := works("whole big file", "read", map[string]any{"path": "big.go"})
	if len(page) > DefaultResultBytes {
		t.Errorf("whole big file: a page of %d bytes", len(page))
	}
	next := parseCall(t, page, "read")
	cont := works("whole big file", "read", next)
	if off, _ := next["offset"].(int); off < 2 || !strings.Contains(cont, "\n"+itoa(off)+"\t") {
		t.Errorf("whole big file: continuing at %v does not list that line:\n%.300s", next, cont)
	}
	if strings.Contains(page, ".cchub/spill") {
		t.Errorf("whole big file: a read spilled instead of paging:\n%s", page[len(page)-400:])
	}

	// 9. An unparsable pattern.
	mistake("unparsable pattern", "search", map[string]any{"pattern": "if $X != { return", "lang": "go"}, "pattern")

	// 10. A pattern in the wrong language.
	text = mistake("wrong language", "search", map[string]any{"pattern": "def $F($$$A):\n    return $X", "lang": "go"}, "python", "lang")
	if strings.Contains(text, "-l ") {
		t.Errorf("wrong language: the answer names the CLI flag, not the field lang:\n%s", text)
	}

	// 11. The file changed since it was read.
	callText(t, cs, "read", map[string]any{"path": "store/persist.go"})
	p := filepath.Join(ws, "store", "persist.go")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, append(data, "\n// touched elsewhere\n"...), 0o644)
	text = mistake("changed since read", "edit", map[string]any{"path": "store/persist.go", "old_string": "touched elsewhere", "new_string": "touched"}, "changed on disk since you last read it")
	works("changed since read", "read", parseCall(t, text, "read"))
	works("changed since read", "edit", map[string]any{"path": "store/persist.go", "old_string": "touched elsewhere", "new_string": "touched"})

	// 12. An offset past the end.
	text = mistake("offset past the end", "read", map[string]any{"path": "store/store.go", "offset": 500}, "119 lines")
	works("offset past the end", "read", parseCall(t, text, "read"))

	// 13. A field named as another tool names it.
	mistake("wrong field name", "read", map[string]any{"file_path": "store/store.go"}, `"file_path" (did you mean "path"?)`, "read takes path")
	mistake("wrong field name", "edit", map[string]any{"path": "store/store.go", "old_str": "a", "new_str": "b"}, `did you mean "old_string"?`, `did you mean "new_string"?`)

	// 14. An unknown field.
	mistake("unknown field", "read", map[string]any{"path": "store/store.go", "encoding": "utf-8"}, `unknown field "encoding"`, "read takes path, and optionally offset, limit")

	// 16. A symbol named without its file: found through the code graph.
	if text := works("bare name", "read_symbol", map[string]any{"id": "Store.Remove"}); !strings.Contains(text, "func (s *Store) Remove(sku string) error {") || !strings.Contains(text, "store/store.go") {
		t.Errorf("bare name: the answer does not read Store.Remove in store/store.go:\n%s", text)
	}

	// 17. old_string remembered wrongly (a renamed variable, a dropped
	// line): the hint names the function's place, and reading it there
	// shows the text to copy.
	text = mistake("old_string misremembered", "edit", map[string]any{"path": "store/store.go",
		"old_string": "func (s *Store) Remove(id string) error {\n\ts.mu.Lock()\n\tif _, ok := s.items[id]; !ok {\n\t\treturn fmt.Errorf(\"%w: %s\", ErrNotFound, id)\n\t}\n\tdelete(s.items, id)\n",
		"new_string": "x"}, "store/store.go:77")
	if r := works("old_string misremembered", "read", parseCall(t, text, "read")); !strings.Contains(r, "func (s *Store) Remove(sku string) error {") {
		t.Errorf("old_string misremembered: the read the hint names does not show Remove:\n%s", r)
	}

	// 18. A severity filter misspelled.
	mistake("severity misspelled", "diagnostics", map[string]any{"severity": "errors"}, "error, warning, info")
	works("severity misspelled", "diagnostics", map[string]any{"severity": "error"})

	// 19. A field the schema leaves out to stay small is still taken.
	if text := works("unadvertised field", "search", map[string]any{"pattern": "s.mu.Lock()", "lang": "go", "counts": true}); !strings.Contains(text, "store/store.go") {
		t.Errorf("unadvertised field: search counts=true does not count store/store.go:\n%s", text)
	}

	// 15. A unified diff sent to apply_patch.
	diff := "--- a/store/store.go\n+++ b/store/store.go\n@@ -58 +58 @@\n-func New(name string) *Store {\n+func New(name string) *Store { // new\n"
	text = mistake("unified diff", "apply_patch", map[string]any{"patch": diff}, "this is a unified diff", "*** Begin Patch\n*** Update File: store/store.go\n@@\n-func New")
	if i := strings.Index(text, "*** Begin Patch\n"); i >= 0 {
		works("unified diff", "apply_patch", map[string]any{"patch": text[i:]})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestMCPArgumentsAreForgivenWhereHarmless: a single path where a list is
// asked for is a list of one.
func TestMCPArgumentsAreForgivenWhereHarmless(t *testing.T) {
	cs := connect(t, newTestHub(t, copyWorkspace(t, "go")))
	text, isErr := callText(t, cs, "search", map[string]any{"pattern": "s.mu.Lock()", "lang": "go", "paths": "store"})
	if isErr || !strings.Contains(text, "store/store.go:67:") {
		t.Fatalf("paths as a string: %s", text)
	}
	text, isErr = callText(t, cs, "glob", map[string]any{"pattern": "*.go", "limit": 2})
	if isErr || strings.Count(text, ".go\n") != 2 {
		t.Fatalf("glob with limit 2:\n%s", text)
	}
	// Numbers and booleans spelled as strings, as some clients send them.
	text, isErr = callText(t, cs, "read", map[string]any{"path": "store/store.go", "offset": "58", "limit": " 3"})
	if isErr || !strings.HasPrefix(text, "store/store.go:58-60 ") {
		t.Fatalf("offset and limit as strings:\n%s", text)
	}
	text, isErr = callText(t, cs, "grep", map[string]any{"pattern": "New(", "literal": "true"})
	if isErr || !strings.Contains(text, "58\tfunc New(") {
		t.Fatalf("literal as a string:\n%s", text)
	}
	// What cannot be read one way only is refused, saying what was wanted.
	text, isErr = callText(t, cs, "read", map[string]any{"path": "store/store.go", "offset": "sixty"})
	if !isErr || !strings.Contains(text, `"offset" must be a whole number, not a JSON string`) {
		t.Fatalf("offset as a word:\n%s", text)
	}
}

// TestMCPToolsCarryAnnotationsAndPlainSchemas: clients auto-approve and
// parallelise by the annotations, and build forms from the schemas.
func TestMCPToolsCarryAnnotationsAndPlainSchemas(t *testing.T) {
	cs := connect(t, newTestHub(t, copyWorkspace(t, "go")))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := map[string]bool{"glob": true, "grep": true, "read": true, "outline": true, "read_symbol": true, "search": true, "lsp": true, "diagnostics": true, "graph": true, "rewrite": true, "anchor": true}
	for _, tl := range res.Tools {
		// MCP's defaults: not read-only, destructive, not idempotent.
		a := tl.Annotations
		if a == nil {
			a = &mcp.ToolAnnotations{}
		}
		if a.ReadOnlyHint != readOnly[tl.Name] {
			t.Errorf("%s: readOnlyHint %v", tl.Name, a.ReadOnlyHint)
		}
		if !a.ReadOnlyHint && a.DestructiveHint != nil && !*a.DestructiveHint {
			t.Errorf("%s changes files but is marked not destructive", tl.Name)
		}
		raw, _ := json.Marshal(tl.InputSchema)
		var schema struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		json.Unmarshal(raw, &schema)
		for name, p := range schema.Properties {
			if _, ok := p["type"].(string); !ok {
				t.Errorf("%s.%s has type %v; clients that build forms need one type", tl.Name, name, p["type"])
			}
		}
	}
}

// TestMCPLongReadsPageByLinesToo: a file or symbol of many short lines hits
// the bound's line count before its byte count; the page still ends at a
// whole line inside the bound and names the offset that continues, with
// no spill file.
func TestMCPLongReadsPageByLinesToo(t *testing.T) {
	ws := copyWorkspace(t, "go")
	var b strings.Builder
	b.WriteString("package main\n\nfunc long() {\n")
	for i := 0; i < 2500; i++ {
		b.WriteString("\t_ = 1\n")
	}
	b.WriteString("}\n")
	if err := os.WriteFile(filepath.Join(ws, "long.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newTestHub(t, ws))
	for _, call := range []struct {
		tool string
		args map[string]any
		next string
	}{
		{"read", map[string]any{"path": "long.go"}, ""},
		{"read", map[string]any{"path": "long.go", "limit": 5000}, "offset=1991]"},
		{"read_symbol", map[string]any{"id": "long.go:long"}, ""},
	} {
		text, isErr := callText(t, cs, call.tool, call.args)
		if isErr {
			t.Fatalf("%s %v: %s", call.tool, call.args, text)
		}
		budget := DefaultBudget
		if call.args["limit"] != nil {
			budget = WideBudget
		}
		if n := strings.Count(text, "\n"); n > budget.Lines || len(text) > budget.Bytes || strings.Contains(text, ".cchub/spill") {
			t.Errorf("%s %v: %d lines, %d bytes, spilled %v", call.tool, call.args, n, len(text), strings.Contains(text, ".cchub/spill"))
		}
		if call.next != "" && !strings.HasSuffix(strings.TrimSpace(text), call.next) {
			t.Errorf("%s %v ends %q, want it to name %s", call.tool, call.args, text[max(0, len(text)-120):], call.next)
		}
		if call.next != "" {
			continue
		}
		// A default page ends near 8 KB at a whole line and names the
		// read that continues it; read_symbol's names the rest of the
		// symbol (its limit), which then comes in one answer.
		if len(text) < DefaultResultBytes*3/4 {
			t.Errorf("%s %v: a default page of only %d bytes", call.tool, call.args, len(text))
		}
		next := parseCall(t, text, "read")
		off, _ := next["offset"].(int)
		if off < 100 || !strings.Contains(text, "\n"+itoa(off-1)+"\t") || strings.Contains(text, "\n"+itoa(off)+"\t") {
			t.Fatalf("%s %v: the next offset %d is not the line after the last shown:\n%s", call.tool, call.args, off, text[len(text)-200:])
		}
		rest, isErr := callText(t, cs, "read", next)
		if isErr || !strings.HasPrefix(strings.SplitN(rest, "\n", 2)[1], itoa(off)+"\t") {
			t.Errorf("%s %v: continuing with %v:\n%.300s", call.tool, call.args, next, rest)
		}
		if call.tool == "read_symbol" {
			if lim, _ := next["limit"].(int); off+lim-1 != 2504 || !strings.Contains(rest, "\n2504\t}") {
				t.Errorf("read_symbol: the continuation %v does not reach the symbol's end, line 2504:\n%.300s", next, rest[max(0, len(rest)-300):])
			}
		}
	}
}

// A huge limit is capped at what a result can hold, not trusted: the
// answer is the same as with the cap.
func TestMCPHugeLimitsAreCapped(t *testing.T) {
	ws := copyWorkspace(t, "go")
	var b strings.Builder
	for i := 0; i < maxLimit+500; i++ {
		b.WriteString("match me\n")
	}
	os.WriteFile(filepath.Join(ws, "many.txt"), []byte(b.String()), 0o644)
	cs := connect(t, newTestHub(t, ws))
	huge, _ := callText(t, cs, "grep", map[string]any{"pattern": "match me", "limit": 1000000000})
	capped, _ := callText(t, cs, "grep", map[string]any{"pattern": "match me", "limit": maxLimit})
	strip := regexp.MustCompile(`\.cchub/spill/\S+`)
	if strip.ReplaceAllString(huge, "") != strip.ReplaceAllString(capped, "") {
		t.Errorf("limit 1e9 and limit %d answer differently", maxLimit)
	}
	m := regexp.MustCompile(`saved to (\.cchub/spill/\S+?);`).FindStringSubmatch(huge)
	if m == nil {
		t.Fatalf("no spill file named:\n%s", huge[len(huge)-300:])
	}
	full, _ := os.ReadFile(filepath.Join(ws, m[1]))
	if n := strings.Count(string(full), "\tmatch me\n"); n != maxLimit {
		t.Errorf("the spill file holds %d matches, want the cap, %d", n, maxLimit)
	}
}
