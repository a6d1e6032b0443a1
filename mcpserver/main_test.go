package mcpserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
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
		cchubBin.dir, cchubBin.err = os.MkdirTemp("", "cchub-mcpserver-test-")
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
