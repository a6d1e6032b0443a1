package dapsession

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
)

// Breakpoints as models write them: a line's expected text checked
// (whitespace aside, or a long enough part of the line), the nearest line
// holding it named when it moved, functions told from files without a
// line, conditions from either form.
func TestDebugParseBreakpoints(t *testing.T) {
	ws := t.TempDir()
	src := "package main\n\nfunc main() {\n\tx := 1\n\tx++\n\tprintln(x)\n\tx++\n}\n"
	os.WriteFile(filepath.Join(ws, "main.go"), []byte(src), 0o644)
	root, err := workspace.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, c := range []struct {
		spec    BreakpointSpec
		refused string // "" for set
		err     string
	}{
		{spec: BreakpointSpec{At: "main.go:4", Text: "x   :=   1"}},
		{spec: BreakpointSpec{At: "main.go:6", Text: "println(x)"}},
		{spec: BreakpointSpec{At: "main.go:6", Text: "println"}, refused: "the expected text is not in main.go"}, // too short to be a part
		{spec: BreakpointSpec{At: "main.go:4", Text: "x++"}, refused: "line 4 is x := 1; the expected text is at main.go:5 now; use main.go:5"},
		{spec: BreakpointSpec{At: "main.go:8", Text: "x++"}, refused: "at main.go:7 now; use main.go:7"},
		{spec: BreakpointSpec{At: "main.go:40", Text: "x := 1"}, refused: "main.go has 8 lines; the expected text is at main.go:4 now"},
		{spec: BreakpointSpec{At: "main.go:40"}},
		{spec: BreakpointSpec{At: "main.go:5 if x > 1"}},
		{spec: BreakpointSpec{At: "(*Store).Add"}},
		{spec: BreakpointSpec{At: "example.com/shop/store.New", If: "name != \"\""}},
		{spec: BreakpointSpec{At: "main.go"}, err: "write it as path:line or a function name"},
		{spec: BreakpointSpec{At: "store/"}, err: "write it as path:line or a function name"},
		{spec: BreakpointSpec{At: "main", Log: "x"}, err: "a logpoint goes on a line"},
		{spec: BreakpointSpec{At: "20"}, err: "write it as path:line or a function name"},
	} {
		bps, refused, err := parseBreakpoints(root, []BreakpointSpec{c.spec})
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: want error %q, got %v", c.spec, c.err, err)
			}
		case err != nil:
			t.Errorf("%+v: %v", c.spec, err)
		case c.refused != "":
			if len(refused) != 1 || len(bps) != 0 || !strings.Contains(refused[0].Refused, c.refused) {
				t.Errorf("%+v: want refused %q, got %+v %+v", c.spec, c.refused, refused, bps)
			}
		case len(bps) != 1 || len(refused) != 0:
			t.Errorf("%+v: want set, got %+v %+v", c.spec, bps, refused)
		}
	}
	bps, _, _ := parseBreakpoints(root, []BreakpointSpec{{At: "main.go:5 if x > 1"}, {At: "Store.Add", If: "n > 2"}})
	if bps[0].Line != 5 || bps[0].Condition != "x > 1" || bps[1].Function != "Store.Add" || bps[1].Condition != "n > 2" {
		t.Errorf("conditions: %+v", bps)
	}
}

// An answer shows the source of workspace files only, read through the
// root: a file outside it, or reached by a symlink that leads out, is
// named (absolute when outside) but not read.
func TestDebugShowsOnlyWorkspaceSource(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	secret := filepath.Join(out, "secret.go")
	os.WriteFile(secret, []byte("package secret\n\nvar key = 1\n"), 0o644)
	if err := os.Symlink(secret, filepath.Join(ws, "link.go")); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	got := showBreakpoints(root, wrap([]Breakpoint{
		{Path: filepath.Join(ws, "main.go"), Line: 3},
		{Path: secret, Line: 3},
		{Path: filepath.Join(ws, "link.go"), Line: 3},
	}))
	if got[0].Path != "main.go" || got[0].Source != "func main() {}" {
		t.Errorf("a workspace file: %+v", got[0])
	}
	if got[1].Path != secret || got[1].Source != "" {
		t.Errorf("a file outside: %+v", got[1])
	}
	if got[2].Path != "link.go" || got[2].Source != "" {
		t.Errorf("a symlink that leads out: %+v", got[2])
	}
}

// The language of a launch: the one named, aliases taken; else Python for
// a Python file, whatever the case of its extension; else Go. A
// configured adapter's language is read with the same aliases.
func TestDebugLanguageOfALaunch(t *testing.T) {
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{}, "go"},
		{Request{Program: "cmd/tool"}, "go"},
		{Request{Program: "hello.py"}, "python"},
		{Request{Program: "Hello.PY"}, "python"},
		{Request{Program: "hello.py", Language: "go"}, "go"},
		{Request{Language: "py"}, "python"},
		{Request{Language: "Golang"}, "go"},
		{Request{Language: "node"}, "node"},
	} {
		if got := languageOf(c.req); got != c.want {
			t.Errorf("%+v: %q, want %q", c.req, got, c.want)
		}
	}
	c, err := applyConfig(workspace.Config{Data: []byte(`{"debug": {"adapters": [{"name": "node", "language": "js", "command": "js-debug"}]}}`), Trusted: true}, Config{Adapters: Builtin()})
	if err != nil || c.Adapters[3].Language != "javascript" {
		t.Errorf("a configured adapter's language: %+v %v", c.Adapters, err)
	}
}
