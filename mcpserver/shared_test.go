package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/workspace/wstest"
)

// sharing is a test's own shared-hub directory and the environment that
// makes `cchub mcp` share a hub there (the tests' default is in-process:
// wstest.PrivateConfig sets CCHUB_NO_SHARE).
type sharing struct {
	t   *testing.T
	bin string
	dir string
	env []string
}

func newSharing(t *testing.T, bin, idle string) *sharing {
	t.Helper()
	// Not t.TempDir: a long test name would make a socket path longer
	// than a unix socket's; nor a long $TMPDIR (hub-<16 hex>.sock must
	// fit in about 100 bytes).
	dir, err := os.MkdirTemp("", "hub")
	if err == nil && len(dir) > 70 {
		os.Remove(dir)
		dir, err = os.MkdirTemp("/tmp", "hub")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CCHUB_NO_SHARE=") && !strings.HasPrefix(kv, "CCHUB_HUB_") {
			env = append(env, kv)
		}
	}
	env = append(env, "CCHUB_HUB_DIR="+dir, "CCHUB_HUB_IDLE="+idle)
	s := &sharing{t: t, bin: bin, dir: dir, env: env}
	t.Cleanup(s.stopHubs)
	return s
}

// hubStatus is what `cchub status --json` says of one hub.
type hubStatus struct {
	PID        int    `json:"pid"`
	ID         string `json:"id"`
	Sessions   int    `json:"sessions"`
	Yours      bool   `json:"yours"`
	Workspaces []struct {
		Root     string `json:"root"`
		Sessions int    `json:"sessions"`
		Commands int    `json:"commands"`
		Servers  []struct {
			Name     string `json:"name"`
			PID      int    `json:"pid"`
			RSSBytes int64  `json:"rss_bytes"`
		} `json:"servers"`
	} `json:"workspaces"`
}

func (s *sharing) status(bin string) []hubStatus {
	s.t.Helper()
	cmd := exec.Command(bin, "status", "--json")
	cmd.Env = s.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		s.t.Fatalf("cchub status: %v\n%s%s", err, out, stderr.String())
	}
	var st []hubStatus
	if err := json.Unmarshal(out, &st); err != nil {
		s.t.Fatalf("cchub status --json: %v\n%s", err, out)
	}
	return st
}

