package gitcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo makes a repository with one commit of a.txt and the named file,
// then changes both in the working tree.
func repo(t *testing.T, name string) *Git {
	t.Helper()
	g, err := New(t.TempDir())
	if err != nil {
		t.Skip(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@cchub.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = g.Dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(g.Dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("a.txt", "one\n")
	write(name, "x\n")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	write("a.txt", "two\n")
	write(name, "y\n")
	return g
}

// set writes a configuration value into the repository, as a user would.
func set(t *testing.T, g *Git, key, value string) {
	t.Helper()
	cmd := exec.Command("git", "config", key, value)
	cmd.Dir = g.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git config: %v\n%s", err, out)
	}
}

func TestDiffIgnoresTheUsersConfiguration(t *testing.T) {
	g := repo(t, "b.txt")
	set(t, g, "color.ui", "always")
	set(t, g, "color.diff", "always")
	set(t, g, "diff.external", "echo EXTERNAL")
	set(t, g, "core.pager", "sed s/^/PAGED/")
	set(t, g, "diff.noprefix", "true")
	set(t, g, "diff.txt.textconv", "echo TEXTCONV")
	if err := os.WriteFile(filepath.Join(g.Dir, ".gitattributes"), []byte("*.txt diff=txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := g.Diff(context.Background(), 1<<20, "--unified=0", "HEAD", "--", "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n"
	if !strings.HasSuffix(string(out), want) || strings.Contains(string(out), "\x1b") {
		t.Errorf("diff:\n%s\nwant it to end with:\n%s", out, want)
	}
}

func TestQuotePaths(t *testing.T) {
	g := repo(t, "é.txt")
	out, err := g.Output(context.Background(), 1<<20, "diff", "--name-only", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "a.txt\né.txt\n" {
		t.Errorf("paths as they are: %q", out)
	}
	g.QuotePaths = true
	out, err = g.Output(context.Background(), 1<<20, "diff", "--name-only", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "a.txt\n\"\\303\\251.txt\"\n" {
		t.Errorf("quoted paths: %q", out)
	}
}

func TestFailureSaysWhatGitSaid(t *testing.T) {
	g := repo(t, "b.txt")
	_, err := g.Output(context.Background(), 1<<20, "rev-parse", "--verify", "no-such-branch")
	var ge *Error
	if !errors.As(err, &ge) || ge.Command != "rev-parse" || err.Error() != "git rev-parse: fatal: Needed a single revision" {
		t.Errorf("err = %#v (%v)", err, err)
	}
}

func TestTooLong(t *testing.T) {
	g := repo(t, "b.txt")
	_, err := g.Diff(context.Background(), 10, "HEAD")
	var tl *TooLongError
	if !errors.As(err, &tl) || tl.Command != "diff" || tl.Limit != 10 {
		t.Errorf("err = %v, want a TooLongError", err)
	}
}

func TestEndedContext(t *testing.T) {
	g := repo(t, "b.txt")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Output(ctx, 1<<20, "status"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want %v", err, context.Canceled)
	}
}

func TestNoOptionalLocks(t *testing.T) {
	g := repo(t, "b.txt")
	// A stat-dirty index: status would refresh and rewrite it, unless it
	// takes no optional locks.
	index := filepath.Join(g.Dir, ".git", "index")
	before, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Output(context.Background(), 1<<20, "status", "--porcelain"); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Errorf("git status rewrote the index")
	}
}

func TestNotOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := New("."); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("New = %v, want %v", err, exec.ErrNotFound)
	}
}
