package lspmux

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeSpec is a "language server" for .go files that is the shell script
// body: the faults a real server cannot be made to show on demand. Each
// start appends the shell's pid to the file $STARTS.
func fakeSpec(t *testing.T, name, body string) (Spec, string) {
	t.Helper()
	starts := filepath.Join(t.TempDir(), "starts")
	return Spec{
		Name: name, Command: "sh", Args: []string{"-c", `echo $$ >> "$STARTS"; ` + body},
		Env:       map[string]string{"STARTS": starts},
		Languages: map[string]string{".go": "go"}, RootMarkers: []string{"go.mod"},
		Install: "nothing to install: it is a test's fake",
	}, starts
}

func newFakeMux(t *testing.T, spec Spec, opts Options) (*Mux, string) {
	t.Helper()
	root, dir := goWorkspace(t)
	opts.Specs = []Spec{spec}
	opts.LookPath = exec.LookPath
	m, err := New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, dir
}

// startPids are the pids of the starts recorded in file.
func startPids(t *testing.T, file string) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

func hasNote(rep *Report, parts ...string) bool {
	for _, n := range rep.Notes {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(n, p)
		}
		if all {
			return true
		}
	}
	return false
}

// A server that exits as it starts is a failed start: the answer says so
// with its last words and how to find out why, and the next request,
// within the backoff, answers the same without starting it again.
func TestAServerThatExitsAtOnceIsAFailedStartThatBacksOff(t *testing.T) {
	spec, starts := fakeSpec(t, "fakeexit", `echo "fakeexit: cannot read its configuration" >&2; exit 3`)
	// A bound longer than any start here: the answer must come from
	// the failure, not from the bound.
	m, dir := newFakeMux(t, spec, Options{Timeout: time.Minute})
	ctx := context.Background()
	file := write(t, dir, "pricing/pricing.go", read(t, dir, "pricing/pricing.go"))
	rep, err := m.AfterWrite(ctx, []File{file})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(rep, "fakeexit failed to start once (last: it exited during initialize (exit status 3); its last words: fakeexit: cannot read its configuration)",
		"it is tried again in 4s", "fix: run ", "correct servers[fakeexit] in .cchub.json") {
		t.Fatalf("notes: %q", rep.Notes)
	}
	if n := len(startPids(t, starts)); n != 1 {
		t.Fatalf("%d starts, want 1", n)
	}
	rep, err = m.AfterWrite(ctx, []File{file})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(rep, "fakeexit failed to start once (last: it exited during initialize (exit status 3)", "it is tried again in ") {
		t.Fatalf("notes of the request within the backoff: %q", rep.Notes)
	}
	if n := len(startPids(t, starts)); n != 1 {
		t.Errorf("%d starts: started again within the backoff", n)
	}
	// Whole-workspace diagnostics say the same, and name the server
	// as not checked.
	rep, err = m.Workspace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(rep, "fakeexit failed to start once") || len(rep.Unchecked) != 1 || rep.Unchecked[0] != "fakeexit" {
		t.Errorf("workspace: notes %q, unchecked %q", rep.Notes, rep.Unchecked)
	}
	// After the backoff it is tried again, and a second failure backs
	// off longer.
	m.mu.Lock()
	m.failures["fakeexit@"].at = time.Now().Add(-time.Minute)
	m.mu.Unlock()
	rep, err = m.AfterWrite(ctx, []File{file})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(rep, "fakeexit failed to start twice", "it is tried again in 8s") {
		t.Errorf("notes after the backoff: %q", rep.Notes)
	}
	if n := len(startPids(t, starts)); n != 2 {
		t.Errorf("%d starts, want 2", n)
	}
}

