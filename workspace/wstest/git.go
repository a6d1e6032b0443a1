package wstest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// GitWorktrees makes a git repository named repo in a temporary
// directory, holding files (relative paths, slash-separated) in one
// commit, and a worktree of it for each of wts (paths relative to the
// repository's parent: "wt" beside it, "repo/.worktrees/x" inside it), as
// `git worktree add` makes them. It returns the repository's directory
// and the worktrees', with symlinks evaluated. git runs with no user or
// system configuration.
func GitWorktrees(tb testing.TB, files map[string]string, wts ...string) (repo string, dirs []string) {
	tb.Helper()
	_, err := exec.LookPath("git")
	RequirePeer(tb, "git (the system's; a clone of this repository has it)", err == nil)
	parent := tb.TempDir()
	if real, err := filepath.EvalSymlinks(parent); err == nil {
		parent = real
	}
	repo = filepath.Join(parent, "repo")
	for rel, text := range files {
		p := filepath.Join(repo, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	git := func(args ...string) {
		tb.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=cchub", "GIT_AUTHOR_EMAIL=cchub@localhost", "GIT_COMMITTER_NAME=cchub", "GIT_COMMITTER_EMAIL=cchub@localhost")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "the test's files")
	for i, rel := range wts {
		dir := filepath.Join(parent, filepath.FromSlash(rel))
		git("worktree", "add", "-q", "-b", fmt.Sprintf("wt%d", i), dir)
		dirs = append(dirs, dir)
	}
	return repo, dirs
}