// stopHubs ends the hubs the test started and waits until they are gone.
func (s *sharing) stopHubs() {
	os.Chmod(s.dir, 0o700) // a test may have opened it
	for _, h := range s.status(s.bin) {
		syscall.Kill(h.PID, syscall.SIGTERM)
		for deadline := time.Now().Add(15 * time.Second); syscall.Kill(h.PID, 0) == nil && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// logs is what the hubs' logs in s's directory say.
func (s *sharing) logs() string {
	var b strings.Builder
	names, _ := filepath.Glob(filepath.Join(s.dir, "*.log"))
	for _, name := range names {
		data, _ := os.ReadFile(name)
		b.WriteString("== " + filepath.Base(name) + "\n" + string(data))
	}
	return b.String()
}

// connect opens an MCP session with `bin mcp` on root in s's environment;
// stderr collects what it says there.
func (s *sharing) connect(bin, root string, stderr *strings.Builder, args ...string) *mcp.ClientSession {
	s.t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp", "--root", root, "--diagnostics-timeout", "10s"}, args...)...)
	cmd.Env = s.env
	if stderr != nil {
		cmd.Stderr = stderr
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "shared-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		s.t.Fatalf("connect: %v", err)
	}
	return cs
}

// call calls a tool and returns its text, failing the test on a protocol
// error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

const (
	sharedCallee = "package m\n\nfunc F(x int) int { return x }\n"
	sharedCaller = "package m\n\nfunc G() int { return F(1) }\n"
)

func sharedModule(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module m\n\ngo 1.22\n", "a.go": sharedCallee, "b.go": sharedCaller} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	return ws
}

// Sessions on one workspace, from separate `cchub mcp` processes, share
// one hub and one gopls; a change one makes is told to the other as
// another session's; a hub killed under them is started again and the
// sessions go on; with no session for its idle time the hub exits.
func TestSessionsShareOneHub(t *testing.T) {
	requireGopls(t)
	bin := buildCchub(t)
	s := newSharing(t, bin, "3s")
	ws, other := sharedModule(t), sharedModule(t)

	var aErr, bErr strings.Builder
	a := s.connect(bin, ws, &aErr)
	b := s.connect(bin, ws, &bErr)
	c := s.connect(bin, other, nil)
	if text := call(t, a, "edit", map[string]any{"path": "b.go", "old_string": "func G()", "new_string": "// G calls F.\nfunc G()"}); !strings.Contains(text, "Edited b.go") {
		t.Fatalf("edit: %s", text)
	}
	call(t, b, "diagnostics", map[string]any{"paths": []string{"a.go"}})
	call(t, c, "read", map[string]any{"path": "a.go"})

	st := s.status(bin)
	if len(st) != 1 || !st[0].Yours || st[0].Sessions != 3 || len(st[0].Workspaces) != 2 {
		t.Fatalf("one hub serving 3 sessions on 2 workspaces, got %+v", st)
	}
	for _, w := range st[0].Workspaces {
		if w.Root == ws && (w.Sessions != 2 || len(w.Servers) != 1 || w.Servers[0].Name != "gopls@") {
			t.Errorf("workspace %s: %d sessions, servers %+v; want 2 sessions sharing one gopls", w.Root, w.Sessions, w.Servers)
		}
	}

	// A one-shot grep on a workspace the hub serves is answered there,
	// as it is on its own.
	grep := func(env []string) (string, int) {
		cmd := exec.Command(bin, "grep", "--root", ws, "func [FG]")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	shared, code := grep(s.env)
	alone, code2 := grep(append(s.env, "CCHUB_NO_SHARE=1"))
	if shared != alone || code != code2 || !strings.Contains(shared, "Found 2 matches") {
		t.Fatalf("cchub grep through the hub (exit %d):\n%s\non its own (exit %d):\n%s", code, shared, code2, alone)
	}
	if _, code := grep(append(s.env[:len(s.env):len(s.env)], "X=1")); code != 0 {
		t.Fatalf("grep exit %d", code)
	}
	for _, w := range s.status(bin)[0].Workspaces {
		if w.Root == ws && w.Commands != 2 {
			t.Errorf("the hub answered %d one-shot commands on %s, want 2", w.Commands, ws)
		}
	}

	// a gives F a second parameter: b.go's call breaks. a is told as
	// its own change; b, as another session's, with its next answer.
	text := call(t, a, "edit", map[string]any{"path": "a.go", "old_string": "func F(x int) int { return x }", "new_string": "func F(x, y int) int { return x + y }"})
	if !strings.Contains(text, "new error in b.go") {
		t.Fatalf("the session that made the change is not told what it caused:\n%s", text)
	}
	var news string
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(news, "b.go") && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		news = call(t, b, "read", map[string]any{"path": "go.mod"})
	}
	if !strings.Contains(news, "changes to a.go made by another cchub session") || !strings.Contains(news, "1 new error in b.go") {
		t.Fatalf("the other session is not told the change as another session's:\n%s", news)
	}
	// cchub diag through the hub answers from its warm gopls, as diag
	// alone does from its own.
	diag := func(env []string) (string, int) {
		cmd := exec.Command(bin, "diag", "--root", ws)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	viaHub, dcode := diag(s.env)
	alone, dcode2 := diag(append(s.env, "CCHUB_NO_SHARE=1"))
	if dcode != 1 || dcode2 != 1 || viaHub != alone || !strings.Contains(viaHub, "b.go") {
		t.Errorf("cchub diag through the hub (exit %d):\n%s\non its own (exit %d):\n%s", dcode, viaHub, dcode2, alone)
	}
	if text := call(t, c, "read", map[string]any{"path": "go.mod"}); strings.Contains(text, "another cchub session") {
		t.Fatalf("a session on another workspace is told of this one's change:\n%s", text)
	}

	// The hub is killed: the next calls start it again, and the sessions
	// go on (a call in flight, none here, would be asked to call again).
	old := st[0].PID
	syscall.Kill(old, syscall.SIGKILL)
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(old, 0) == nil && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	for i, cs := range []*mcp.ClientSession{a, b} {
		text := ""
		for range 3 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "b.go"}})
			cancel()
			if err != nil {
				if strings.Contains(err.Error(), "call again") {
					continue
				}
				t.Fatalf("after the hub was killed, session %c: %v\nits stderr: %s\nthe hubs' logs:\n%s", 'a'+i, err, []*strings.Builder{&aErr, &bErr}[i], s.logs())
			}
			text = res.Content[0].(*mcp.TextContent).Text
			break
		}
		if !strings.Contains(text, "func G() int") {
			t.Fatalf("after the hub was killed the session did not go on: %q", text)
		}
	}
	st = s.status(bin)
	if len(st) != 1 || st[0].PID == old || st[0].Sessions != 3 {
		t.Fatalf("after the kill: want one new hub with the 3 sessions, got %+v (old pid %d)", st, old)
	}

	// Every session ends: the hub exits after its idle time (3s here).
	a.Close()
	b.Close()
	c.Close()
	pid := st[0].PID
	for deadline := time.Now().Add(30 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the hub (pid %d) did not exit 30s after its last session ended (idle limit 3s)", pid)
		}
	}
	// Its socket and its log go with it (the killed hub's log was the
	// same file: the hub's id is the same); the empty start lock stays.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		left, _ := filepath.Glob(filepath.Join(s.dir, "hub-*"))
		if len(left) == 1 && strings.HasSuffix(left[0], ".lock") {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the hub left files behind: %v", left)
			break
		}
	}
}

