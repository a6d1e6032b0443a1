package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitRepo makes dir a real repository (git init) with a .cchub state
// directory beside .git, each holding a few files and an empty directory
// for the tests to aim at, and returns the file a planted
// core.fsmonitor would create when git runs it.
func gitRepo(t *testing.T, dir string) (marker string) {
	t.Helper()
	git(t, dir, "init", "-q", ".")
	for _, d := range []string{".git", StateDir} {
		writeFile(t, filepath.Join(dir, d, "planted"), "a temp left here\n", 0o644)
		writeFile(t, filepath.Join(dir, d, "description"), "keep\n", 0o644)
		if err := os.MkdirAll(filepath.Join(dir, d, "emptydir"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, StateDir, "state.db"), "state\n", 0o644)
	return filepath.Join(t.TempDir(), "fsmonitor-ran")
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; install git to run this test")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil && args[0] != "status" {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// fsmonitorConfig is what an attacker would put in .git/config: git runs
// core.fsmonitor, through the shell, at the next git status.
func fsmonitorConfig(marker string) []byte {
	return []byte(fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s; true\"\n", marker))
}

// protectedSnapshot lists everything under dir/.git and dir/.cchub: name,
// type, mode, link target and content hash.
func protectedSnapshot(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, d := range []string{".git", StateDir} {
		filepath.WalkDir(filepath.Join(dir, d), func(p string, e fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(dir, p)
			if err != nil {
				out = append(out, rel+": "+err.Error())
				return nil
			}
			st, err := os.Lstat(p)
			if err != nil {
				out = append(out, rel+": "+err.Error())
				return nil
			}
			line := fmt.Sprintf("%s %v", rel, st.Mode())
			switch {
			case st.Mode()&fs.ModeSymlink != 0:
				l, _ := os.Readlink(p)
				line += " -> " + l
			case st.Mode().IsRegular():
				data, _ := os.ReadFile(p)
				sum := sha256.Sum256(data)
				line += " " + hex.EncodeToString(sum[:8])
			}
			out = append(out, line)
			return nil
		})
	}
	return out
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// protectedOps are the changes package workspace makes, each aimed at a
// file in the directory p names; every one must be refused (RemoveDirs
// returns nothing: the directory must still be there).
func protectedOps(r *Root, p, file string, data []byte) map[string]func() error {
	return map[string]func() error{
		"WriteFile existing": func() error { _, err := r.WriteFile(p+"/"+file, data, 0o644); return err },
		"WriteFile new":      func() error { _, err := r.WriteFile(p+"/hooks-new", data, 0o755); return err },
		"WriteFile mkdir":    func() error { _, err := r.WriteFile(p+"/newdir/deeper/f", data, 0o644); return err },
		"WriteTarget":        func() error { _, err := r.WriteTarget(p + "/" + file); return err },
		"WriteTemp":          func() error { _, err := r.WriteTemp(TempBeside(p+"/"+file, "t1"), data, 0o644); return err },
		"RenameInto":         func() error { return r.RenameInto(p+"/planted", p+"/"+file) },
		"RemoveFile":         func() error { return r.RemoveFile(p + "/description") },
		"RemoveSynced":       func() error { return r.RemoveSynced(p + "/description") },
		"RemoveDirs":         func() error { r.RemoveDirs([]string{p + "/emptydir"}); return ErrProtected },
	}
}

// Every change through a symlinked directory that resolves into .git or
// .cchub is refused, however the link is made: to the directory, to a
// directory inside it, relative from a subdirectory, through another
// link, absolute, or by a name that differs only in case. Nothing under
// either changes, and the core.fsmonitor the writes tried to plant never
// runs.
func TestWritesThroughSymlinksNeverReachGitOrState(t *testing.T) {
	dir := t.TempDir()
	marker := gitRepo(t, dir)
	symlink(t, ".git", filepath.Join(dir, "g"))
	symlink(t, ".git/hooks", filepath.Join(dir, "hooks"))
	symlink(t, StateDir, filepath.Join(dir, "st"))
	symlink(t, "../.git", filepath.Join(dir, "sub", "x"))
	symlink(t, "../g", filepath.Join(dir, "sub", "y"))             // a link to a link
	symlink(t, "../../st", filepath.Join(dir, "sub", "deep", "s")) // nested, to a link to .cchub
	symlink(t, filepath.Join(dir, ".git"), filepath.Join(dir, "abs"))
	symlink(t, ".GIT", filepath.Join(dir, "G"))   // the same directory where case folds
	symlink(t, ".Cchub", filepath.Join(dir, "C")) // likewise
	r := openTestRoot(t, dir)
	before := protectedSnapshot(t, dir)
	data := fsmonitorConfig(marker)

	targets := map[string]string{
		"g": "config", "sub/x": "config", "sub/y": "config", "abs": "config", "G": "config",
		"st": "state.db", "sub/deep/s": "state.db", "C": "state.db",
	}
	for p, file := range targets {
		for name, op := range protectedOps(r, p, file, data) {
			if err := op(); !errors.Is(err, ErrProtected) {
				t.Errorf("%s through %s: err = %v, want ErrProtected", name, p, err)
			}
		}
	}
	// hooks -> .git/hooks: a new hook is the first thing an attacker adds.
	for _, p := range []string{"hooks/pre-commit", "hooks/sub/pre-commit"} {
		if _, err := r.WriteFile(p, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); !errors.Is(err, ErrProtected) {
			t.Errorf("WriteFile %s: err = %v, want ErrProtected", p, err)
		}
	}
	// The message says where the path leads and what to do instead.
	_, err := r.WriteFile("g/config", data, 0o644)
	for _, want := range []string{"g/config resolves to .git/config, inside .git", "git runs its hooks", "use git itself"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("g/config: err = %v, want it to say %q", err, want)
		}
	}
	_, err = r.WriteFile("st/state.db", data, 0o644)
	if err == nil || !strings.Contains(err.Error(), "st/state.db resolves to .cchub/state.db, inside .cchub") {
		t.Errorf("st/state.db: err = %v, want it to say where it resolves", err)
	}

	if after := protectedSnapshot(t, dir); !slices.Equal(before, after) {
		t.Errorf("a write changed .git or .cchub:\nbefore %q\nafter  %q", before, after)
	}
	git(t, dir, "status")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the planted core.fsmonitor ran: a write reached .git/config")
	}
}

