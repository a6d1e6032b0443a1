package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/dapsession"
	"cchub/proc"
	"cchub/workspace/wstest"
)

func requireDlv(t *testing.T) { t.Helper(); wstest.RequireProgram(t, "dlv") }

// debugCall calls the debug tool with args, failing the test on an error
// answer.
func debugCall(t *testing.T, cs *mcp.ClientSession) func(args map[string]any) string {
	return func(args map[string]any) string {
		t.Helper()
		text, isErr := callText(t, cs, "debug", args)
		if isErr {
			t.Fatalf("debug %v: %s", args["op"], text)
		}
		return text
	}
}

// A debug session over MCP: launch to a breakpoint, inspect, evaluate,
// step, a second launch refused, terminate.
func TestMCPDebugSession(t *testing.T) {
	requireDlv(t)
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	call := debugCall(t, cs)
	text := call(map[string]any{"op": "launch", "breakpoints": []string{"main.go:20", "main.go:2"}})
	for _, w := range []string{"debugging ", "breakpoint main.go:20 set", "breakpoint main.go:2 ", "stopped (breakpoint) at main.go:20 in main.main", ">20\t\ts.Add(store.Item{SKU: \"pear\""} {
		if !strings.Contains(text, w) {
			t.Errorf("launch lacks %q:\n%s", w, text)
		}
	}
	text = call(map[string]any{"op": "inspect"})
	if !strings.Contains(text, ">0 main.main main.go:20") || !strings.Contains(text, "s *example.com/shop/store.Store") {
		t.Errorf("inspect:\n%s", text)
	}
	text = call(map[string]any{"op": "evaluate", "expression": "s.name"})
	if !strings.Contains(text, `"main street"`) {
		t.Errorf("evaluate:\n%s", text)
	}
	if text, isErr := callText(t, cs, "debug", map[string]any{"op": "evaluate", "expression": "nosuch + 1"}); !isErr || !strings.Contains(text, "nosuch") {
		t.Errorf("a bad expression:\n%s", text)
	}
	text = call(map[string]any{"op": "next"})
	if !strings.Contains(text, "stopped (step) at main.go:21") {
		t.Errorf("next:\n%s", text)
	}
	text, isErr := callText(t, cs, "debug", map[string]any{"op": "launch"})
	if !isErr || !strings.Contains(text, "a debug session is live in this conversation") || !strings.Contains(text, "stopped at main.go:21") || !strings.Contains(text, "terminate it first") {
		t.Errorf("a second launch:\n%s", text)
	}
	text = call(map[string]any{"op": "continue"})
	if !strings.Contains(text, "the program ended (exit code 0)") || !strings.Contains(text, "Stock report for main street") {
		t.Errorf("continue to the end:\n%s", text)
	}
	text = call(map[string]any{"op": "terminate"})
	if !strings.Contains(text, "debug session ended") {
		t.Errorf("terminate:\n%s", text)
	}
	if text, isErr := callText(t, cs, "debug", map[string]any{"op": "next"}); !isErr || !strings.Contains(text, "launch one first") {
		t.Errorf("an op without a session:\n%s", text)
	}
}

