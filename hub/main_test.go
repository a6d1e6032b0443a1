package hub

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"cchub/workspace/wstest"
)

func TestMain(m *testing.M) {
	wstest.ToolsOnPath("..")
	code := m.Run()
	wstest.RemoveCchub()
	os.Exit(code)
}

// buildCchub returns the path of the cchub binary, built once per run.
func buildCchub(t *testing.T) string {
	t.Helper()
	return wstest.Cchub(t, "..")
}

// copyWorkspace copies a bundled workspace into a temp dir, so tests may
// write into it without touching testdata.
func copyWorkspace(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "testdata", "workspaces", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func newTestHub(t *testing.T, ws string) *Hub {
	t.Helper()
	h, err := New(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// requireProgram skips (or, under make test, fails) a test whose peer
// program make test installs into .tools/bin is not found.
func requireProgram(t *testing.T, name string) {
	t.Helper()
	_, err := exec.LookPath(name)
	wstest.RequirePeer(t, name+" (make test installs it into .tools/bin)", err == nil)
}

func requireGopls(t *testing.T) { t.Helper(); requireProgram(t, "gopls") }