// The check can fail: the same config written straight into .git/config
// makes git status run the marker command.
func TestPlantedFsmonitorRunsWhenWritten(t *testing.T) {
	dir := t.TempDir()
	marker := gitRepo(t, dir)
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), fsmonitorConfig(marker), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "status")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("git status did not run core.fsmonitor (%v): the other test's check of the marker proves nothing", err)
	}
}

// A symlink as the file's own name is followed by a write only to a file
// it may write: cfg -> .git/config (directly, through a linked directory,
// through a chain of links, absolute) is refused and .git/config kept.
// Removing or renaming over such a link changes the link, not .git.
func TestFinalSymlinkIntoGitIsNotWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	marker := gitRepo(t, dir)
	symlink(t, ".git", filepath.Join(dir, "g"))
	symlink(t, StateDir, filepath.Join(dir, "st"))
	symlink(t, ".git/config", filepath.Join(dir, "cfg"))
	symlink(t, "g/config", filepath.Join(dir, "cfg2"))
	symlink(t, "cfg2", filepath.Join(dir, "cfg3"))
	symlink(t, "../cfg3", filepath.Join(dir, "sub", "cfg4"))
	symlink(t, filepath.Join(dir, "g", "config"), filepath.Join(dir, "cfg5"))
	symlink(t, "st/state.db", filepath.Join(dir, "stf"))
	symlink(t, ".GIT/config", filepath.Join(dir, "cfg6"))
	r := openTestRoot(t, dir)
	before := protectedSnapshot(t, dir)
	data := fsmonitorConfig(marker)
	for _, p := range []string{"cfg", "cfg2", "cfg3", "sub/cfg4", "cfg5", "stf", "cfg6"} {
		if _, err := r.WriteFile(p, data, 0o644); !errors.Is(err, ErrProtected) {
			t.Errorf("WriteFile %s: err = %v, want ErrProtected", p, err)
		}
		if _, err := r.WriteTarget(p); !errors.Is(err, ErrProtected) {
			t.Errorf("WriteTarget %s: err = %v, want ErrProtected", p, err)
		}
	}
	if after := protectedSnapshot(t, dir); !slices.Equal(before, after) {
		t.Fatalf("a write changed .git or .cchub:\nbefore %q\nafter  %q", before, after)
	}
	// A two-phase write replaces the link itself: its temp is beside the
	// link, and the rename puts a regular file where the link was.
	if _, err := r.WriteTemp(TempBeside("sub/cfg4", "t"), []byte("plain\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.RenameInto(TempBeside("sub/cfg4", "t"), "sub/cfg4"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(filepath.Join(dir, "sub", "cfg4")); err != nil || !st.Mode().IsRegular() {
		t.Errorf("sub/cfg4 after RenameInto: %v, %v; want a regular file", st, err)
	}
	if err := r.RemoveFile("cfg"); err != nil {
		t.Errorf("removing the link cfg: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "cfg")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("cfg is still there: %v", err)
	}
	if after := protectedSnapshot(t, dir); !slices.Equal(before, after) {
		t.Errorf("replacing or removing a link changed .git or .cchub:\nbefore %q\nafter  %q", before, after)
	}
	git(t, dir, "status")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the planted core.fsmonitor ran")
	}
}