// The time limit ends a session by itself: a hung debuggee paused and
// inspected, then the limit runs out and no process of the session is
// left; the next call says what happened.
func TestMCPDebugTTLLeavesNothing(t *testing.T) {
	requireDlv(t)
	ws := copyWorkspace(t, "go")
	os.MkdirAll(filepath.Join(ws, "hang"), 0o755)
	os.WriteFile(filepath.Join(ws, "hang", "main.go"), []byte("package main\n\nimport \"time\"\n\nfunc main() {\n\tn := 0\n\tfor {\n\t\tn++\n\t\ttime.Sleep(time.Millisecond)\n\t}\n}\n"), 0o644)
	before := descendants(os.Getpid())
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "debug", map[string]any{"op": "launch", "program": "hang", "ttl_seconds": 15})
	if isErr || !strings.Contains(text, "ends by itself in 15s") {
		t.Fatalf("launch:\n%s", text)
	}
	if !strings.Contains(text, "still running") {
		// A launch waits for the first stop; a hung program never gives
		// one, so it must come back running.
		t.Fatalf("launch of a hung program:\n%s", text)
	}
	during := descendants(os.Getpid())
	if len(during) <= len(before) {
		t.Fatalf("no session processes: before %v, during %v", before, during)
	}
	text, isErr = callText(t, cs, "debug", map[string]any{"op": "pause"})
	if isErr || !strings.Contains(text, "stopped (pause)") {
		t.Fatalf("pause:\n%s", text)
	}
	text, _ = callText(t, cs, "debug", map[string]any{"op": "inspect", "frame": 0})
	if !strings.Contains(text, "stack:") {
		t.Errorf("inspect of the paused program:\n%s", text)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(descendants(os.Getpid())) > len(before) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if after := descendants(os.Getpid()); len(after) > len(before) {
		t.Fatalf("processes left after the time limit: %v (before %v)", after, before)
	}
	text, isErr = callText(t, cs, "debug", map[string]any{"op": "continue"})
	if !isErr || !strings.Contains(text, "its time limit (15s) ran out") {
		t.Errorf("the next call after the limit:\n%s", text)
	}
}

// descendants lists the live processes under pid (zombies aside).
func descendants(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		rest := s[strings.LastIndexByte(s, ')')+2:]
		f := strings.Fields(rest)
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[p] = pp
	}
	for p := range parent {
		for q := parent[p]; q != 0; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
			if _, ok := parent[q]; !ok {
				break
			}
		}
	}
	return out
}

// startHubIn starts `cchub mcp` on ws with the temporary directory tmp
// and connects to it; closing the session ends the process.
func startHubIn(t *testing.T, ws, tmp string) (*exec.Cmd, *mcp.ClientSession) {
	t.Helper()
	cmd := exec.Command(buildCchub(t), "mcp", "--root", ws)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cmd, cs
}

// startDebugHub starts `cchub mcp` on ws with its own temporary
// directory tmp and launches a debug session of a program that never
// ends; it returns the hub's command and the session's processes (the
// supervisor, dlv, the debuggee).
func startDebugHub(t *testing.T, ws, tmp string) (*exec.Cmd, []int) {
	t.Helper()
	os.MkdirAll(filepath.Join(ws, "hang"), 0o755)
	os.WriteFile(filepath.Join(ws, "hang", "main.go"), []byte("package main\n\nimport \"time\"\n\nfunc main() {\n\tfor {\n\t\ttime.Sleep(time.Millisecond)\n\t}\n}\n"), 0o644)
	cmd, cs := startHubIn(t, ws, tmp)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "debug", Arguments: map[string]any{"op": "launch", "program": "hang"}})
	if err != nil || res.IsError {
		t.Fatalf("launch: %v %+v", err, res)
	}
	session := descendants(cmd.Process.Pid)
	if len(session) < 3 { // the supervisor, dlv, the debuggee
		t.Fatalf("session processes: %v", session)
	}
	return cmd, session
}

// runDirs lists the run directories (proc.RunDir) in tmp, and the debug
// binaries built in them.
func runDirs(tmp string) (dirs, built []string) {
	dirs, _ = filepath.Glob(filepath.Join(tmp, "cchub-run-*"))
	built, _ = filepath.Glob(filepath.Join(tmp, "cchub-run-*", "debug-*"))
	return dirs, built
}

