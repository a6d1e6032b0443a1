package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The graph tool on the bundled Go workspace: who calls pricing.Cents,
// what Store.Add calls, how far a change to it reaches (the test among
// them), and an edit followed at the next question.
func TestMCPGraph(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "graph", map[string]any{"op": "callers", "name": "Cents"})
	if isErr || !strings.HasPrefix(text, "callers of Cents (pricing/pricing.go:24): 3 — 3 import\n") || !strings.Contains(text, "main.go:19:63\tmain [import]") {
		t.Fatalf("callers:\n%s", text)
	}
	text, isErr = callText(t, cs, "graph", map[string]any{"op": "blast", "name": "Store.Add"})
	if isErr || !strings.Contains(text, "distance 1 (3):") || !strings.Contains(text, "store/store_test.go") || !strings.Contains(text, "tests: TestAddTwice (store/store_test.go)") {
		t.Fatalf("blast:\n%s", text)
	}
	text, isErr = callText(t, cs, "graph", map[string]any{"op": "symbols", "name": "Store.*"})
	if isErr || !strings.Contains(text, "store/store.go:66-74\tmethod Store.Add") {
		t.Fatalf("symbols:\n%s", text)
	}
	// A new caller, written on disk, is in the next answer.
	p := filepath.Join(ws, "pricing", "extra.go")
	os.WriteFile(p, []byte("package pricing\n\nfunc Dollar() Money { return Cents(100) }\n"), 0o644)
	text, _ = callText(t, cs, "graph", map[string]any{"op": "callers", "name": "Cents"})
	if !strings.Contains(text, "pricing/extra.go:3:30\tDollar [exact]") {
		t.Errorf("the new caller:\n%s", text)
	}
	// An edit made through the hub is in the next answer too.
	callText(t, cs, "read", map[string]any{"path": "pricing/extra.go"})
	if text, isErr := callText(t, cs, "edit", map[string]any{"path": "pricing/extra.go", "old_string": "return Cents(100) }", "new_string": "return Cents(100) }\n\nfunc Euro() Money { return Cents(90) }"}); isErr {
		t.Fatalf("edit: %s", text)
	}
	text, _ = callText(t, cs, "graph", map[string]any{"op": "callers", "name": "Cents"})
	if !strings.Contains(text, "pricing/extra.go:5:28\tEuro [exact]") {
		t.Errorf("the caller added by an edit:\n%s", text)
	}
	if text, isErr := callText(t, cs, "graph", map[string]any{"op": "callers", "name": "NoSuchThing"}); !isErr || !strings.Contains(text, "no definition named") {
		t.Errorf("an unknown name:\n%s", text)
	}
}

// The graph tool's tests op: the tests a change to a definition can
// break, as the JSON of cchub blast --tests, with the command to run.
func TestMCPGraphTests(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "graph", map[string]any{"op": "tests", "name": "Store.Add"})
	if isErr || !strings.Contains(text, `"all": null`) || !strings.Contains(text, `"command": "go test ./store -run '^(TestAddTwice)$'"`) || !strings.Contains(text, `"suite": 1`) {
		t.Fatalf("tests:\n%s", text)
	}
	if text, isErr := callText(t, cs, "graph", map[string]any{"op": "tests"}); !isErr || !strings.Contains(text, "tests needs name") {
		t.Errorf("no name:\n%s", text)
	}
}

// manyCallers writes a Go module where 300 functions in 6 packages call
// a.Target (distance 1), 50 call one of them (distance 2), and 5 tests
// call one of those (distance 3).
func manyCallers(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(ws, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module many\n\ngo 1.22\n")
	write("a/a.go", "package a\n\nfunc Target() int { return 1 }\n")
	n := 0
	for p := 0; p < 6; p++ {
		for f := 0; f < 5; f++ {
			var b strings.Builder
			fmt.Fprintf(&b, "package p%d\n\nimport \"many/a\"\n\n", p)
			for i := 0; i < 10; i++ {
				fmt.Fprintf(&b, "func Caller%03d() int { return a.Target() }\n\n", n)
				n++
			}
			write(fmt.Sprintf("p%d/f%d.go", p, f), b.String())
		}
	}
	var up strings.Builder
	up.WriteString("package up\n\nimport \"many/p0\"\n\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&up, "func Up%03d() int { return p0.Caller%03d() }\n\n", i, i%10)
	}
	write("up/up.go", up.String())
	var tests strings.Builder
	tests.WriteString("package up\n\nimport \"testing\"\n\n")
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&tests, "func TestUp%d(t *testing.T) { Up%03d() }\n\n", i, i)
	}
	write("up/up_test.go", tests.String())
	return ws
}

// graphCall finds the graph call an answer names (graph op=... key=value)
// and returns its arguments.
func graphCall(t *testing.T, text string) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`graph((?: [a-z_]+=[^\s;,\]]+)+)`).FindAllStringSubmatch(text, -1)
	if m == nil {
		t.Fatalf("the answer names no graph call:\n%s", text)
	}
	args := map[string]any{}
	for _, kv := range strings.Fields(m[len(m)-1][1]) {
		k, v, _ := strings.Cut(kv, "=")
		if n, err := strconv.Atoi(v); err == nil {
			args[k] = n
		} else {
			args[k] = v
		}
	}
	return args
}