// --no-share keeps the session in its own process; a socket directory
// that is not private refuses sharing, and the session is served in its
// own process with a note; a cchub of another build gets a hub of its
// own.
func TestSharingRefusedOrOff(t *testing.T) {
	bin := buildCchub(t)
	ws := sharedModule(t)

	s := newSharing(t, bin, "1m")
	cs := s.connect(bin, ws, nil, "--no-share")
	if text := call(t, cs, "read", map[string]any{"path": "a.go"}); !strings.Contains(text, "func F") {
		t.Fatalf("read: %s", text)
	}
	cs.Close()
	if st := s.status(bin); len(st) != 0 {
		t.Fatalf("--no-share started a hub: %+v", st)
	}

	open := newSharing(t, bin, "1m")
	if err := os.Chmod(open.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cs = open.connect(bin, ws, &stderr)
	if text := call(t, cs, "read", map[string]any{"path": "a.go"}); !strings.Contains(text, "func F") {
		t.Fatalf("read: %s", text)
	}
	cs.Close()
	if !strings.Contains(stderr.String(), "serving this session in its own process") || !strings.Contains(stderr.String(), "not 0700") {
		t.Errorf("no note of the refused sharing on stderr: %q", stderr.String())
	}
	if left, _ := filepath.Glob(filepath.Join(open.dir, "*.sock")); len(left) != 0 {
		t.Errorf("a hub listened in a directory others may enter: %v", left)
	}

	// A directory whose socket path would be too long: said at once.
	long := newSharing(t, bin, "1m")
	deep := filepath.Join(long.dir, strings.Repeat("d", 60), strings.Repeat("e", 60))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	long.env = append(long.env, "CCHUB_HUB_DIR="+deep)
	stderr.Reset()
	began := time.Now()
	cs = long.connect(bin, ws, &stderr)
	if text := call(t, cs, "read", map[string]any{"path": "a.go"}); !strings.Contains(text, "func F") {
		t.Fatalf("read: %s", text)
	}
	cs.Close()
	if !strings.Contains(stderr.String(), "serving this session in its own process") || !strings.Contains(stderr.String(), "set CCHUB_HUB_DIR to a shorter directory") {
		t.Errorf("no note of the socket path too long on stderr: %q", stderr.String())
	}
	if d := time.Since(began); d > 15*time.Second {
		t.Errorf("the session waited %v for a hub that cannot listen", d.Round(time.Second))
	}

	// Another build: the same binary with bytes appended (it still runs).
	s2 := newSharing(t, bin, "1m")
	other := filepath.Join(t.TempDir(), "cchub-other")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, append(data, []byte("another build")...), 0o755); err != nil {
		t.Fatal(err)
	}
	c1, c2 := s2.connect(bin, ws, nil), s2.connect(other, ws, nil)
	call(t, c1, "read", map[string]any{"path": "a.go"})
	call(t, c2, "read", map[string]any{"path": "a.go"})
	st := s2.status(bin)
	if len(st) != 2 || st[0].ID == st[1].ID {
		t.Fatalf("two builds: want two hubs, got %+v", st)
	}
	yours := 0
	for _, h := range st {
		if h.Yours {
			yours++
		}
		if h.Sessions != 1 {
			t.Errorf("hub %s: %d sessions, want 1", h.ID, h.Sessions)
		}
	}
	if yours != 1 {
		t.Errorf("%d hubs marked as this build's, want 1: %+v", yours, st)
	}
	c1.Close()
	c2.Close()
}