// awaitGone waits until every pid has ended, failing the test after 10 s.
func awaitGone(t *testing.T, pids []int, after string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
				t.Fatalf("process %d (%s) outlived %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " "), after)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// A hub killed with SIGKILL mid-session leaves nothing: the adapter dies
// with it, the watchdog kills the debuggee, and the supervisor removes
// the binary built for the session. The test sees only its own temporary
// directory, which holds another run's leftover on purpose.
func TestKilledHubLeavesNoDebugSession(t *testing.T) {
	requireDlv(t)
	tmp := t.TempDir()
	foreign := filepath.Join(tmp, "cchub-debug-1796614271169777405") // not this test's
	os.WriteFile(foreign, []byte("another run's binary"), 0o755)
	cmd, session := startDebugHub(t, copyWorkspace(t, "go"), tmp)
	_, built := runDirs(tmp)
	if len(built) != 1 {
		t.Fatalf("binaries built for the session in its run directory: %q", built)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, session, "the killed hub")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(built[0]); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s outlived the killed hub", built[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("another run's file was removed: %v", err)
	}
}

// When the hub and its debug supervisor are killed together (an OOM kill
// of the group, a container stop, kill -9 of every cchub), no process of
// theirs can remove the binary built for the session; the next cchub mcp
// sweeps the run directory of an owner that is gone, ends the processes
// started for it that still run, and keeps a live owner's and anything
// not its own.
func TestKilledHubAndSupervisorLeaveNothingForGood(t *testing.T) {
	requireDlv(t)
	tmp := t.TempDir()
	live, err := proc.MakeRunDir(tmp) // owned by this test process, which runs on
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(live, "debug-1"), []byte("a live session's binary"), 0o755)
	foreign := filepath.Join(tmp, "cchub-debug-1796614271169777405") // young: its session may run
	os.WriteFile(foreign, []byte("another run's binary"), 0o755)
	ws := copyWorkspace(t, "go")
	cmd, session := startDebugHub(t, ws, tmp)
	dirs, built := runDirs(tmp)
	if len(dirs) != 2 || len(built) != 2 {
		t.Fatalf("run directories %q with binaries %q; want the test's and the hub's", dirs, built)
	}
	var hubDir string
	for _, d := range dirs {
		if d != live {
			hubDir = d
		}
	}
	exe, _ := filepath.EvalSymlinks(buildCchub(t))
	cchubs := []int{cmd.Process.Pid}
	for _, pid := range session {
		if p, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe")); p == exe {
			cchubs = append(cchubs, pid)
		}
	}
	if len(cchubs) != 2 {
		t.Fatalf("cchub processes %v: want the hub and its supervisor", cchubs)
	}
	// Both stopped first, so that neither cleans up after the other.
	for _, sig := range []syscall.Signal{syscall.SIGSTOP, syscall.SIGKILL} {
		for _, pid := range cchubs {
			syscall.Kill(pid, sig)
		}
	}
	awaitGone(t, cchubs, "SIGKILL") // the client's transport reaps the hub
	if _, err := os.Stat(hubDir); err != nil {
		t.Fatalf("the killed session's run directory went by itself (%v): nothing is left to sweep", err)
	}

	// The next hub sweeps it, and only it, and ends what of the session
	// still ran (the debuggee, which dlv's death left running).
	_, cs := startHubIn(t, ws, tmp)
	if _, err := os.Stat(hubDir); err == nil {
		t.Errorf("%s outlived the next hub's start", hubDir)
	}
	awaitGone(t, session, "the killed hub and supervisor, and the next hub's start")
	for _, p := range []string{filepath.Join(live, "debug-1"), foreign} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the sweep removed what was not the killed hub's: %v", err)
		}
	}
	// And that hub, closed, leaves nothing of its own.
	if text, isErr := callText(t, cs, "grep", map[string]any{"pattern": "package"}); isErr {
		t.Fatalf("grep: %s", text)
	}
	if dirs, _ := runDirs(tmp); len(dirs) != 2 {
		t.Errorf("while the next hub watches files, run directories %q; want the test's and the hub's", dirs)
	}
	cs.Close()
	if dirs, _ := runDirs(tmp); len(dirs) != 1 || dirs[0] != live {
		t.Errorf("after the next hub ended, run directories %q; want only %s", dirs, live)
	}
}

// alive says pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(stat)
	return !strings.HasPrefix(s[strings.LastIndexByte(s, ')')+2:], "Z")
}

