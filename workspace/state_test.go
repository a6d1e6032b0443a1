package workspace

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/trust"
)

// The rule itself, with the facts a test cannot make (another user's
// directory: a non-root test cannot own a file by another uid) given.
func TestDecideState(t *testing.T) {
	const me, want = 1000, "stamp"
	yes := func(string) (bool, error) { return true, nil }
	no := func(string) (bool, error) { return false, nil }
	broken := func(string) (bool, error) { return false, errors.New("git broke") }
	dir := stateFacts{exists: true, dir: true, uid: me, myUID: me, want: want}
	with := func(f func(*stateFacts)) stateFacts { g := dir; f(&g); return g }
	for _, c := range []struct {
		name  string
		facts stateFacts
		want  stateVerdict
		why   string
	}{
		{"absent", stateFacts{myUID: me, want: want}, stateNew, ""},
		{"symlink", with(func(f *stateFacts) { f.symlink, f.dir = true, false }), stateForeign, "symlink"},
		{"a file", with(func(f *stateFacts) { f.dir = false }), stateForeign, "not a directory"},
		{"another uid, stamped right", with(func(f *stateFacts) { f.uid, f.stamped, f.stamp = 1001, true, want }), stateForeign, "uid 1001"},
		{"another uid, empty", with(func(f *stateFacts) { f.uid, f.empty = 1001, true }), stateForeign, "uid 1001"},
		{"no owners on the system", with(func(f *stateFacts) { f.uid, f.stamped, f.stamp = -1, true, want }), stateOurs, ""},
		{"stamped by me", with(func(f *stateFacts) { f.stamped, f.stamp, f.tracked = true, want, yes }), stateOurs, ""},
		{"stamped for another path", with(func(f *stateFacts) { f.stamped, f.stamp = true, "other" }), stateForeign, "stamp"},
		{"empty", with(func(f *stateFacts) { f.empty, f.hasGit = true, true }), stateAdopt, ""},
		{"unstamped with a journal", with(func(f *stateFacts) { f.marker, f.tracked = true, no }), stateForeign, "commit journal"},
		{"unstamped, tracked", with(func(f *stateFacts) { f.tracked = yes }), stateForeign, "git tracks it"},
		{"unstamped, git fails", with(func(f *stateFacts) { f.tracked = broken }), stateForeign, "git broke"},
		{"unstamped, untracked", with(func(f *stateFacts) { f.tracked = no }), stateAdopt, ""},
		{"unstamped, no one to ask, .git", with(func(f *stateFacts) { f.hasGit = true }), stateForeign, "could not ask git"},
		{"unstamped, no one to ask, no .git", dir, stateAdopt, ""},
	} {
		got, why := decideState(c.facts)
		if got != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%s: %v (%q), want %v (%q)", c.name, got, why, c.want, c.why)
		}
	}
}

