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

	_, err = NewFiles(root).ApplyPatch(diff, nil)
	if !errors.Is(err, ErrPatchSyntax) || !strings.Contains(err.Error(), "this is a unified diff") {
		t.Fatalf("unified diff: %v", err)
	}
	if got := readRel(t, root, "py/colorsys.py"); got != files["py/colorsys.py"] {
		t.Fatal("a refused patch changed a file")
	}
	i := strings.Index(err.Error(), beginPatch)
	if i < 0 {
		t.Fatalf("the error holds no patch:\n%v", err)
	}
	if _, err := NewFiles(root).ApplyPatch(err.Error()[i:], nil); err != nil {
		t.Fatalf("the patch the error suggests fails: %v", err)
	}
	if got := readRel(t, root, "py/colorsys.py"); got != changed {
		t.Error("the suggested patch did not make the diff's change")
	}
	if got := readRel(t, root, "py/new.py"); got != "x = 1\ny = 2\n" {
		t.Errorf("added file = %q", got)
	}
}
