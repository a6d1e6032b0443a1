package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"cchub/store/pgtest"
)

func TestMain(m *testing.M) {
	// The terminal tests run this binary as cchub itself, in a
	// pseudo-terminal (see review_test.go).
	if os.Getenv("CCHUB_TEST_AS_CCHUB") == "1" {
		main()
		os.Exit(0)
	}
	testscript.Main(pgtest.Main(m), map[string]func(){
		"cchub": main,
	})
}

// TestScripts runs the CLI as a user would, from txtar scripts under
// testdata/script: exit codes, stdout, stderr. $CCHUB_REPO is the checkout
// the test runs in, for scripts that need its files (the demo's bundled
// workspace).
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", env.WorkDir)
			// The user's cchub directory (id, trust records) is the
			// script's own, whatever the environment says.
			env.Setenv("CCHUB_CONFIG_DIR", filepath.Join(env.WorkDir, ".config", "cchub"))
			// The directory of the scripts' cchub alone, for a PATH
			// without the language servers.
			for _, d := range filepath.SplitList(env.Getenv("PATH")) {
				if _, err := os.Stat(filepath.Join(d, "cchub")); err == nil {
					env.Setenv("CCHUB_BIN_DIR", d)
					break
				}
			}
			env.Setenv("CCHUB_REPO", repo)
			// The language servers make test installs, after the
			// scripts' own cchub.
			env.Setenv("PATH", env.Getenv("PATH")+string(filepath.ListSeparator)+filepath.Join(repo, ".tools", "bin"))
			return nil
		},
		Condition: func(cond string) (bool, error) {
			name, ok := strings.CutPrefix(cond, "peer:")
			if !ok {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			return peer(name, os.Getenv("PATH")+string(filepath.ListSeparator)+filepath.Join(repo, ".tools", "bin"))
		},
	})
}

// peer says whether the program name is on path, for the condition
// [peer:NAME] (make test installs peers into .tools/bin); missing, it is
// an error when the run promised every peer (CCHUB_REQUIRE_PEERS=1), as
// wstest.RequirePeer makes it for a Go test, and else the script skips:
//
//	[!peer:rsync] skip 'rsync is missing: make test installs it'
func peer(name, path string) (bool, error) {
	if found(path, name) {
		return true, nil
	}
	if os.Getenv("CCHUB_REQUIRE_PEERS") == "1" {
		return false, fmt.Errorf("missing peer: %s (make test installs it into .tools/bin)", name)
	}
	return false, nil
}

// found says whether name is an executable in one of path's directories.
func found(path, name string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil && p != "" {
			return true
		}
	}
	return false
}

// [peer:NAME] on a program that is nowhere: the script skips, unless the
// run promised every peer; then it fails, naming the program.
func TestPeerConditionFailsWhenPeersAreRequired(t *testing.T) {
	t.Setenv("CCHUB_REQUIRE_PEERS", "")
	if ok, err := peer("cchub-no-such-program", t.TempDir()); ok || err != nil {
		t.Errorf("a missing peer, not required: %v, %v; want false (skip), no error", ok, err)
	}
	t.Setenv("CCHUB_REQUIRE_PEERS", "1")
	if ok, err := peer("cchub-no-such-program", t.TempDir()); ok || err == nil || !strings.Contains(err.Error(), "cchub-no-such-program") {
		t.Errorf("a missing peer, required: %v, %v; want an error naming it", ok, err)
	}
	if ok, err := peer("sh", "/bin"+string(filepath.ListSeparator)+"/usr/bin"); !ok || err != nil {
		t.Errorf("sh: %v, %v; want found", ok, err)
	}
}
