package mcpserver

import (
	"os"
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