// One Go test is debugged by name; a breakpoint on a line without code
// says what became of it; a program that does not build answers with its
// errors.
func TestMCPDebugATestAndBadInput(t *testing.T) {
	requireDlv(t)
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "debug", map[string]any{"op": "launch", "program": "store", "test": "TestAddTwice", "breakpoints": []string{"store/store_test.go:10", "store/store_test.go:4"}})
	if isErr || !strings.Contains(text, "debugging test TestAddTwice in store") || !strings.Contains(text, "stopped (breakpoint) at store/store_test.go:10 in") {
		t.Fatalf("launch of a test:\n%s", text)
	}
	if !strings.Contains(text, "breakpoint store/store_test.go:4 rejected") && !strings.Contains(text, "breakpoint store/store_test.go:4 moved to store/store_test.go:") {
		t.Errorf("a breakpoint on a line without code:\n%s", text)
	}
	text, isErr = callText(t, cs, "debug", map[string]any{"op": "continue"})
	if isErr || !strings.Contains(text, "the program ended (exit code 0)") || !strings.Contains(text, "PASS") {
		t.Errorf("the test run to its end:\n%s", text)
	}
	callText(t, cs, "debug", map[string]any{"op": "terminate"})
	os.WriteFile(filepath.Join(ws, "pricing", "broken.go"), []byte("package pricing\n\nfunc broken() int { return \"x\" }\n"), 0o644)
	text, isErr = callText(t, cs, "debug", map[string]any{"op": "launch"})
	if !isErr || !strings.Contains(text, "launch failed") || !strings.Contains(text, "broken.go:3") {
		t.Errorf("a program that does not build:\n%s", text)
	}
	if text, isErr := callText(t, cs, "debug", map[string]any{"op": "launch", "breakpoints": []string{"main.go"}}); !isErr || !strings.Contains(text, "write it as path:line") {
		t.Errorf("a breakpoint without a line:\n%s", text)
	}
}

