package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"cchub/store/pgtest"
)

// gitEnv makes git independent of the user's configuration.
var gitEnv = map[string]string{"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1"}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CCHUB_REQUIRE_PEERS") == "1" {
			t.Fatal("git is not on PATH; install git")
		}
		t.Skip("git is not on PATH")
	}
}

// TestBlastScripts runs cchub blast as CI would, in real git repositories
// made by the scripts under testdata/blast.
func TestBlastScripts(t *testing.T) {
	needGit(t)
	// Each script gets a fresh database of one private PostgreSQL
	// ($PGURL), for the scripts that share an index across clones.
	pg := pgtest.ForTest(t)
	testscript.Run(t, testscript.Params{
		Dir:  "testdata/blast",
		Cmds: storeCmds,
		Setup: func(env *testscript.Env) error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			url, err := pg.NewDatabase(ctx)
			if err != nil {
				return err
			}
			env.Setenv("PGURL", url)
			env.Setenv("HOME", env.WorkDir)
			for k, v := range gitEnv {
				env.Setenv(k, v)
			}
			return nil
		},
	})
}

// TestBlastExitCodes checks the codes main exits with: 1 when the radius
// is over --fail-above, 2 for bad input, each with its reason.
func TestBlastExitCodes(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	for k, v := range gitEnv {
		t.Setenv(k, v)
	}
	write := func(p, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@cchub.invalid"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write("a.py", "def f():\n    return 1\n\n\ndef g():\n    return f()\n")
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	write("a.py", "def f():\n    return 2\n\n\ndef g():\n    return f()\n")

	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--base", "HEAD"}, 0, ""},
		{[]string{"--base", "HEAD", "--fail-above", "1"}, 0, ""},
		{[]string{"--base", "HEAD", "--fail-above", "0"}, 1, "1 definition(s) reached, more than --fail-above 0"},
		{[]string{"--base", "nope"}, 2, "names no commit"},
		{[]string{"--base", "HEAD", "--max-depth", "-1"}, 2, "max depth -1"},
		{[]string{"--base", "HEAD", "--min-confidence", "sure"}, 2, "none of exact, import, name-only"},
		{[]string{"--base", "HEAD", "--json", "--format", "sarif"}, 2, "disagree"},
		{[]string{"--base", "HEAD", "--nope"}, 2, "unknown flag"},
	} {
		var out bytes.Buffer
		root := newRootCmd(&out, &out)
		root.SetArgs(append([]string{"--root", dir, "blast"}, tc.args...))
		err := root.ExecuteContext(context.Background())
		code := 0
		if err != nil {
			code = 2 // what main does with an error that carries no code
			var ee *exitError
			if errors.As(err, &ee) {
				code = ee.code
			}
		}
		if code != tc.code || tc.err != "" && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("blast %v: exit %d (%v); want %d with %q", tc.args, code, err, tc.code, tc.err)
		}
	}
}
