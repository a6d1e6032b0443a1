package mcpserver

import (
	"os"
	"testing"

	"cchub/workspace/wstest"
)

func TestMain(m *testing.M) { os.Exit(wstest.Main(m, "..")) }

// buildCchub returns the path of the cchub binary, built once per run.
func buildCchub(t *testing.T) string {
	t.Helper()
	return wstest.Cchub(t, "..")
}