// A blast of 355 definitions answers within 8 KB: the totals (by
// distance, files, tests), counts by directory, the nearest first, and
// the call that lists the rest; following it page by page lists each
// definition once, nearest first. path lists one directory's.
func TestMCPGraphBlastManyCallers(t *testing.T) {
	ws := manyCallers(t)
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "graph", map[string]any{"op": "blast", "name": "Target"})
	if isErr {
		t.Fatal(text)
	}
	if len(text) > DefaultResultBytes || strings.Contains(text, ".cchub/spill") {
		t.Fatalf("the blast answer is %d bytes:\n%s", len(text), text)
	}
	first := strings.SplitN(text, "\n", 2)[0]
	if !strings.HasPrefix(first, "blast radius of Target: 355 definition(s) (300 at distance 1, 50 at distance 2, 5 at distance 3) in 32 files, 5 tests") {
		t.Errorf("totals:\n%s", first)
	}
	if !strings.Contains(text, "\nby directory: up 55, p0 50, p1 50, p2 50, p3 50, p4 50, p5 50\n") || !strings.Contains(text, "TestUp0 (up/up_test.go)") {
		t.Errorf("counts by directory and the tests:\n%s", text)
	}
	if !strings.Contains(text, ", 5 at distance 3): graph op=blast name=Target offset=") {
		t.Errorf("no call for the rest:\n%s", text[len(text)-400:])
	}
	entry := regexp.MustCompile(`(?m)^  (\S+):(\d+)\t(\S+) \[`)
	seen := map[string]bool{}
	dist := map[string]int{}
	var order []string
	pages := 0
	for {
		pages++
		for _, m := range entry.FindAllStringSubmatch(text, -1) {
			if seen[m[3]] {
				t.Fatalf("%s listed twice:\n%s", m[3], text)
			}
			seen[m[3]] = true
			order = append(order, m[3])
		}
		if !strings.Contains(text, "more") || pages > 20 {
			break
		}
		next := graphCall(t, text[strings.LastIndex(text, "[showing"):])
		text, isErr = callText(t, cs, "graph", next)
		if isErr || len(text) > DefaultResultBytes {
			t.Fatalf("graph %v: %d bytes\n%s", next, len(text), text)
		}
	}
	for _, name := range order {
		switch {
		case strings.HasPrefix(name, "Caller"):
			dist[name] = 1
		case strings.HasPrefix(name, "Up"):
			dist[name] = 2
		default:
			dist[name] = 3
		}
	}
	if len(seen) != 355 || pages < 3 {
		t.Fatalf("%d definitions listed in %d pages, want 355 in several", len(seen), pages)
	}
	for i := 1; i < len(order); i++ {
		if dist[order[i]] < dist[order[i-1]] {
			t.Fatalf("%s (distance %d) listed after %s (distance %d)", order[i], dist[order[i]], order[i-1], dist[order[i-1]])
		}
	}

	// callers: counted by file, then as many call sites as fit, then
	// the call for the rest, which lists from there.
	text, _ = callText(t, cs, "graph", map[string]any{"op": "callers", "name": "Target"})
	if len(text) > DefaultResultBytes || !strings.HasPrefix(text, "callers of Target (a/a.go:3): 300 — 300 import\nin 30 files: p0/f0.go 10, ") {
		t.Fatalf("callers, %d bytes:\n%s", len(text), text)
	}
	next := graphCall(t, text[strings.LastIndex(text, "[showing"):])
	shown := strings.Count(text, "\tCaller")
	if next["op"] != "callers" || next["offset"] != shown || !strings.Contains(text, fmt.Sprintf("[showing 1-%d of 300; %d more: ", shown, 300-shown)) {
		t.Errorf("callers: %d shown, the call for more %v:\n%s", shown, next, text[len(text)-300:])
	}
	text, _ = callText(t, cs, "graph", next)
	if !strings.Contains(text, fmt.Sprintf("\tCaller%03d [import]\n", shown)) || strings.Contains(text, fmt.Sprintf("\tCaller%03d [import]\n", shown-1)) {
		t.Errorf("callers from %d:\n%s", shown, text)
	}

	// path narrows the listing to one directory.
	text, isErr = callText(t, cs, "graph", map[string]any{"op": "blast", "name": "Target", "path": "up"})
	listed := entry.FindAllStringSubmatch(text, -1)
	if isErr || len(listed) != 55 || !strings.Contains(text, "[showing 1-55 of 55 in up (of 355 in all)]") {
		t.Fatalf("path=up lists %d:\n%s", len(listed), text)
	}
	// An offset past the end says so and names the call from the start.
	text, _ = callText(t, cs, "graph", map[string]any{"op": "blast", "name": "Target", "offset": 400})
	if !strings.Contains(text, "[nothing to show from offset 400: 355 entries; from the start: graph op=blast name=Target]") {
		t.Errorf("offset past the end:\n%s", text)
	}
	for _, m := range listed {
		if !strings.HasPrefix(m[1], "up/") {
			t.Errorf("path=up lists %s", m[1])
		}
	}
}