func openStateRoot(t *testing.T, dir string, tracked TrackedFunc) *Root {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tracked != nil {
		r.CheckTrackedWith(tracked)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// myStamp is this test process's stamp for dir.
func myStamp(t *testing.T, dir string) string {
	t.Helper()
	id, err := trust.ID()
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Stamp(id, real)
}

// touchState makes a file in the state directory, as cchub's store does.
func touchState(t *testing.T, r *Root, name string) {
	t.Helper()
	d, err := r.OpenStateDir("")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.WriteFile(name, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stateSnapshot is every file under dir with its content, for "nothing in it
// changed".
func stateSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func sameSnapshot(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A workspace without .cchub gets one, stamped with this user's stamp for
// its path and ignored by git, and no notice.
func TestStateDirIsMadeStamped(t *testing.T) {
	dir := t.TempDir()
	r := openStateRoot(t, dir, nil)
	touchState(t, r, "db")
	got, err := os.ReadFile(filepath.Join(dir, ".cchub", StampFile))
	if err != nil || strings.TrimSpace(string(got)) != myStamp(t, dir) {
		t.Fatalf("stamp %q (%v), want %s", got, err, myStamp(t, dir))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".cchub", ".gitignore")); string(b) != "*\n" {
		t.Errorf(".gitignore is %q", b)
	}
	if !r.StateInWorkspace() || r.StateNotice() != "" {
		t.Errorf("in workspace %v, notice %q", r.StateInWorkspace(), r.StateNotice())
	}
	if _, err := os.Stat(filepath.Join(dir, ".cchub", "db")); err != nil {
		t.Fatal(err)
	}
	// The next process finds it its own.
	r2 := openStateRoot(t, dir, func(string) (bool, error) { t.Error("git was asked of a stamped .cchub"); return true, nil })
	if !r2.StateInWorkspace() || r2.StateNotice() != "" {
		t.Errorf("reopened: in workspace %v, notice %q", r2.StateInWorkspace(), r2.StateNotice())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("the root holds %d entries, want .cchub only (no leftover of its making)", len(ents))
	}
}

// foreign checks that r keeps its state outside dir, private, says why,
// and leaves everything in dir/.cchub as it was.
func foreign(t *testing.T, dir string, r *Root, why string) {
	t.Helper()
	before := stateSnapshot(t, filepath.Join(dir, ".cchub"))
	touchState(t, r, "db")
	if _, err := r.OpenStateDir("locks"); err != nil {
		t.Fatal(err)
	}
	if r.StateInWorkspace() {
		t.Fatal("a foreign .cchub was used")
	}
	if n := r.StateNotice(); !strings.Contains(n, why) || !strings.Contains(n, "rm -rf .cchub") {
		t.Errorf("notice %q does not say %q and how to fix it", n, why)
	}
	state, err := r.StatePath()
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(state); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("private state dir %s: %v %v, want mode 0700", state, st.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(state, "db")); err != nil {
		t.Errorf("the state file is not in %s: %v", state, err)
	}
	if after := stateSnapshot(t, filepath.Join(dir, ".cchub")); !sameSnapshot(before, after) {
		t.Errorf("the foreign .cchub changed:\n%v\n->\n%v", before, after)
	}
}

// A .cchub that is a symlink leads nowhere: nothing is written where it
// points.
func TestSymlinkedStateDirIsForeign(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, ".cchub")); err != nil {
		t.Fatal(err)
	}
	r := openStateRoot(t, dir, nil)
	foreign(t, dir, r, "it is a symlink")
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("the link's target got %d entries", len(ents))
	}
}

// A stamped .cchub copied from another workspace (or moved, or of another
// user) is not this one's.
func TestCopiedStateDirIsForeign(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	touchState(t, openStateRoot(t, a, nil), "db")
	if err := os.CopyFS(filepath.Join(b, ".cchub"), os.DirFS(filepath.Join(a, ".cchub"))); err != nil {
		t.Fatal(err)
	}
	foreign(t, b, openStateRoot(t, b, nil), "stamp is not yours")
}

// An unstamped .cchub of this user's that git does not track (one an
// earlier cchub made) is adopted: stamped and used.
func TestUnstampedUntrackedStateDirIsAdopted(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".cchub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".cchub", "cchub.db"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	asked := false
	r := openStateRoot(t, dir, func(rel string) (bool, error) { asked = rel == ".cchub"; return false, nil })
	touchState(t, r, "db")
	if !r.StateInWorkspace() || r.StateNotice() != "" || !asked {
		t.Fatalf("in workspace %v, notice %q, git asked %v", r.StateInWorkspace(), r.StateNotice(), asked)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".cchub", StampFile)); strings.TrimSpace(string(got)) != myStamp(t, dir) {
		t.Errorf("stamp %q after adoption", got)
	}
}

// An unstamped .cchub holding a journal marker is never adopted: that is
// a planted commit, whatever git says.
func TestUnstampedStateDirWithJournalIsForeign(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".cchub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".cchub", JournalMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	foreign(t, dir, openStateRoot(t, dir, func(string) (bool, error) { return false, nil }), "unfinished commit journal")
}

// A .cchub that git tracks (a clone brought it) is foreign; asked of real
// git.
func TestTrackedStateDirIsForeign(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q")
	if err := os.MkdirAll(filepath.Join(dir, ".cchub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".cchub", "cchub.db"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", ".cchub")
	run("commit", "-qm", "ship state")
	tracked := func(rel string) (bool, error) { return run("ls-files", "-z", "--", rel) != "", nil }
	foreign(t, dir, openStateRoot(t, dir, tracked), "git tracks it")
	// Without anyone to ask git, a root with .git does not adopt either.
	foreign(t, dir, openStateRoot(t, dir, nil), "could not ask git")
}

// A .cchub put in the place of the one chosen, after the choice, is not
// written to.
func TestStateDirReplacedAfterTheChoiceIsRefused(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	r := openStateRoot(t, dir, nil)
	touchState(t, r, "db")
	touchState(t, openStateRoot(t, other, nil), "db")
	if err := os.Rename(filepath.Join(dir, ".cchub"), filepath.Join(t.TempDir(), "gone")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(other, ".cchub"), filepath.Join(dir, ".cchub")); err != nil {
		t.Fatal(err)
	}
	before := stateSnapshot(t, filepath.Join(dir, ".cchub"))
	if d, err := r.OpenStateDir("locks"); err == nil || !strings.Contains(err.Error(), "replaced") {
		if d != nil {
			d.Close()
		}
		t.Fatalf("OpenStateDir after a swap: %v, want a refusal", err)
	}
	if after := stateSnapshot(t, filepath.Join(dir, ".cchub")); !sameSnapshot(before, after) {
		t.Error("the swapped-in .cchub changed")
	}
}

// Processes starting at once in a fresh workspace all find the one .cchub
// that the first made, stamped, and leave nothing of their own attempts.
func TestStateDirMadeByManyAtOnce(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	errs := make(chan error, n)
	for range n {
		r := openStateRoot(t, dir, nil)
		go func() {
			d, err := r.OpenStateDir("locks")
			if err == nil {
				d.Close()
				if !r.StateInWorkspace() || r.StateNotice() != "" {
					err = errors.New("a root did not use the workspace's .cchub: " + r.StateNotice())
				}
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != ".cchub" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the root holds %v, want .cchub only", names)
	}
}
