package hub

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"cchub/workspace/wstest"
)

func TestMain(m *testing.M) {
	// The language servers make test installs into .tools/bin are found
	// on PATH, as make puts them there.
	if tools, err := filepath.Abs(filepath.Join("..", ".tools", "bin")); err == nil {
		os.Setenv("PATH", tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	code := m.Run()
	if cchubBin.dir != "" {
		os.RemoveAll(cchubBin.dir)
	}
	os.Exit(code)
}

// cchubBin is the binary the tests that need a real process share: it is
// built once per test run (linking the cgo grammars takes a while).
var cchubBin struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// buildCchub returns the path of the cchub binary, building it on first use.
func buildCchub(t *testing.T) string {
	t.Helper()
	cchubBin.once.Do(func() {
		cchubBin.dir, cchubBin.err = os.MkdirTemp("", "cchub-hub-test-")
		if cchubBin.err != nil {
			return
		}
		cchubBin.path = filepath.Join(cchubBin.dir, "cchub")
		cchubBin.out, cchubBin.err = exec.Command("go", "build", "-o", cchubBin.path, "../cmd/cchub").CombinedOutput()
	})
	if cchubBin.err != nil {
		t.Fatalf("go build ../cmd/cchub: %v\n%s", cchubBin.err, cchubBin.out)
	}
	return cchubBin.path
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
