package textedit

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace/wstest"
)

// TestUnifiedDiffIsRefusedWithTheSameChangeInPatchFormat: a model that
// sends git diff's output to apply_patch changes nothing, and the error
// holds the same change in apply_patch's format, which then applies.
func TestUnifiedDiffIsRefusedWithTheSameChangeInPatchFormat(t *testing.T) {
	root, files := patchRoot(t)
	// A real git diff of a real change: one file changed, one added.
	git, err := exec.LookPath("git")
	wstest.RequirePeer(t, "git (apt-get install git)", err == nil)
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q")
	os.MkdirAll(filepath.Join(dir, "py"), 0o755)
	os.WriteFile(filepath.Join(dir, "py", "colorsys.py"), []byte(files["py/colorsys.py"]), 0o644)
	run("add", ".")
	run("commit", "-qm", "base")
	changed := strings.Replace(files["py/colorsys.py"], "        return l, l, l\n", "        return (l, l, l)\n", 1)
	os.WriteFile(filepath.Join(dir, "py", "colorsys.py"), []byte(changed), 0o644)
	os.WriteFile(filepath.Join(dir, "py", "new.py"), []byte("x = 1\ny = 2\n"), 0o644)
	run("add", ".")
	diff := run("diff", "--cached")

	_, err = NewFiles(root).ApplyPatch(t.Context(), diff, nil, nil)
	if !errors.Is(err, ErrPatchSyntax) || !strings.Contains(err.Error(), "this is a unified diff") {
		t.Fatalf("unified diff: %v", err)
	}
	if got := readRel(t, root, "py/colorsys.py"); got != files["py/colorsys.py"] {
		t.Fatal("a refused patch changed a file")
	}
	i := strings.Index(err.Error(), beginPatch+"\n")
	if i < 0 {
		t.Fatalf("the error holds no patch:\n%v", err)
	}
	if _, err := NewFiles(root).ApplyPatch(t.Context(), err.Error()[i:], nil, nil); err != nil {
		t.Fatalf("the patch the error suggests fails: %v", err)
	}
	if got := readRel(t, root, "py/colorsys.py"); got != changed {
		t.Error("the suggested patch did not make the diff's change")
	}
	if got := readRel(t, root, "py/new.py"); got != "x = 1\ny = 2\n" {
		t.Errorf("added file = %q", got)
	}
}

// TestUnifiedDiffConversionIsNeverOfferedWhereItCouldMisplace: the cases
// where dropping a diff's line numbers could change the wrong lines, or a
// hunk could be read short, get no ready patch; a heading git clipped is
// not carried into the @@ line.
func TestUnifiedDiffConversionIsNeverOfferedWhereItCouldMisplace(t *testing.T) {
	root := newRoot(t)
	writeFile(t, root, "r.py", "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n")
	writeFile(t, root, "q.sql", "-- old comment\nselect 1;\n")
	writeFile(t, root, "long.go", "package p\n\nfunc aVeryLongFunctionNameThatGitClipsInItsHunkHeadings(first, second, third string) int {\n\tx := 1\n\treturn x\n}\n")
	files := NewFiles(root)
	for _, c := range []struct {
		name, diff, want string
		offered          bool
	}{
		{"repeated context", "--- a/r.py\n+++ b/r.py\n@@ -6,2 +6,2 @@\n-    x = 1\n+    x = 2\n     return x\n",
			"stand twice or more in r.py", false},
		{"a removed line that starts with --", "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1 @@\n--- old comment\n select 1;\n",
			"", true},
		{"a hunk shorter than its header", "--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,2 @@\n--- old comment\n select 1;\n",
			"could not be read whole", false},
		{"a clipped heading", "--- a/long.go\n+++ b/long.go\n@@ -4,2 +4,2 @@ func aVeryLongFunctionNameThatGitClipsInItsHunkHeadings(first, sec\n-\tx := 1\n+\tx := 2\n \treturn x\n",
			"", true},
	} {
		_, err := files.ApplyPatch(t.Context(), c.diff, nil, nil)
		ud := asUnifiedDiff(err)
		if ud == nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.want != "" && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error lacks %q:\n%v", c.name, c.want, err)
		}
		i := strings.Index(err.Error(), beginPatch+"\n")
		if (i >= 0) != c.offered {
			t.Errorf("%s: patch offered = %v:\n%v", c.name, i >= 0, err)
			continue
		}
		if i >= 0 {
			if _, err := files.ApplyPatch(t.Context(), err.Error()[i:], nil, nil); err != nil {
				t.Errorf("%s: the offered patch fails: %v", c.name, err)
			}
		}
	}
	if got := readRel(t, root, "q.sql"); got != "select 1;\n" {
		t.Errorf("q.sql = %q: the whole hunk, its -- line included, should have applied", got)
	}
	if got := readRel(t, root, "r.py"); strings.Contains(got, "x = 2") {
		t.Errorf("r.py changed: %q", got)
	}
	if got := readRel(t, root, "long.go"); !strings.Contains(got, "\tx := 2\n") {
		t.Errorf("long.go = %q", got)
	}
}