// A directory is judged by what it is, not by its name: when .git is a
// symlink to another directory of the workspace (git follows it), that
// directory is the repository's and is not written, though no name on
// the way says .git.
func TestGitDirKnownByIdentity(t *testing.T) {
	dir := t.TempDir()
	marker := gitRepo(t, dir)
	if err := os.Rename(filepath.Join(dir, ".git"), filepath.Join(dir, "gitstore")); err != nil {
		t.Fatal(err)
	}
	symlink(t, "gitstore", filepath.Join(dir, ".git"))
	symlink(t, "gitstore", filepath.Join(dir, "plain"))
	git(t, dir, "status") // git still finds its repository
	r := openTestRoot(t, dir)
	before := readString(t, filepath.Join(dir, "gitstore", "config"))
	for _, p := range []string{"gitstore", "plain"} {
		for name, op := range protectedOps(r, p, "config", fsmonitorConfig(marker)) {
			if err := op(); !errors.Is(err, ErrProtected) {
				t.Errorf("%s in %s: err = %v, want ErrProtected", name, p, err)
			}
		}
	}
	_, err := r.WriteFile("gitstore/config", []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), "would be written in .git or a directory inside it") {
		t.Errorf("gitstore/config: err = %v, want it to say the directory is .git's", err)
	}
	if after := readString(t, filepath.Join(dir, "gitstore", "config")); after != before {
		t.Errorf("gitstore/config changed to %q", after)
	}
	for _, p := range []string{"planted", "description", "emptydir"} {
		if _, err := os.Lstat(filepath.Join(dir, "gitstore", p)); err != nil {
			t.Errorf("gitstore/%s: %v", p, err)
		}
	}
	git(t, dir, "status")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the planted core.fsmonitor ran")
	}
}

// A directory swapped for a symlink into .git after the path was checked
// is still refused: the directory opened is the one tested. The swap is
// made at the one moment between the check and the open (a test hook),
// for every kind of change.
func TestSwapAfterCheckIsRefused(t *testing.T) {
	dir := t.TempDir()
	gitRepo(t, dir)
	r := openTestRoot(t, dir)
	d := filepath.Join(dir, "d")
	before := protectedSnapshot(t, dir)
	t.Cleanup(func() { afterCheck = nil })
	ops := protectedOps(r, "d", "config", []byte("x"))
	for name, op := range ops {
		os.Remove(d)
		os.RemoveAll(d + ".real")
		// A real directory holding what the operations aim at, so the
		// checks before the swap pass.
		for _, f := range []string{"config", "planted", "description", ".config.cchub-t1"} {
			writeFile(t, filepath.Join(d, f), "x\n", 0o644)
		}
		os.MkdirAll(filepath.Join(d, "emptydir"), 0o755)
		swapped := false
		afterCheck = func(string) {
			if swapped {
				return
			}
			swapped = true
			if err := os.Rename(d, d+".real"); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(".git", d); err != nil {
				t.Error(err)
			}
		}
		err := op()
		afterCheck = nil
		if !swapped {
			t.Errorf("%s: never opened a directory after its check", name)
		}
		if !errors.Is(err, ErrProtected) {
			t.Errorf("%s with d swapped for a link to .git: err = %v, want ErrProtected", name, err)
		}
	}
	if after := protectedSnapshot(t, dir); !slices.Equal(before, after) {
		t.Errorf("a write changed .git or .cchub:\nbefore %q\nafter  %q", before, after)
	}
}

