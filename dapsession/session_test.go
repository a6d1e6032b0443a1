package dapsession

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cchub/trust"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// dlvPath finds the dlv make test installs into .tools/bin.
func dlvPath(t testing.TB) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", ".tools", "bin", "dlv"))
	if err == nil {
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	p, err = exec.LookPath("dlv")
	wstest.RequirePeer(t, "dlv (make test installs it into .tools/bin)", err == nil)
	return p
}

// goShop is a copy of testdata/workspaces/go.
func goShop(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "go")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "testdata", "workspaces", "go"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func goAdapter() *Adapter { a := Builtin()[0]; return &a }

// A breakpoint is hit; the stack, the locals and an expression in the
// frame are read; steps over, into and out move as they should; continue
// runs to the end with the output captured; nothing is left running.
func TestDlvSession(t *testing.T) {
	dlv := dlvPath(t)
	ws := goShop(t)
	ctx := context.Background()
	main := filepath.Join(ws, "main.go")
	s, stop, err := Launch(ctx, goAdapter(), dlv, ws, Options{
		Program:     ws,
		Breakpoints: []Breakpoint{{Path: main, Line: 20}},
		TTL:         2 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.End("the test ended")
	if stop.Reason != "breakpoint" || stop.Path != main || stop.Line != 20 || stop.Function != "main.main" {
		t.Fatalf("first stop: %+v", stop)
	}
	frames, err := s.Stack(ctx, 10)
	if err != nil || len(frames) < 2 || frames[0].Function != "main.main" {
		t.Fatalf("stack: %+v %v", frames, err)
	}
	scopes, err := s.Scopes(ctx, 0, Bounds{Depth: 2, Width: 20}, false)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sc := range scopes {
		for _, v := range sc.Vars {
			if v.Name == "s" && strings.Contains(v.Type, "store.Store") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no local s in %+v", scopes)
	}
	v, err := s.Evaluate(ctx, "len(s.Items())", 0, Bounds{Depth: 1, Width: 10})
	if err != nil {
		// Calls need the debuggee's cooperation; a plain expression will do.
		v, err = s.Evaluate(ctx, "s.name", 0, Bounds{Depth: 1, Width: 10})
	}
	if err != nil || !strings.Contains(v.Value, "main street") && v.Value != "1" {
		t.Errorf("evaluate: %+v %v", v, err)
	}
	_, err = s.Evaluate(ctx, "nosuchvar + 1", 0, Bounds{Depth: 1, Width: 10})
	var de *Error
	if err == nil || !strings.Contains(err.Error(), "nosuchvar") || !errors.As(err, &de) ||
		de.ID != DelveUnableToEvaluateExpression || de.Command != "evaluate" || de.Summary != "Unable to evaluate expression" {
		t.Errorf("a bad expression: %v (%+v)", err, de)
	}
	// next: line 21; step_in: into pricing.Cents, the first call of its
	// arguments; step_out: back.
	if st, err := s.Step(ctx, "next"); err != nil || st.Line != 21 || st.Reason != "step" {
		t.Fatalf("next: %+v %v", st, err)
	}
	if st, err := s.Step(ctx, "step_in"); err != nil || st.Function != "example.com/shop/pricing.Cents" && st.Function != "pricing.Cents" {
		t.Fatalf("step_in: %+v %v", st, err)
	}
	if st, err := s.Step(ctx, "step_out"); err != nil || st.Path != main || st.Line != 21 {
		t.Fatalf("step_out: %+v %v", st, err)
	}
	st, err := s.Step(ctx, "continue")
	if err != nil || !st.Ended || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("continue to the end: %+v %v", st, err)
	}
	if out := s.Output(); !strings.Contains(out, "Stock report for main street") {
		t.Errorf("output: %q", out)
	}
}

// A program that does not build says why, and Delve's error id says
// it was the launch.
func TestDlvBuildErrors(t *testing.T) {
	dlv := dlvPath(t)
	ws := goShop(t)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() { undefinedThing() }\n"), 0o644)
	_, _, err := Launch(context.Background(), goAdapter(), dlv, ws, Options{Program: ws, TTL: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "undefinedThing") {
		t.Fatalf("launch of a broken program: %v", err)
	}
	// Delve's refusal keeps its id and words under what cchub adds.
	var de *Error
	if !errors.As(err, &de) || de.ID != DelveFailedToLaunch || de.Command != "launch" || !strings.HasPrefix(err.Error(), "launch failed: "+de.Message) {
		t.Errorf("the launch's DAP error: %+v in %v", de, err)
	}
}

// requireDebugpy is the interpreter that runs debugpy, found as cchub
// finds it; without one the test is skipped, or, with
// CCHUB_REQUIRE_PEERS=1 (make test, which installs it), fails.
func requireDebugpy(t *testing.T) string {
	t.Helper()
	py, err := FindPython()
	wstest.RequirePeer(t, fmt.Sprintf("debugpy (make test installs Debian's python3-debugpy): %v", err), err == nil)
	return py
}

// debugpyHello is debugpy's interpreter and a script in a workspace of
// its own that sums a list in a function, with the line numbers the
// tests name.
func debugpyHello(t *testing.T) (py, ws, script string) {
	t.Helper()
	py = requireDebugpy(t)
	ws = t.TempDir()
	script = filepath.Join(ws, "hello.py")
	if err := os.WriteFile(script, []byte("def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n\nprint(f'total {total([1, 2, 3])}')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return py, ws, script
}

// Python through debugpy, when it is installed (Debian's python3-debugpy):
// a breakpoint in a function, its locals, an expression, the end.
func TestDebugpySession(t *testing.T) {
	py, ws, script := debugpyHello(t)
	a := Builtin()[1]
	ctx := context.Background()
	s, stop, err := Launch(ctx, &a, py, ws, Options{Language: "python", Program: script, Breakpoints: []Breakpoint{{Path: script, Line: 5}}, TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.End("the test ended")
	if stop.Reason != "breakpoint" || stop.Line != 5 || stop.Function != "total" {
		t.Fatalf("stop: %+v", stop)
	}
	v, err := s.Evaluate(ctx, "s * 10", 0, Bounds{Depth: 1, Width: 10})
	if err != nil || v.Value != "60" {
		t.Errorf("evaluate: %+v %v", v, err)
	}
	st, err := s.Step(ctx, "continue")
	if err != nil || !st.Ended {
		t.Fatalf("continue: %+v %v", st, err)
	}
	if !strings.Contains(s.Output(), "total 6") {
		t.Errorf("output: %q", s.Output())
	}
}

// .cchub.json's debug part sets the time limits and changes or adds
// adapters; what does not read is an error naming the field.
func TestDebugConfig(t *testing.T) {
	dir := t.TempDir()
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c, err := LoadConfig(root)
	if err != nil || c.TTL != 10*time.Minute || c.MaxTTL != time.Hour || len(c.Adapters) != 3 {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	cfg := []byte(`{"debug": {"ttl": "2m", "max_ttl": "5m", "adapters": [{"name": "dlv", "command": "/opt/dlv"}, {"name": "node", "language": "javascript", "command": "js-debug"}]}}`)
	os.WriteFile(filepath.Join(dir, ".cchub.json"), cfg, 0o644)
	// Untrusted: the time limits apply, the adapters do not, and the note
	// names them.
	t.Setenv(trust.EnvDir, t.TempDir())
	c, err = LoadConfig(root)
	if err != nil || c.TTL != 2*time.Minute || len(c.Adapters) != 3 || c.Adapters[0].Command == "/opt/dlv" ||
		!strings.Contains(c.Note, "debug.adapters[dlv], debug.adapters[node]") || !strings.Contains(c.Note, "cchub trust") {
		t.Fatalf("untrusted: %+v %v", c, err)
	}
	if err := trust.Grant(root.Dir(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	c, err = LoadConfig(root)
	if err != nil || c.TTL != 2*time.Minute || c.MaxTTL != 5*time.Minute || c.Adapters[0].Command != "/opt/dlv" || c.Adapters[3].Language != "javascript" {
		t.Fatalf("configured: %+v %v", c, err)
	}
	os.WriteFile(filepath.Join(dir, ".cchub.json"), []byte(`{"debug": {"ttl": "soon"}}`), 0o644)
	if _, err := LoadConfig(root); err == nil || !strings.Contains(err.Error(), `debug.ttl "soon" is not a duration`) {
		t.Errorf("a bad ttl: %v", err)
	}
}

// A function breakpoint stops where the adapter resolved it, and says
// where that is; a logpoint prints its message, the expression in braces
// evaluated, without stopping.
func TestDlvFunctionBreakpointAndLogpoint(t *testing.T) {
	dlv := dlvPath(t)
	ws := goShop(t)
	ctx := context.Background()
	main := filepath.Join(ws, "main.go")
	s, stop, err := Launch(ctx, goAdapter(), dlv, ws, Options{
		Program: ws,
		Breakpoints: []Breakpoint{
			{Path: main, Line: 21, Log: "pear added: {s.name}"},
			{Function: "example.com/shop/store.(*Store).Remove"},
		},
		TTL: 2 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.End("the test ended")
	bps := s.Breakpoints()
	if len(bps) != 2 || !bps[0].Verified || bps[0].Log == "" || !bps[1].Verified || !strings.HasSuffix(bps[1].Path, filepath.Join("store", "store.go")) || bps[1].Line != 77 {
		t.Fatalf("breakpoints as taken: %+v", bps)
	}
	if stop.Reason != "function breakpoint" && stop.Reason != "breakpoint" || !strings.HasSuffix(stop.Path, "store.go") || !strings.Contains(stop.Function, "Remove") {
		t.Fatalf("stop: %+v", stop)
	}
	if out := s.Output(); !strings.Contains(out, "pear added: main street") && !strings.Contains(out, `pear added: "main street"`) {
		t.Errorf("the logpoint's output: %q", out)
	}
	if _, err := s.SetFunctionBreakpoints(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Step(ctx, "continue"); err != nil || !st.Ended {
		t.Fatalf("continue with the function breakpoint cleared: %+v %v", st, err)
	}
}

// debugpy takes function breakpoints and logpoints too.
func TestDebugpyFunctionBreakpointAndLogpoint(t *testing.T) {
	py, ws, script := debugpyHello(t)
	a := Builtin()[1]
	ctx := context.Background()
	s, stop, err := Launch(ctx, &a, py, ws, Options{Language: "python", Program: script, TTL: time.Minute,
		Breakpoints: []Breakpoint{{Path: script, Line: 4, Log: "i is {i}"}, {Function: "total"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.End("the test ended")
	bps := s.Breakpoints()
	if len(bps) != 2 || !bps[0].Verified || !bps[1].Verified {
		t.Fatalf("breakpoints as taken: %+v", bps)
	}
	if stop.Function != "total" {
		t.Fatalf("stop: %+v", stop)
	}
	st, err := s.Step(ctx, "continue")
	if err != nil || !st.Ended {
		t.Fatalf("continue: %+v %v", st, err)
	}
	// The program's stdout and the logpoints' console output are two
	// streams, whose events debugpy does not order between them: each is
	// checked whole, not their interleaving.
	if out := s.Output(); !strings.Contains(out, "i is 2") || !strings.Contains(out, "total 6") {
		t.Errorf("output: %q", out)
	}
}

// debugpy's interpreter is the first python3 on PATH that imports it,
// else the system's, and is named by its own path: a wrapper on PATH (as
// a pyenv shim is) is not what runs the adapter, and a python3 on PATH
// without debugpy (a pyenv's, here one that skips site-packages) leaves
// it to /usr/bin/python3, where Debian installs it.
func TestDebugFindPython(t *testing.T) {
	sys := requireDebugpy(t)
	cases := []struct{ name, script string }{{"a wrapper", "#!/bin/sh\nexec " + sys + " \"$@\"\n"}}
	if sys == "/usr/bin/python3" {
		cases = append(cases, struct{ name, script string }{"without debugpy", "#!/bin/sh\nexec /usr/bin/python3 -I -S \"$@\"\n"})
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "python3"), []byte(c.script), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		py, err := FindPython()
		if err != nil || py != sys {
			t.Errorf("%s on PATH: %q %v; want %s", c.name, py, err, sys)
		}
	}
}
