package lspmux

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cchub/workspace"
	"cchub/workspace/wstest"
)

// goplsPath finds the gopls make test installs into .tools/bin (or one on
// PATH).
func goplsPath(t testing.TB) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", ".tools", "bin", "gopls"))
	if err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, err = exec.LookPath("gopls")
	wstest.RequirePeer(t, "gopls (make test installs it into .tools/bin)", err == nil)
	return p
}

// goWorkspace is a copy of testdata/workspaces/go and its root.
func goWorkspace(t *testing.T) (*workspace.Root, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "go")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "testdata", "workspaces", "go"))); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dst
}

// newGoMux is a Mux whose gopls is the one the tests were given.
func newGoMux(t *testing.T, root *workspace.Root, opts Options) *Mux {
	t.Helper()
	gopls := goplsPath(t)
	opts.LookPath = func(name string) (string, error) {
		if name == "gopls" {
			return gopls, nil
		}
		return exec.LookPath(name)
	}
	m, err := New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func write(t *testing.T, dir, rel, text string) File {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return File{Path: rel, Data: []byte(text)}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A type error written to a file comes back as its diagnostic once gopls
// has settled, from a gopls started by that first need and by nothing
// before; a caller broken in another file is reported for that file.
func TestGoplsReportsTheTypeErrorOfAWrite(t *testing.T) {
	root, dir := goWorkspace(t)
	m := newGoMux(t, root, Options{})
	if r := m.Running(); len(r) != 0 {
		t.Fatalf("servers running before any need: %v", r)
	}
	ctx := context.Background()
	src := read(t, dir, "pricing/pricing.go")
	broken := src + "\nfunc typeError() int { return \"not an int\" }\n"
	rep, err := m.AfterWrite(ctx, []File{write(t, dir, "pricing/pricing.go", broken)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notes) != 0 {
		t.Errorf("notes: %v", rep.Notes)
	}
	ds := rep.Files["pricing/pricing.go"]
	found := false
	for _, d := range ds {
		if d.Severity == "error" && strings.Contains(d.Message, "cannot use \"not an int\"") {
			found = true
			if want := strings.Count(broken[:strings.Index(broken, "\"not an int\"")], "\n") + 1; d.Line != want {
				t.Errorf("error at line %d, want %d", d.Line, want)
			}
		}
	}
	if !found {
		t.Fatalf("no type error in %+v", rep.Files)
	}
	if r := m.Running(); len(r) != 1 || r[0] != "gopls@" {
		t.Errorf("running: %v, want one gopls at the root", r)
	}

	// Fixed: the file has no errors again.
	rep, err = m.AfterWrite(ctx, []File{write(t, dir, "pricing/pricing.go", src)})
	if err != nil {
		t.Fatal(err)
	}
	if ds := rep.Files["pricing/pricing.go"]; len(ds) != 0 {
		t.Errorf("after the fix: %+v", ds)
	}
}

// A server that is killed is started again on the next need, and the run
// goes on; the crash is said once.
func TestAKilledServerIsRestarted(t *testing.T) {
	root, dir := goWorkspace(t)
	m := newGoMux(t, root, Options{})
	ctx := context.Background()
	src := read(t, dir, "pricing/pricing.go")
	if _, err := m.AfterWrite(ctx, []File{write(t, dir, "pricing/pricing.go", src)}); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	s := m.servers["gopls@"]
	m.mu.Unlock()
	if s == nil {
		t.Fatal("no gopls")
	}
	if err := syscall.Kill(-s.proc.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.exited
	broken := src + "\nvar bad int = \"x\"\n"
	rep, err := m.AfterWrite(ctx, []File{write(t, dir, "pricing/pricing.go", broken)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "gopls exited unexpectedly") {
		t.Errorf("notes: %v", rep.Notes)
	}
	if len(rep.Files["pricing/pricing.go"]) == 0 {
		t.Errorf("no diagnostics from the restarted gopls: %+v", rep)
	}
	rep, err = m.AfterWrite(ctx, []File{write(t, dir, "pricing/pricing.go", src)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notes) != 0 {
		t.Errorf("the crash was said again: %v", rep.Notes)
	}
}

// An idle server is stopped, and the next need starts it again; Close
// leaves no process behind.
func TestIdleServersStopAndCloseReaps(t *testing.T) {
	root, dir := goWorkspace(t)
	m := newGoMux(t, root, Options{Idle: 300 * time.Millisecond})
	ctx := context.Background()
	src := read(t, dir, "pricing/pricing.go")
	if _, err := m.AfterWrite(ctx, []File{write(t, dir, "pricing/pricing.go", src)}); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	s := m.servers["gopls@"]
	m.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for len(m.Running()) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if r := m.Running(); len(r) != 0 {
		t.Fatalf("still running after the idle time: %v", r)
	}
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the idle gopls was not reaped")
	}
	if _, err := m.AfterWrite(ctx, []File{write(t, dir, "pricing/pricing.go", src)}); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	s = m.servers["gopls@"]
	m.mu.Unlock()
	if s == nil {
		t.Fatal("the next need did not start gopls again")
	}
	m.Close()
	select {
	case <-s.exited:
	default:
		t.Fatal("Close returned before gopls was reaped")
	}
	if err := syscall.Kill(s.proc.Pid(), 0); err == nil {
		t.Error("gopls still exists after Close")
	}
}

// Missing binary and missing marker each say which, and how to fix it;
// files no server owns are not mentioned.
func TestUnavailableServersSaySo(t *testing.T) {
	root, dir := goWorkspace(t)
	m, err := New(root, Options{LookPath: func(string) (string, error) { return "", os.ErrNotExist }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	rep, err := m.AfterWrite(ctx, []File{write(t, dir, "pricing/pricing.go", read(t, dir, "pricing/pricing.go")), write(t, dir, "notes.txt", "hi\n")})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "gopls was not found") || !strings.Contains(rep.Notes[0], "go install golang.org/x/tools/gopls@v0.23.0") {
		t.Errorf("missing binary: %v", rep.Notes)
	}
	if err := os.Remove(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatal(err)
	}
	m2 := newGoMux(t, root, Options{})
	rep, err = m2.AfterWrite(ctx, []File{write(t, dir, "pricing/pricing.go", read(t, dir, "pricing/pricing.go"))})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "gopls needs one of go.work, go.mod in pricing/ or a directory above it") {
		t.Errorf("missing marker: %v", rep.Notes)
	}
	if r := m2.Running(); len(r) != 0 {
		t.Errorf("a server started without its marker: %v", r)
	}
}

// A changed signature breaks its callers in other files and packages:
// their diagnostics come with the write's.
func TestABrokenCallerInAnotherFileIsReported(t *testing.T) {
	root, dir := goWorkspace(t)
	m := newGoMux(t, root, Options{})
	src := read(t, dir, "pricing/pricing.go")
	changed := strings.Replace(src, "func Cents(n int64) Money { return Money(n) }", "func Cents(n int64, unit string) Money { return Money(n) }", 1)
	if changed == src {
		t.Fatal("Cents not found")
	}
	f := write(t, dir, "pricing/pricing.go", changed)
	f.Old = []byte(src) // the server starts for this change: it is told the file as it was first
	rep, err := m.AfterWrite(context.Background(), []File{f})
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range [][]Diagnostic{rep.New["main.go"], rep.Files["main.go"]} {
		if len(ds) == 0 || !strings.Contains(ds[0].Message, "not enough arguments in call to pricing.Cents") || ds[0].Line != 19 {
			t.Fatalf("main.go: %+v (new %+v, notes %v, late %v)", ds, rep.New, rep.Notes, rep.Late)
		}
	}
	broken := len(rep.New["main.go"])
	// The fix: the errors are gone, and nothing is new.
	f = write(t, dir, "pricing/pricing.go", src)
	rep, err = m.AfterWrite(context.Background(), []File{f})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.New) != 0 || rep.Gone["main.go"] != broken {
		t.Fatalf("after the fix: new %+v, gone %v", rep.New, rep.Gone)
	}
}

// A server that offers pull diagnostics is asked for them (gopls offers
// them behind its pullDiagnostics setting).
func TestPullDiagnostics(t *testing.T) {
	root, dir := goWorkspace(t)
	specs := Builtin()
	specs[0].InitOptions = map[string]any{"pullDiagnostics": true, "verboseWorkDoneProgress": true, "diagnosticsDelay": "0s"}
	m := newGoMux(t, root, Options{Specs: specs})
	src := read(t, dir, "pricing/pricing.go")
	rep, err := m.AfterWrite(context.Background(), []File{write(t, dir, "pricing/pricing.go", src+"\nvar pulled int = \"x\"\n")})
	if err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	s := m.servers["gopls@"]
	m.mu.Unlock()
	if s == nil || !s.pulls {
		t.Fatal("gopls did not offer pull diagnostics")
	}
	if ds := rep.Files["pricing/pricing.go"]; len(ds) == 0 || !strings.Contains(ds[0].Message, "cannot use \"x\"") {
		t.Fatalf("pulled: %+v", rep)
	}
}
