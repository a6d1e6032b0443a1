package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPBoundDefaultAnswersFit8KB: without a limit, grep and glob answer
// within 8 KB, cut at whole lines (no spill file), with the counts and the
// call that shows more; that call, with its explicit limit, gets the whole
// answer, up to the wide bound.
func TestMCPBoundDefaultAnswersFit8KB(t *testing.T) {
	ws := copyWorkspace(t, "go")
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "needle %03d %s\n", i, strings.Repeat("hay ", 22))
	}
	if err := os.WriteFile(filepath.Join(ws, "hay.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ws, "gen", "a_rather_long_directory_name_made_for_this_test")
	os.MkdirAll(dir, 0o755)
	for i := 1; i <= 150; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("a_file_with_a_long_name_that_fills_the_answer_%03d.txt", i)), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, newTestHub(t, ws))

	for _, c := range []struct {
		tool  string
		args  map[string]any
		unit  string // what a line of the answer lists
		total int
	}{
		{"grep", map[string]any{"pattern": "needle"}, "\tneedle ", 300},
		{"glob", map[string]any{"pattern": "a_file_with_*.txt"}, "a_file_with_a_long_name", 150},
	} {
		text, isErr := callText(t, cs, c.tool, c.args)
		if isErr {
			t.Fatalf("%s %v: %s", c.tool, c.args, text)
		}
		shown := strings.Count(text, c.unit)
		if len(text) > DefaultResultBytes || strings.Contains(text, ".cchub/spill") || shown == 0 || shown >= 100 {
			t.Fatalf("%s %v: %d bytes, %d shown, spilled %v:\n%s", c.tool, c.args, len(text), shown, strings.Contains(text, ".cchub/spill"), text)
		}
		if want := fmt.Sprintf("[showing %d of %d ", shown, c.total); !strings.Contains(text, want) {
			t.Errorf("%s: the answer does not count what it shows (%q):\n%s", c.tool, want, text[len(text)-400:])
		}
		more := parseCall(t, text[strings.LastIndex(text, "\n["):], c.tool)
		if more["limit"] != c.total {
			t.Errorf("%s: the call for more is %v, want limit=%d", c.tool, more, c.total)
		}
		all, isErr := callText(t, cs, c.tool, more)
		if n := strings.Count(all, c.unit); isErr || n != c.total || len(all) <= DefaultResultBytes || len(all) > MaxResultBytes || strings.Contains(all, ".cchub/spill") {
			t.Errorf("%s %v: %d of %d shown in %d bytes:\n%.500s", c.tool, more, n, c.total, len(all), all)
		}
	}

	// search: as many whole matches as fit, the counts, and the limit
	// that shows them all.
	var src strings.Builder
	src.WriteString("package gen\n\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&src, "func f%03d() int { return %d + len(\"a string long enough to fill the answer\") }\n\n", i, i)
	}
	os.WriteFile(filepath.Join(ws, "gen", "gen.go"), []byte(src.String()), 0o644)
	args := map[string]any{"pattern": "return $X + len($Y)", "lang": "go", "paths": "gen"}
	text, isErr := callText(t, cs, "search", args)
	shown := strings.Count(text, "() int { return ")
	if isErr || len(text) > DefaultResultBytes || shown == 0 || shown >= 50 || !strings.Contains(text, fmt.Sprintf("[showing %d of 200 matches", shown)) ||
		!strings.Contains(text, "the same search with limit=200") {
		t.Fatalf("search: %d bytes, %d shown:\n%s", len(text), shown, text[max(0, len(text)-400):])
	}
	args["limit"] = 200
	text, isErr = callText(t, cs, "search", args)
	if n := strings.Count(text, "() int { return "); isErr || n != 200 || len(text) > MaxResultBytes || strings.Contains(text, ".cchub/spill") {
		t.Errorf("search limit=200: %d shown in %d bytes", n, len(text))
	}

	// An explicit limit past the wide bound is cut by it, into a spill
	// file, never past 50 KB.
	big := strings.Repeat(strings.Repeat("needle in a long line ", 10)+"\n", 1000)
	os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big), 0o644)
	text, _ = callText(t, cs, "grep", map[string]any{"pattern": "needle", "path": "big.txt", "limit": 1000})
	if len(text) > MaxResultBytes || len(text) < DefaultResultBytes*4 || !strings.Contains(text, "read path=.cchub/spill/") {
		t.Fatalf("grep limit=1000 on 220 KB: %d bytes:\n%s", len(text), text[max(0, len(text)-400):])
	}
	// The read it names continues at the first line not shown.
	next := parseCall(t, text[strings.LastIndex(text, "[output cut"):], "read")
	rest, isErr := callText(t, cs, "read", next)
	lastShown := strings.Split(strings.TrimSpace(text[:strings.LastIndex(text, "[output cut")]), "\n")
	off, _ := next["offset"].(int)
	if isErr || off != len(lastShown)+1 || !strings.Contains(rest, "\n"+itoa(off)+"\t") {
		t.Errorf("the read %v after %d lines shown:\n%.300s", next, len(lastShown), rest)
	}
}
