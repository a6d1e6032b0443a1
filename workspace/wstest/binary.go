package wstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// toolsOnPath puts the repository's .tools/bin, where make test installs
// the peers (gopls, dlv, the language servers), first on PATH, as make
// does. repo is the repository's root relative to the test's package.
func toolsOnPath(repo string) {
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
// building it on first use. Main deletes it when the tests end.
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

// Main runs a package's tests with repo's .tools/bin first on PATH and
// deletes the binary Cchub built, if it built one; a TestMain calls
// os.Exit(wstest.Main(m, "..")).
func Main(m *testing.M, repo string) int {
	toolsOnPath(repo)
	// The user's own cchub directory (trust records, the user's id) is a
	// fresh one, so no test reads or changes the person's real one, and
	// binaries the tests start inherit it.
	defer PrivateConfig()()
	code := m.Run()
	if cchub.dir != "" {
		os.RemoveAll(cchub.dir)
	}
	return code
}
