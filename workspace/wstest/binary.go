package wstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// ToolsOnPath puts the repository's .tools/bin, where make test installs
// the peers (gopls, dlv, the language servers), first on PATH, as make
// does. repo is the repository's root relative to the test's package.
func ToolsOnPath(repo string) {
	if tools, err := filepath.Abs(filepath.Join(repo, ".tools", "bin")); err == nil {
		os.Setenv("PATH", tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
}

// cchub is the binary the tests that need a real process share: it is
// built once per test process (linking the cgo grammars takes a while).
var cchub struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// Cchub returns the path of a cchub binary built from repo's cmd/cchub,
// building it on first use. RemoveCchub deletes it; TestMain calls it.
func Cchub(tb testing.TB, repo string) string {
	tb.Helper()
	cchub.once.Do(func() {
		cchub.dir, cchub.err = os.MkdirTemp("", "cchub-test-")
		if cchub.err != nil {
			return
		}
		cchub.path = filepath.Join(cchub.dir, "cchub")
		cchub.out, cchub.err = exec.Command("go", "build", "-o", cchub.path, filepath.Join(repo, "cmd", "cchub")).CombinedOutput()
	})
	if cchub.err != nil {
		tb.Fatalf("go build %s: %v\n%s", filepath.Join(repo, "cmd", "cchub"), cchub.err, cchub.out)
	}
	return cchub.path
}

// RemoveCchub deletes the binary Cchub built, if it built one.
func RemoveCchub() {
	if cchub.dir != "" {
		os.RemoveAll(cchub.dir)
	}
}
