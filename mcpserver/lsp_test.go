package mcpserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/hub"
	"cchub/workspace/wstest"
)

func requireGopls(t *testing.T) { t.Helper(); wstest.RequireProgram(t, "gopls") }

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
	// workspace_symbols takes the name in symbol, as every other op does
	// (query, which the schema leaves out, still works).
	for _, field := range []string{"symbol", "query"} {
		text, isErr = callText(t, cs, "lsp", map[string]any{"op": "workspace_symbols", "path": "main.go", field: "Cents"})
		if isErr || !strings.Contains(text, "pricing/pricing.go:24") {
			t.Fatalf("workspace_symbols with %s=Cents:\n%s", field, text)
		}
	}
	text, isErr = callText(t, cs, "lsp", map[string]any{"op": "rename", "path": "pricing/pricing.go", "symbol": "Cents", "new_name": "FromCents"})
	if isErr || !strings.HasPrefix(text, "staged rename ") || !strings.Contains(text, "in 2 files; nothing is written yet.") || !strings.Contains(text, "+func FromCents(n int64) Money") {
		t.Fatalf("rename:\n%s", text)
	}
	id := strings.Fields(text)[2]
	id = strings.TrimSuffix(id, ":")
	// Under the default policy the agent cannot apply it: it is told who can.
	text, isErr = callText(t, cs, "resolve", map[string]any{"action": "accept", "id": id})
	if !isErr || !strings.Contains(text, "cchub review "+id) {
		t.Fatalf("accept under the human policy:\n%s", text)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "main.go")); strings.Contains(string(data), "FromCents") {
		t.Fatal("the rename was written before approval")
	}
	// A person applies it (cchub apply ID): both files change.
	h2, err := hub.Open(ws, hub.Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h2.Apply(context.Background(), id, hub.NewRun()); err != nil {
		t.Fatal(err)
	}
	h2.Close()
	for _, f := range []string{"main.go", "pricing/pricing.go"} {
		if data, _ := os.ReadFile(filepath.Join(ws, f)); !strings.Contains(string(data), "FromCents(") {
			t.Errorf("%s not renamed:\n%s", f, data)
		}
	}
	text, isErr = callText(t, cs, "lsp", map[string]any{"op": "hover", "path": "pricing/pricing.go"})
	if !isErr || !strings.Contains(text, "needs a place: line and column (1-based), or symbol") {
		t.Fatalf("hover without a place:\n%s", text)
	}
	text, isErr = callText(t, cs, "diagnostics", map[string]any{"paths": []string{"main.go", "pricing/pricing.go"}})
	if isErr || text != "no diagnostics in the 2 files checked\n" {
		t.Fatalf("diagnostics:\n%s", text)
	}
	text, isErr = callText(t, cs, "diagnostics", map[string]any{"paths": []string{"main.go"}, "severity": "errors"})
	if !isErr || !strings.Contains(text, "use error, warning, info or hint") {
		t.Errorf("a wrong severity:\n%s", text)
	}
	text, isErr = callText(t, cs, "diagnostics", map[string]any{"paths": []string{"main.go"}, "severity": "warning", "new_only": true})
	if isErr || text != "no new diagnostics of severity warning or worse in the 1 file checked\n" {
		t.Errorf("new_only, severity warning:\n%s", text)
	}
}

// A hub killed outright (SIGKILL: no Close, no shutdown) leaves no
// language server behind. (gopls also ends when its stdin closes; the
// kernel's parent-death signal is what ends a server that does not.)
func TestKilledHubLeavesNoServer(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	bin := buildCchub(t)
	ctx := context.Background()
	cmd := exec.Command(bin, "mcp", "--root", ws)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "diagnostics", Arguments: map[string]any{"paths": []string{"main.go"}}})
	if err != nil || res.IsError {
		t.Fatalf("diagnostics: %v %+v", err, res)
	}
	children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
	var pids []int
	for _, f := range strings.Fields(string(children)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	// The server may have been started from another thread of the hub.
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", cmd.Process.Pid))
	for _, task := range tasks {
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", cmd.Process.Pid, task.Name()))
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil && !slices.Contains(pids, pid) {
				pids = append(pids, pid)
			}
		}
	}
	if len(pids) == 0 {
		t.Fatalf("no server process under the hub (%v)", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil {
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(comm), ") Z ") {
				break // a zombie: dead, waiting for init to reap it
			}
			if time.Now().After(deadline) {
				t.Fatalf("process %d outlived the killed hub", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// lspCall finds the first `lsp key=value ...` call an answer teaches
// that has key want, as arguments (line and column as numbers).
func lspCall(t *testing.T, text, want string) map[string]any {
	t.Helper()
	for _, m := range regexp.MustCompile(`lsp((?: [a-z_]+=[^\s;,]+)+)`).FindAllStringSubmatch(text, -1) {
		args := map[string]any{}
		for _, kv := range strings.Fields(m[1]) {
			k, v, _ := strings.Cut(kv, "=")
			v = strings.TrimRight(v, ".)")
			if n, err := strconv.Atoi(v); err == nil && (k == "line" || k == "column") {
				args[k] = n
			} else {
				args[k] = v
			}
		}
		if _, ok := args[want]; ok {
			return args
		}
	}
	t.Fatalf("the answer names no lsp call with %s=:\n%s", want, text)
	return nil
}

// A line and column taken from a read before the shell moved the code:
// the answer names where the symbol is now and calls that then answer,
// instead of the server's bare "no identifier found".
func TestMCPLSPStalePlaceTeachesTheCall(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	if _, isErr := callText(t, cs, "read", map[string]any{"path": "pricing/pricing.go"}); isErr {
		t.Fatal("read failed")
	}
	p := filepath.Join(ws, "pricing", "pricing.go")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(string(data), "import \"fmt\"\n", "import \"fmt\"\n\n// Added by the shell.\n// Two lines.\n", 1)
	if err := os.WriteFile(p, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	text, isErr := callText(t, cs, "lsp", map[string]any{"op": "references", "path": "pricing/pricing.go", "line": 24, "column": 6})
	if !isErr || !strings.Contains(text, "`Cents`, now at pricing/pricing.go:27:6") {
		t.Fatalf("stale place:\n%s", text)
	}
	for _, key := range []string{"symbol", "line"} {
		args := lspCall(t, text, key)
		got, isErr := callText(t, cs, "lsp", args)
		if isErr || !strings.HasPrefix(got, "references of pricing/pricing.go:27:6: 4\n") || !strings.Contains(got, "main.go:19:") {
			t.Errorf("the call taught (%v) answers:\n%s", args, got)
		}
	}
}
