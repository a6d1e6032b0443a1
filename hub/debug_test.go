package hub

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/dapsession"
	"cchub/workspace/wstest"
)

// Breakpoints as models write them: a line's expected text checked
// (whitespace aside, or a long enough part of the line), the nearest line
// holding it named when it moved, functions told from files without a
// line, conditions from either form.
func TestDebugParseBreakpoints(t *testing.T) {
	ws := t.TempDir()
	src := "package main\n\nfunc main() {\n\tx := 1\n\tx++\n\tprintln(x)\n\tx++\n}\n"
	os.WriteFile(filepath.Join(ws, "main.go"), []byte(src), 0o644)
	h := newTestHub(t, ws)
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
		bps, refused, err := h.parseBreakpoints([]BreakpointSpec{c.spec})
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
	bps, _, _ := h.parseBreakpoints([]BreakpointSpec{{At: "main.go:5 if x > 1"}, {At: "Store.Add", If: "n > 2"}})
	if bps[0].Line != 5 || bps[0].Condition != "x > 1" || bps[1].Function != "Store.Add" || bps[1].Condition != "n > 2" {
		t.Errorf("conditions: %+v", bps)
	}
}

// A DAP error reaches the hub's caller with its id: a program that does
// not build (Delve's FailedToLaunch) and an expression that does not
// evaluate (UnableToEvaluateExpression), each answered in the words the
// adapter used.
func TestDebugErrorKeepsItsID(t *testing.T) {
	wstest.RequireProgram(t, "dlv")
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/tally\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() { undefinedThing() }\n"), 0o644)
	h := newTestHub(t, ws)
	r := h.OpenRun()
	defer h.EndRun(r)
	ctx := context.Background()
	_, err := h.Debug(ctx, r, DebugRequest{Op: "launch"})
	var de *dapsession.Error
	if !errors.As(err, &de) || de.ID != dapsession.DelveFailedToLaunch || !strings.Contains(err.Error(), "undefinedThing") {
		t.Fatalf("launch of a program that does not build: %v (%+v)", err, de)
	}
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {\n\tx := 1\n\tprintln(x)\n}\n"), 0o644)
	if _, err := h.Debug(ctx, r, DebugRequest{Op: "launch", Breakpoints: []BreakpointSpec{{At: "main.go:5"}}}); err != nil {
		t.Fatal(err)
	}
	_, err = h.Debug(ctx, r, DebugRequest{Op: "evaluate", Expression: "nosuch + 1"})
	if !errors.As(err, &de) || de.ID != dapsession.DelveUnableToEvaluateExpression || de.Command != "evaluate" ||
		err.Error() != "evaluate nosuch + 1: "+de.Message {
		t.Errorf("a bad expression: %v (%+v)", err, de)
	}
}