// A breakpoint given with its line's text: a stale line is refused,
// saying where the text is now, and nothing is launched; the right text
// is accepted and hit, each breakpoint echoed with its line's text; a
// function breakpoint stops where dlv resolved it; a logpoint prints
// without stopping; plain strings and aliases still work; a refused
// breakpoint leaves the session's breakpoints as they were.
func TestMCPDebugCheckedBreakpoints(t *testing.T) {
	requireDlv(t)
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	call := debugCall(t, cs)
	pear := `s.Add(store.Item{SKU: "pear", Name: "Pear", Price: pricing.Cents(60), Qty: 3})`
	// Line 19 holds the apple; the pear is on line 20.
	text, isErr := callText(t, cs, "debug", map[string]any{"op": "launch", "breakpoints": []any{map[string]any{"at": "main.go:19", "text": "  " + pear}}})
	if !isErr || !strings.Contains(text, "breakpoint main.go:19 refused: line 19 is s.Add(store.Item{SKU: \"apple\"") ||
		!strings.Contains(text, "the expected text is at main.go:20 now; use main.go:20") || !strings.Contains(text, "nothing was launched") {
		t.Fatalf("a stale line at launch:\n%s", text)
	}
	text, isErr = callText(t, cs, "debug", map[string]any{"op": "launch", "breakpoints": []any{map[string]any{"at": "main.go:19", "text": "fmt.Println(\"gone\")"}}})
	if !isErr || !strings.Contains(text, "the expected text is not in main.go") {
		t.Fatalf("a text not in the file:\n%s", text)
	}
	text = call(map[string]any{"op": "launch", "breakpoints": []any{
		map[string]any{"at": "main.go:20", "text": pear},
		map[string]any{"path": "main.go", "line": 21, "logMessage": "items so far: {len(s.items)}"},
		"store.(*Store).Remove",
	}})
	for _, w := range []string{
		"breakpoint main.go:20 set  " + pear,
		`logpoint main.go:21 "items so far: {len(s.items)}" set  s.Add(store.Item{SKU: "plum"`,
		"breakpoint store.(*Store).Remove set at store/store.go:77  func (s *Store) Remove(sku string) error {",
		"stopped (breakpoint) at main.go:20 in main.main",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("launch lacks %q:\n%s", w, text)
		}
	}
	text = call(map[string]any{"op": "continue"})
	if !strings.Contains(text, "stopped (function breakpoint) at store/store.go:77 in") || !strings.Contains(text, "Remove") ||
		!strings.Contains(text, "logpoints printed:\n> [Go 1]: items so far: 2\nstopped") {
		t.Errorf("continue to the function breakpoint, past the logpoint:\n%s", text)
	}
	text = call(map[string]any{"op": "output"})
	if !strings.Contains(text, "items so far: 2") {
		t.Errorf("the logpoint's output:\n%s", text)
	}
	// A stale entry beside a good one in the same file: the good one is
	// set, the stale one refused and the breakpoint at its line kept.
	text = call(map[string]any{"op": "breakpoints", "breakpoints": []any{
		map[string]any{"at": "main.go:20", "expect": "nothing like this line"},
		"main.go:22 if err != nil",
	}})
	for _, w := range []string{
		"breakpoint main.go:20 refused: line 20 is " + pear + "; the expected text is not in main.go",
		"breakpoint main.go:20 set  " + pear,
		"breakpoint main.go:22 if err != nil set  if err := s.Remove(\"kiwi\")",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("breakpoints lacks %q:\n%s", w, text)
		}
	}
	if strings.Contains(text, "logpoint main.go:21") {
		t.Errorf("main.go named: its other breakpoints go:\n%s", text)
	}
	text = call(map[string]any{"op": "breakpoints", "path": "store.(*Store).Remove"})
	if !strings.Contains(text, "breakpoints of store.(*Store).Remove cleared") || strings.Contains(text, "breakpoint store.(*Store).Remove") || !strings.Contains(text, "breakpoint main.go:20 set") {
		t.Errorf("a function's breakpoint cleared:\n%s", text)
	}
	if text, isErr := callText(t, cs, "debug", map[string]any{"op": "breakpoints", "path": "store.(*Store).Remove"}); !isErr || !strings.Contains(text, "no breakpoint on function") {
		t.Errorf("a function without a breakpoint cleared:\n%s", text)
	}
	text = call(map[string]any{"op": "continue"})
	if !strings.Contains(text, "the program ended (exit code 0)") || !strings.Contains(text, "items so far: 2") {
		t.Errorf("continue to the end:\n%s", text)
	}
	call(map[string]any{"op": "terminate"})
	for _, bad := range []struct {
		bp   any
		want string
	}{
		{map[string]any{"at": "main.go:20", "hits": 3}, `unknown key "hits"`},
		{map[string]any{"text": "x"}, "has no place"},
		{"main.go", "write it as path:line or a function name"},
		{map[string]any{"at": "store.New", "log": "x"}, "a logpoint goes on a line"},
	} {
		text, isErr := callText(t, cs, "debug", map[string]any{"op": "launch", "breakpoints": bad.bp})
		if !isErr || !strings.Contains(text, bad.want) {
			t.Errorf("breakpoint %v: want %q:\n%s", bad.bp, bad.want, text)
		}
	}
}

// The same for Python through debugpy (make test installs it): a stale
// line refused, a logpoint and a function breakpoint.
func TestMCPDebugPythonCheckedBreakpoints(t *testing.T) {
	_, err := dapsession.FindPython()
	wstest.RequirePeer(t, fmt.Sprintf("debugpy (make test installs Debian's python3-debugpy): %v", err), err == nil)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "hello.py"), []byte("def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n\nprint(f'total {total([1, 2, 3])}')\n"), 0o644)
	cs := connect(t, newTestHub(t, ws))
	text, isErr := callText(t, cs, "debug", map[string]any{"op": "launch", "program": "hello.py", "breakpoints": map[string]any{"at": "hello.py:3", "text": "s += i"}})
	if !isErr || !strings.Contains(text, "the expected text is at hello.py:4 now; use hello.py:4") {
		t.Fatalf("a stale line:\n%s", text)
	}
	text, isErr = callText(t, cs, "debug", map[string]any{"op": "launch", "program": "hello.py", "breakpoints": []any{
		map[string]any{"at": "hello.py:4", "text": "s += i", "log": "i is {i}"}, "total",
	}})
	if isErr || !strings.Contains(text, `logpoint hello.py:4 "i is {i}" set  s += i`) || !strings.Contains(text, "breakpoint total set") ||
		!strings.Contains(text, "stopped (function breakpoint) at hello.py:1 in total") {
		t.Fatalf("launch:\n%s", text)
	}
	text, isErr = callText(t, cs, "debug", map[string]any{"op": "continue"})
	if isErr || !strings.Contains(text, "i is 3") || !strings.Contains(text, "total 6") {
		t.Errorf("continue to the end:\n%s", text)
	}
}

