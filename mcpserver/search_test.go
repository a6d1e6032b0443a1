package mcpserver

import (
	"strings"
	"testing"
)

func TestMCPSearchUsesTheSharedParseCache(t *testing.T) {
	h := newTestHub(t, copyWorkspace(t, "go"))
	cs := connect(t, h)
	args := map[string]any{"pattern": "if $X != nil { return $X }", "lang": "go"}
	first, isErr := callText(t, cs, "search", args)
	if isErr {
		t.Fatal(first)
	}
	if !strings.HasPrefix(first, "Found 1 match in 1 file") || !strings.Contains(first, "store/persist.go:12:2  $X = err") {
		t.Fatalf("search result:\n%s", first)
	}
	before := h.Parses.Stats()
	second, _ := callText(t, cs, "search", args)
	after := h.Parses.Stats()
	if second != first {
		t.Fatalf("the second identical search differs:\n%s", second)
	}
	if after.Misses != before.Misses || after.Hits <= before.Hits {
		t.Fatalf("second search parsed again: before %+v, after %+v", before, after)
	}
}

func TestMCPSearchBadPatternTeaches(t *testing.T) {
	cs := connect(t, newTestHub(t, copyWorkspace(t, "go")))
	text, isErr := callText(t, cs, "search", map[string]any{"pattern": "if $X != nil {", "lang": "go"})
	if !isErr || !strings.Contains(text, "expression") || !strings.Contains(text, "statement") {
		t.Fatalf("unparsable pattern: %s", text)
	}
	text, isErr = callText(t, cs, "search", map[string]any{"pattern": "$A.Nothing()", "lang": "go"})
	if isErr || !strings.HasPrefix(text, "No matches for `$A.Nothing()`") {
		t.Fatalf("no match must be an answer, not an error or an empty text: %q", text)
	}
}
