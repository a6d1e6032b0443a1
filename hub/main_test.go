package hub

import (
	"os"
	"path/filepath"
	"testing"

	"cchub/workspace/wstest"
)

func TestMain(m *testing.M) { os.Exit(wstest.Main(m, "..")) }

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

func requireGopls(t *testing.T) { t.Helper(); wstest.RequireProgram(t, "gopls") }