// Breakpoints decode from the forms models write: strings, objects with
// other tools' names for the parts, a path and a line apart, one entry
// alone; the schema offers the object form, and what does not decode
// says how to write it.
func TestDebugBreakpointForms(t *testing.T) {
	var in debugIn
	args := `{"op": "launch", "breakpoints": [
		"main.go:20 if i > 3",
		"store.New",
		{"at": "main.go:21", "text": "x++", "if": "x > 1", "log": "x is {x}"},
		{"file": "main.go", "line": 22, "line_text": "y++", "condition": "y > 1", "logMessage": "y is {y}"},
		{"function": "Store.Add", "when": "n > 2"},
		{"path": "main.go", "line": "23", "expect": "z++", "message": "z"}
	]}`
	fields := fieldsOf(reflect.TypeFor[debugIn](), &jsonschema.Schema{})
	if err := decodeArgs("debug", json.RawMessage(args), fields, &in); err != nil {
		t.Fatal(err)
	}
	want := []dapsession.BreakpointSpec{
		{At: "main.go:20 if i > 3"},
		{At: "store.New"},
		{At: "main.go:21", Text: "x++", If: "x > 1", Log: "x is {x}"},
		{At: "main.go:22", Text: "y++", If: "y > 1", Log: "y is {y}"},
		{At: "Store.Add", If: "n > 2"},
		{At: "main.go:23", Text: "z++", Log: "z"},
	}
	if got := in.request().Breakpoints; !reflect.DeepEqual(got, want) {
		t.Errorf("decoded:\n%+v\nwant\n%+v", got, want)
	}
	for _, one := range []string{`"main.go:20"`, `{"at": "main.go:20"}`} {
		in = debugIn{}
		if err := decodeArgs("debug", json.RawMessage(`{"op": "launch", "breakpoints": `+one+`}`), fields, &in); err != nil || len(in.Breakpoints) != 1 || in.Breakpoints[0].At != "main.go:20" {
			t.Errorf("one entry alone %s: %+v %v", one, in.Breakpoints, err)
		}
	}
	for bad, want := range map[string]string{
		`[{"at": "main.go:20", "hits": 3}]`:   `unknown key "hits"`,
		`[{"text": "x++"}]`:                   "has no place",
		`[{"at": "main.go:20", "text": 3}]`:   `"text" must be a string`,
		`[{"at": "a.go:1", "location": "b"}]`: "gives at twice",
		`[7]`:                                 "neither a string nor an object",
	} {
		err := decodeArgs("debug", json.RawMessage(`{"op": "launch", "breakpoints": `+bad+`}`), fields, &debugIn{})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `{"at": "path:line" or "Function"`) {
			t.Errorf("%s: want %q, got %v", bad, want, err)
		}
	}
	schema, err := jsonschema.For[debugIn](nil)
	if err != nil {
		t.Fatal(err)
	}
	items := schema.Properties["breakpoints"].Items
	if items == nil || items.Type != "object" || len(items.Properties) != 4 || len(items.Required) != 1 || items.Required[0] != "at" {
		t.Errorf("the schema of a breakpoint: %+v", items)
	}
	for name, p := range items.Properties {
		if len(p.Description) > 60 {
			t.Errorf("breakpoint's %s: description over 60 characters: %q", name, p.Description)
		}
	}
}
