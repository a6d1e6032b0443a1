package gitcmd

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostileRepo is a repository whose configuration names a program for
// everything git could run while it looks: the file system monitor, a
// clean/smudge filter and a long-running process filter (required, named
// by .gitattributes for every file), a filter with a dot in its name, an
// external diff, a diff driver's command and textconv, a pager, hooks.
// Each program touches a marker in marks. The working tree is changed
// after the commit, so a diff against it reads the files.
func hostileRepo(t *testing.T) (g *Git, marks string) {
	t.Helper()
	g = repo(t, "b.md")
	if err := os.WriteFile(filepath.Join(g.Dir, "c.dot"), []byte("dot\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	commit := exec.Command("git", "-c", "user.name=t", "-c", "user.email=t@cchub.invalid", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "dot", "--", "c.dot")
	commit.Dir = g.Dir
	if out, err := exec.Command("git", "-C", g.Dir, "add", "c.dot").CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	if out, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	marks = t.TempDir()
	bin := t.TempDir()
	prog := func(name string) string {
		p := filepath.Join(bin, name)
		script := "#!/bin/sh\ntouch '" + filepath.Join(marks, name) + "'\ncat\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hooks := filepath.Join(bin, "hooks")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"post-index-change", "reference-transaction", "post-checkout", "pre-commit", "fsmonitor-watchman", "pre-auto-gc"} {
		if err := os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\ntouch '"+filepath.Join(marks, "hook-"+h)+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	set(t, g, "core.fsmonitor", prog("fsmonitor"))
	set(t, g, "core.hooksPath", hooks)
	set(t, g, "filter.evil.clean", prog("clean"))
	set(t, g, "filter.evil.smudge", prog("smudge"))
	set(t, g, "filter.evil.required", "true")
	set(t, g, "filter.long.process", prog("process"))
	set(t, g, "filter.long.required", "true")
	set(t, g, "filter.a.b.clean", prog("dotted"))
	set(t, g, "diff.external", prog("external"))
	set(t, g, "diff.evil.command", prog("diffcommand"))
	set(t, g, "diff.evil.textconv", prog("textconv"))
	set(t, g, "core.pager", prog("pager"))
	set(t, g, "pager.diff", prog("pagerdiff"))
	set(t, g, "log.showSignature", "true")
	attrs := "*.txt filter=evil diff=evil\n*.md filter=long\n*.dot filter=a.b\n"
	if err := os.WriteFile(filepath.Join(g.Dir, ".gitattributes"), []byte(attrs), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(g.Dir, "c.dot"), []byte("dot, changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return g, marks
}

func ran(t *testing.T, marks string) []string {
	t.Helper()
	es, err := os.ReadDir(marks)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// The repository is as hostile as it looks: git run as a user runs it
// (the fsmonitor, the clean filter, the dotted one, the process filter).
func TestHostileRepoRunsProgramsForPlainGit(t *testing.T) {
	g, marks := hostileRepo(t)
	for _, args := range [][]string{{"status", "--porcelain"}, {"diff", "--stat", "HEAD"}, {"diff", "--stat", "HEAD", "--", "c.dot"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = g.Dir
		_ = cmd.Run() // the process filter fails its handshake; it ran
	}
	got := strings.Join(ran(t, marks), " ")
	for _, want := range []string{"fsmonitor", "clean", "process", "dotted"} {
		if !strings.Contains(got, want) {
			t.Errorf("plain git did not run %s (ran: %s): the test's repository does not test what it should", want, got)
		}
	}
}

// Through gitcmd, every command cchub runs reads that repository without
// running any of its programs, and the answers are still right.
func TestGitRunsNothingTheRepositoryNames(t *testing.T) {
	g, marks := hostileRepo(t)
	ctx := context.Background()
	diff, err := g.Diff(ctx, 1<<20, "--unified=0", "--find-renames", "HEAD", "--")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n", "--- a/b.md\n+++ b/b.md\n@@ -1 +1 @@\n-x\n+y\n"} {
		if !strings.Contains(string(diff), want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if _, err := g.Output(ctx, 1<<20, "status", "--porcelain"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Output(ctx, 1<<20, "diff", "--name-only", "HEAD"); err != nil {
		t.Fatal(err)
	}
	head, err := g.Output(ctx, 1<<10, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Output(ctx, 1<<20, "merge-base", "HEAD", "HEAD"); err != nil {
		t.Fatal(err)
	}
	tree, err := g.Output(ctx, 1<<20, "ls-tree", "-r", "-z", "--long", strings.TrimSpace(string(head)))
	if err != nil || !strings.Contains(string(tree), "\ta.txt\x00") {
		t.Fatalf("ls-tree: %q %v", tree, err)
	}
	c, err := g.Command(ctx, "cat-file", "--batch")
	if err != nil {
		t.Fatal(err)
	}
	c.Stdin = strings.NewReader("HEAD:a.txt\n")
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	blob, _ := io.ReadAll(out)
	if err := p.Wait(); err != nil || !strings.HasSuffix(string(blob), "blob 4\none\n\n") {
		t.Errorf("cat-file: %q %v", blob, err)
	}
	if got := ran(t, marks); len(got) > 0 {
		t.Errorf("git ran the repository's programs: %s", strings.Join(got, " "))
	}
}

// A filter driver -c cannot name is refused, not run.
func TestUnnameableFilterIsRefused(t *testing.T) {
	g, marks := hostileRepo(t)
	set(t, g, "filter.x=y.clean", filepath.Join(marks, "never"))
	_, err := g.Diff(context.Background(), 1<<20, "HEAD")
	if err == nil || !strings.Contains(err.Error(), `filter driver cchub cannot switch off ("x=y"`) {
		t.Errorf("err = %v", err)
	}
}

// Without any filter configured, the read of the configuration is quiet.
func TestNoFilterDrivers(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	g := repo(t, "b.txt")
	f, err := g.filterDrivers(context.Background())
	if err != nil || len(f) != 0 {
		t.Errorf("filters %q, %v", f, err)
	}
}
