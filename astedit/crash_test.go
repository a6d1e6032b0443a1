package astedit

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"cchub/store"
	"cchub/workspace"
)

// The crash test's child: it commits the change named in its environment
// and, when told, kills itself with SIGKILL at the Nth step of the commit.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("ASTEDIT_CRASH_ROOT")
	if dir == "" {
		t.Skip("run by TestCommitSurvivesSIGKILL")
	}
	killAt, _ := strconv.Atoi(os.Getenv("ASTEDIT_CRASH_AT"))
	steps := 0
	crashPoint = func(string) {
		steps++
		if steps == killAt {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Commit(context.Background(), root, st, os.Getenv("ASTEDIT_CRASH_ID")); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("steps %d\n", steps)
}

// A commit killed with SIGKILL at any instant leaves, after recovery,
// every file of a 220-file change old or every file new: never a mix, no
// temporary file, and the change staged exactly when it was rolled back.
// Half the runs kill at a chosen step of the commit (spread over all of
// them); the other half at a random time from outside.
func TestCommitSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 60 processes")
	}
	const files, runs = 220, 60
	dir := t.TempDir()
	paths, old := tree(t, dir, files)
	// One file is deleted by the change and one is added, so both kinds
	// of step are crossed too.
	added := "pkgnew/added.go"
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	// journal opened + a temp per written file + renaming + a rename per
	// file (or deletion) + closed.
	totalSteps := 1 + files + 1 + files + 1
	outcomes := map[string]int{}
	for run := range runs {
		reset(t, dir, paths, old, added)
		root, st := openWSNoCleanup(t, dir)
		c, nw := changeAll(paths, old)
		c.Files[5].New = nil
		delete(nw, paths[5])
		c.Files = append(c.Files, FileEdit{Path: added, New: []byte("package pkgnew\n")})
		s, err := Stage(ctx, st, c)
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		root.Close()

		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "ASTEDIT_CRASH_ROOT="+dir, "ASTEDIT_CRASH_ID="+s.ID)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if run%2 == 0 {
			at := 1 + run*totalSteps/runs
			cmd.Env = append(cmd.Env, "ASTEDIT_CRASH_AT="+strconv.Itoa(at))
			err = cmd.Run()
		} else {
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
			cmd.Process.Signal(syscall.SIGKILL)
			err = cmd.Wait()
		}
		if err == nil && run%2 == 0 {
			t.Fatalf("run %d: the child was to be killed but finished:\n%s", run, out.String())
		}

		// The next start recovers.
		root, st = openWSNoCleanup(t, dir)
		if _, err := Recover(ctx, root, st); err != nil {
			t.Fatalf("run %d: recover: %v", run, err)
		}
		state := wholeState(t, dir, paths, old, nw, added)
		outcomes[state]++
		_, lerr := Load(ctx, st, s.ID)
		switch {
		case state == "old" && lerr != nil:
			t.Errorf("run %d: rolled back but the change is no longer staged: %v", run, lerr)
		case state == "new" && lerr == nil:
			t.Errorf("run %d: finished but the change is still staged", run)
		}
		if js, _ := st.Journals(ctx); len(js) != 0 {
			t.Errorf("run %d: journal left open: %+v", run, js)
		}
		if Pending(root) {
			t.Errorf("run %d: the journal's marker is left after recovery", run)
		}
		assertNoTemps(t, dir)
		Discard(ctx, st, s.ID)
		st.Close()
		root.Close()
		if t.Failed() {
			t.Fatalf("run %d failed; child said:\n%s", run, out.String())
		}
	}
	t.Logf("after %d kills: %v", runs, outcomes)
	if outcomes["old"] == 0 || outcomes["new"] == 0 {
		t.Errorf("the kills never landed on one side of the point of no return: %v", outcomes)
	}
}

func openWSNoCleanup(t testing.TB, dir string) (*workspace.Root, *store.Store) {
	t.Helper()
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return root, st
}

// reset puts the tree back to old.
func reset(t *testing.T, dir string, paths []string, old map[string][]byte, added string) {
	t.Helper()
	for _, p := range paths {
		if err := os.WriteFile(filepath.Join(dir, p), old[p], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.RemoveAll(filepath.Join(dir, filepath.Dir(added)))
}

// wholeState is "old" or "new" when every file is so, and fails the test
// on a mix.
func wholeState(t *testing.T, dir string, paths []string, old, nw map[string][]byte, added string) string {
	t.Helper()
	var olds, news []string
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(dir, p))
		want, inNew := nw[p]
		switch {
		case err != nil && !inNew && os.IsNotExist(err):
			news = append(news, p) // deleted by the change
		case err != nil:
			t.Fatal(err)
		case bytes.Equal(data, old[p]):
			olds = append(olds, p)
		case inNew && bytes.Equal(data, want):
			news = append(news, p)
		default:
			t.Fatalf("%s is neither old nor new: %q", p, data)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, added)); err == nil && string(data) == "package pkgnew\n" {
		news = append(news, added)
	} else {
		olds = append(olds, added)
	}
	switch {
	case len(news) == 0:
		return "old"
	case len(olds) == 0:
		return "new"
	}
	t.Fatalf("a mix: %d files old (%v …), %d new (%v …)", len(olds), olds[0], len(news), news[0])
	return ""
}