// What is not .git is written as before: names like it, links to other
// directories, deep directories, and a directory that cannot be listed
// (only entered and written).
func TestWritesBesideGitStillWork(t *testing.T) {
	dir := t.TempDir()
	gitRepo(t, dir)
	symlink(t, "real", filepath.Join(dir, "lib"))
	if err := os.MkdirAll(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "wx"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := openTestRoot(t, dir)
	for _, p := range []string{"top.txt", ".gitignore", ".github/workflows/ci.yml", "git/x", ".git2/x", "x.git/y", ".cchubx/y", "lib/a.txt", "lib/n/b.txt", "a/b/c/d/e/f.txt", "wx/f.txt"} {
		if p == "wx/f.txt" {
			os.Chmod(filepath.Join(dir, "wx"), 0o333)
			t.Cleanup(func() { os.Chmod(filepath.Join(dir, "wx"), 0o755) })
		}
		if _, err := r.WriteFile(p, []byte(p+"\n"), 0o644); err != nil {
			t.Errorf("WriteFile %s: %v", p, err)
			continue
		}
		if got := readString(t, filepath.Join(r.Dir(), p)); got != p+"\n" {
			t.Errorf("%s holds %q", p, got)
		}
	}
	if _, err := r.WriteTemp(TempBeside("lib/a.txt", "t"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.RenameInto(TempBeside("lib/a.txt", "t"), "lib/a.txt"); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveSynced("lib/n/b.txt"); err != nil {
		t.Fatal(err)
	}
	r.RemoveDirs([]string{"lib/n"})
	if _, err := os.Stat(filepath.Join(dir, "real", "n")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("RemoveDirs lib/n left real/n: %v", err)
	}
}

// OpenFile is for reading; a change must take the checked way.
func TestOpenFileRefusesWriting(t *testing.T) {
	dir := t.TempDir()
	r := openTestRoot(t, dir)
	for _, flag := range []int{os.O_WRONLY, os.O_RDWR, os.O_RDONLY | os.O_CREATE, os.O_RDONLY | os.O_TRUNC, os.O_WRONLY | os.O_APPEND} {
		if f, err := r.OpenFile("f", flag, 0o644); err == nil {
			f.Close()
			t.Errorf("OpenFile with flag %#x opened for writing", flag)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "f")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFile created f: %v", err)
	}
}

// A file with several hard links is written in place, so the content
// reaches every name: one inside .git (a tarball or another process made
// it; a clone cannot) makes the write a refusal, and .git/config stays.
func TestHardLinkIntoGitIsNotWritten(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, ".git", "config")
	os.WriteFile(cfg, []byte("[core]\n"), 0o644)
	if err := os.Link(cfg, filepath.Join(dir, "notes.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755)
	os.Link(hook, filepath.Join(dir, "hook.sh"))
	// An ordinary pair of hard links outside .git is still written in place.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	os.Link(filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"))
	root, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range []string{"notes.txt", "hook.sh"} {
		_, err := root.WriteFile(name, []byte("[core]\n\tfsmonitor = touch pwned\n"), 0o644)
		if !errors.Is(err, ErrProtected) || !strings.Contains(err.Error(), "is a hard link of .git/") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if data, _ := os.ReadFile(cfg); string(data) != "[core]\n" {
		t.Errorf(".git/config changed: %q", data)
	}
	if data, _ := os.ReadFile(hook); string(data) != "#!/bin/sh\n" {
		t.Errorf("the hook changed: %q", data)
	}
	if _, err := root.WriteFile("a.txt", []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(data) != "changed\n" {
		t.Errorf("an ordinary hard link was split: b.txt = %q", data)
	}
}