// A front stopped by a signal (its client still holding stdin open)
// exits promptly, as an in-process session does; the hub goes on for the
// other sessions.
func TestSharedFrontEndsOnSignal(t *testing.T) {
	bin := buildCchub(t)
	s := newSharing(t, bin, "1m")
	ws := sharedModule(t)
	other := s.connect(bin, ws, nil)
	defer other.Close()
	cmd := exec.Command(bin, "mcp", "--root", ws)
	cmd.Env = s.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize through the shared hub: %q %v", line, err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("the front did not exit within 5s of SIGTERM")
	}
	if text := call(t, other, "read", map[string]any{"path": "a.go"}); !strings.Contains(text, "func F") {
		t.Fatalf("the other session after one front ended: %s", text)
	}
}

// Sessions on two git worktrees of one repository share the hub's one
// gopls, each worktree a workspace folder of its own: each session's
// edits are told to it alone, as they are in a server of its own.
func TestWorktreesShareTheHubsGopls(t *testing.T) {
	requireGopls(t)
	bin := buildCchub(t)
	s := newSharing(t, bin, "3s")
	repo, wts := wstest.GitWorktrees(t, map[string]string{"go.mod": "module m\n\ngo 1.22\n", "a.go": sharedCallee, "b.go": sharedCaller}, "wt")
	var aErr, wErr strings.Builder
	a := s.connect(bin, repo, &aErr)
	w := s.connect(bin, wts[0], &wErr)
	breakF := map[string]any{"path": "a.go", "old_string": "func F(x int) int { return x }", "new_string": "func F(x, y int) int { return x + y }"}
	if text := call(t, a, "edit", breakF); !strings.Contains(text, "new error in b.go") {
		t.Fatalf("the repository's session is not told what its change caused:\n%s", text)
	}
	text := call(t, w, "edit", map[string]any{"path": "b.go", "old_string": "func G()", "new_string": "// G calls F.\nfunc G()"})
	if !strings.Contains(text, "Edited b.go") || strings.Contains(text, "error") || strings.Contains(text, "another cchub session") {
		t.Fatalf("the worktree's session is told of the repository's change:\n%s", text)
	}
	st := s.status(bin)
	if len(st) != 1 || len(st[0].Workspaces) != 2 {
		t.Fatalf("one hub serving 2 workspaces, got %+v\nthe sessions' stderr:\n%s\n%s\nthe hubs' logs:\n%s", st, &aErr, &wErr, s.logs())
	}
	var pids []int
	for _, ws := range st[0].Workspaces {
		for _, srv := range ws.Servers {
			pids = append(pids, srv.PID)
		}
	}
	if len(pids) != 2 || pids[0] != pids[1] {
		t.Fatalf("two worktrees, want one gopls serving both: %+v", st[0].Workspaces)
	}
	cmd := exec.Command(bin, "status")
	cmd.Env = s.env
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "(one process for 2 workspaces)") {
		t.Errorf("cchub status does not say the server is shared: %v\n%s", err, out)
	}
	if text := call(t, w, "edit", breakF); !strings.Contains(text, "new error in b.go") {
		t.Fatalf("the worktree's session is not told what its change caused:\n%s", text)
	}
	if text := call(t, a, "diagnostics", map[string]any{"severity": "error"}); !strings.Contains(text, "b.go") || strings.Contains(text, "..") {
		t.Fatalf("the repository's diagnostics:\n%s", text)
	}
}
