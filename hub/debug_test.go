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
	_, err := h.Debug(ctx, r, dapsession.Request{Op: "launch"})
	var de *dapsession.Error
	if !errors.As(err, &de) || de.ID != dapsession.DelveFailedToLaunch || !strings.Contains(err.Error(), "undefinedThing") {
		t.Fatalf("launch of a program that does not build: %v (%+v)", err, de)
	}
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {\n\tx := 1\n\tprintln(x)\n}\n"), 0o644)
	if _, err := h.Debug(ctx, r, dapsession.Request{Op: "launch", Breakpoints: []dapsession.BreakpointSpec{{At: "main.go:5"}}}); err != nil {
		t.Fatal(err)
	}
	_, err = h.Debug(ctx, r, dapsession.Request{Op: "evaluate", Expression: "nosuch + 1"})
	if !errors.As(err, &de) || de.ID != dapsession.DelveUnableToEvaluateExpression || de.Command != "evaluate" ||
		err.Error() != "evaluate nosuch + 1: "+de.Message {
		t.Errorf("a bad expression: %v (%+v)", err, de)
	}
}