// A server that never answers initialize costs a request its bound, not
// the start limit: the answer says it is still starting and what to do;
// the start goes on and, at the limit, the process is killed and reaped
// and counted as a failed start, which the next request hears at once.
func TestAServerThatHangsInInitializeIsBoundedAndReaped(t *testing.T) {
	spec, starts := fakeSpec(t, "fakehang", `exec sleep 600`)
	m, dir := newFakeMux(t, spec, Options{Timeout: 200 * time.Millisecond, StartLimit: 2 * time.Second})
	ctx := context.Background()
	file := write(t, dir, "pricing/pricing.go", read(t, dir, "pricing/pricing.go"))
	rep, err := m.AfterWrite(ctx, []File{file})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(rep, "fakehang is still starting", "ask again in a few seconds: its diagnostics will come with a later answer") {
		t.Fatalf("notes: %q", rep.Notes)
	}
	o, err := m.ownerOf("pricing/pricing.go")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.server(ctx, o); !errors.Is(err, ErrStarting) {
		t.Errorf("a second request during the start: %v, want ErrStarting", err)
	}
	// Wait for the start limit to end the start.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		m.mu.Lock()
		f := m.failures["fakehang@"]
		m.mu.Unlock()
		if f != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hung start was not ended by the start limit")
		}
	}
	pids := startPids(t, starts)
	if len(pids) != 1 {
		t.Fatalf("starts: %v, want one (the second request shared the start)", pids)
	}
	if err := syscall.Kill(pids[0], 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the hung server %d is still there after its failed start (%v)", pids[0], err)
	}
	rep, err = m.AfterWrite(ctx, []File{file})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(rep, "fakehang failed to start once (last: it did not answer initialize within 2s and was killed)", "it is tried again in") {
		t.Errorf("notes after the start limit: %q", rep.Notes)
	}
	if n := len(startPids(t, starts)); n != 1 {
		t.Errorf("%d starts: started again within the backoff", n)
	}
}

// Close ends a start that is going on and reaps its process.
func TestCloseReapsAServerStillStarting(t *testing.T) {
	spec, starts := fakeSpec(t, "fakehang", `exec sleep 600`)
	m, dir := newFakeMux(t, spec, Options{Timeout: 100 * time.Millisecond})
	rep, err := m.AfterWrite(context.Background(), []File{write(t, dir, "main.go", read(t, dir, "main.go"))})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(rep, "fakehang is still starting") {
		t.Fatalf("notes: %q", rep.Notes)
	}
	pids := startPids(t, starts)
	if len(pids) != 1 {
		t.Fatalf("starts: %v", pids)
	}
	m.Close()
	if err := syscall.Kill(pids[0], 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the starting server %d outlived Close (%v)", pids[0], err)
	}
}

// A slow but healthy start is not lost when the request's bound ends:
// the next request finds the server running.
func TestAStartOutlastsTheRequestThatBeganIt(t *testing.T) {
	spec, starts := fakeSpec(t, "fakegopls", `sleep 1; exec "$GOPLS"`)
	spec.Env["GOPLS"] = goplsPath(t)
	spec.InitOptions = Builtin()[0].InitOptions
	spec.ProgressSettles = true
	m, dir := newFakeMux(t, spec, Options{Timeout: 100 * time.Millisecond})
	ctx := context.Background()
	file := write(t, dir, "main.go", read(t, dir, "main.go"))
	rep, err := m.AfterWrite(ctx, []File{file})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(rep, "fakegopls is still starting") {
		t.Fatalf("notes: %q", rep.Notes)
	}
	for deadline := time.Now().Add(time.Minute); len(m.Running()) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			m.mu.Lock()
			f := m.failures["fakegopls@"]
			m.mu.Unlock()
			t.Fatalf("the start did not go on (failure %+v)", f)
		}
	}
	rep, err = m.AfterWrite(ctx, []File{file})
	if err != nil {
		t.Fatal(err)
	}
	// It is answered by the running server, or (its change queued
	// behind the first one, still settling) pending on it: never started
	// again.
	if hasNote(rep, "starting") || len(rep.Servers) != 1 && (rep.Late == nil || rep.Late.Servers[0] != "fakegopls") {
		t.Errorf("the next request: %+v", rep)
	}
	if n := len(startPids(t, starts)); n != 1 {
		t.Errorf("%d starts, want 1", n)
	}
}
