package wstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// RequirePeer checks a real peer a test needs (python3, a corpus
// directory, the TypeScript MCP client): when ok is false the test is
// skipped, or fails when the run promised every peer (make test sets
// CCHUB_REQUIRE_PEERS=1), so that a green run has really talked to it.
// what names the peer and how to get it.
func RequirePeer(tb testing.TB, what string, ok bool) {
	tb.Helper()
	if ok {
		return
	}
	if os.Getenv("CCHUB_REQUIRE_PEERS") == "1" {
		tb.Fatalf("missing peer: %s", what)
	}
	tb.Skipf("missing peer (CCHUB_REQUIRE_PEERS=1 makes this a failure): %s", what)
}

// RequireProgram is RequirePeer for a program that make test installs
// into .tools/bin (gopls, dlv, the language servers), looked up on PATH.
func RequireProgram(tb testing.TB, name string) {
	tb.Helper()
	_, err := exec.LookPath(name)
	RequirePeer(tb, name+" (make test installs it into .tools/bin)", err == nil)
}

var goSrc = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
})

// GoSrc is Go's own source tree, $(go env GOROOT)/src, the largest real
// corpus every machine that builds cchub has (runtime.GOROOT is where the
// test binary was built, which the go command may not say).
func GoSrc(tb testing.TB) string {
	tb.Helper()
	dir := goSrc()
	RequirePeer(tb, "Go's source tree ($(go env GOROOT)/src): the go command", dir != "")
	return dir
}
