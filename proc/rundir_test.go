package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A sweep removes exactly the run directories of this user whose owner
// is gone (a pid that no longer runs, or runs as another process), and
// the old debug binaries of earlier builds; it keeps a live owner's, any
// other user's, and anything not shaped like its own.
func TestSweepRunDirsRemovesOnlyTheGone(t *testing.T) {
	tmp := t.TempDir()
	uid := os.Getuid()
	live, err := MakeRunDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(live), fmt.Sprintf("cchub-run-%d-%d-", uid, os.Getpid())) {
		t.Fatalf("run directory %s is not named for its owner", live)
	}
	if info, _ := os.Stat(live); info.Mode().Perm() != 0o700 {
		t.Fatalf("run directory mode %v, want 0700", info.Mode().Perm())
	}
	write(t, filepath.Join(live, "debug-1"), "live owner's binary")

	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	start, err := startTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	mkdir := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(p, "debug-2"), "a killed owner's binary")
		return p
	}
	gone := []string{
		mkdir(fmt.Sprintf("cchub-run-%d-%d-%d-11", uid, dead.Process.Pid, start)), // exited
		mkdir(fmt.Sprintf("cchub-run-%d-%d-%d-12", uid, os.Getpid(), start+1)),    // pid reused
	}
	old := filepath.Join(tmp, "cchub-debug-1700000000000000000")
	write(t, old, "an earlier build's binary")
	dayAgo := time.Now().Add(-25 * time.Hour)
	os.Chtimes(old, dayAgo, dayAgo)

	kept := []string{
		live,
		mkdir(fmt.Sprintf("cchub-run-%d-%d-%d-13", uid+1, dead.Process.Pid, start)), // another user's name
		mkdir(fmt.Sprintf("cchub-run-%d-notapid-%d-14", uid, start)),
		mkdir(fmt.Sprintf("cchub-run-%d-%d", uid, dead.Process.Pid)), // no start time
		mkdir("cchub-run-elsewhere"),
	}
	// A file, and a link to a directory, named like a gone owner's
	// directory: neither is a run directory, and the link is not followed.
	asFile := filepath.Join(tmp, fmt.Sprintf("cchub-run-%d-%d-%d-15", uid, dead.Process.Pid, start))
	write(t, asFile, "not a directory")
	target := mkdir("link-target")
	link := filepath.Join(tmp, fmt.Sprintf("cchub-run-%d-%d-%d-16", uid, dead.Process.Pid, start))
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	young := filepath.Join(tmp, "cchub-debug-1700000000000000001") // a session may still run it
	write(t, young, "a running session's binary")
	notNanos := filepath.Join(tmp, "cchub-debug-x")
	write(t, notNanos, "someone else's")
	os.Chtimes(notNanos, dayAgo, dayAgo)
	kept = append(kept, asFile, link, target, young, notNanos)
	if os.Getuid() == 0 { // a directory of another user's, named as ours
		other := mkdir(fmt.Sprintf("cchub-run-%d-%d-%d-17", uid, dead.Process.Pid, start))
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, other)
	}

	// Processes marked as started for a gone owner's session are killed;
	// a live owner's, and a name that only begins the same, are not.
	// The second is marked with another path to the same directory.
	marked := []string{gone[0], filepath.Join("/elsewhere", filepath.Base(gone[1])), live, gone[0] + "0"}
	exited := make([]chan struct{}, len(marked))
	for i, m := range marked {
		c := exec.Command("sleep", "60")
		c.Env = append(os.Environ(), EnvRunDir+"="+m)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		exited[i] = make(chan struct{})
		go func() { c.Wait(); close(exited[i]) }()
		t.Cleanup(func() { c.Process.Kill(); <-exited[i] })
	}

	removed := SweepRunDirs(tmp)
	want := append(slices.Clone(gone), old)
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("swept %q, want %q", removed, want)
	}
	for _, p := range want {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(target, "debug-2")); err != nil {
		t.Errorf("the link's target was emptied: %v", err)
	}
	for i := range 2 {
		select {
		case <-exited[i]:
		case <-time.After(10 * time.Second):
			t.Errorf("the process marked %s outlived the sweep of its owner's directory", marked[i])
		}
	}
	for i := 2; i < len(marked); i++ {
		select {
		case <-exited[i]:
			t.Errorf("the process marked %s was killed", marked[i])
		default:
		}
	}
	if again := SweepRunDirs(tmp); len(again) != 0 {
		t.Errorf("a second sweep removed %q", again)
	}
	if got := SweepRunDirs(filepath.Join(tmp, "absent")); got != nil {
		t.Errorf("a sweep of a missing directory removed %q", got)
	}
}

// RunDir makes one directory per process in $TMPDIR, sweeping first;
// RemoveRunDir removes it; one removed by someone else is made again.
func TestRunDirIsMadeOnceSweptAndRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	RemoveRunDir()
	runDir.Lock()
	runDir.swept = false // this process's first sweep, in this TMPDIR
	runDir.Unlock()
	t.Cleanup(RemoveRunDir)
	start, err := startTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(tmp, fmt.Sprintf("cchub-run-%d-%d-%d-1", os.Getuid(), os.Getpid(), start+7))
	os.Mkdir(orphan, 0o700)

	dir, err := RunDir()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != tmp {
		t.Fatalf("run directory %s is not in TMPDIR %s", dir, tmp)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Error("the first RunDir did not sweep an orphan")
	}
	if again, _ := RunDir(); again != dir {
		t.Errorf("RunDir made %s, then %s", dir, again)
	}
	write(t, filepath.Join(dir, "f"), "x")
	os.RemoveAll(dir) // a person cleaning /tmp
	remade, err := RunDir()
	if err != nil || remade == dir {
		t.Fatalf("after removal RunDir = %s, %v; want a new directory", remade, err)
	}
	RemoveRunDir()
	if _, err := os.Stat(remade); err == nil {
		t.Errorf("RemoveRunDir left %s", remade)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("TMPDIR holds %d entries after RemoveRunDir", len(ents))
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
