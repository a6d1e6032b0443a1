package hub

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/store"
	"cchub/trust"
	"cchub/workspace"
)

// gitIn runs git in dir, failing the test if it fails.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// shippedRepo is a repository that commits a .cchub made by cchub itself
// (another user's, in another workspace) whose commit journal holds a
// change past its point of no return: it deletes victim.txt and renames
// payload over g/HEAD, where g is a symlink to .git. writer "" leaves the
// row without a writer, as a database from before writers were recorded
// has it (the rows the store counts as the user's own).
func shippedRepo(t *testing.T) string {
	t.Helper()
	wstest := os.Getenv(trust.EnvDir)
	src := filepath.Join(t.TempDir(), "upstream")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, src, "init", "-q")
	for name, data := range map[string]string{"victim.txt": "keep me\n", "payload": "ref: refs/heads/evil\n", "main.go": "package main\n\nfunc main() {}\n"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".git", filepath.Join(src, "g")); err != nil {
		t.Fatal(err)
	}
	// The other user's cchub makes the database.
	os.Setenv(trust.EnvDir, t.TempDir())
	root, err := workspace.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	plan := `{"files":[{"path":"victim.txt","delete":true},{"path":"g/HEAD","temp":"payload"}]}`
	if err := st.OpenJournal(ctx, "evil", plan); err != nil {
		t.Fatal(err)
	}
	if err := st.JournalRenaming(ctx, "evil"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().ExecContext(ctx, `UPDATE commit_journal SET writer = NULL`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	root.Close()
	os.Setenv(trust.EnvDir, wstest)
	// Shipped as a repository would ship it: no stamp, no .gitignore,
	// the marker of an open journal.
	for _, name := range []string{workspace.StampFile, ".gitignore"} {
		if err := os.Remove(filepath.Join(src, ".cchub", name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, ".cchub", workspace.JournalMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, src, "add", "-A")
	gitIn(t, src, "commit", "-qm", "ship a .cchub")
	if out := gitIn(t, src, "ls-files", ".cchub"); !strings.Contains(out, "cchub.db") || !strings.Contains(out, workspace.JournalMarker) {
		t.Fatalf("the database and the marker are not committed: %q", out)
	}
	return src
}

// cloneOf clones src into a fresh directory.
func cloneOf(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "clone")
	gitIn(t, filepath.Dir(dst), "clone", "-q", src, dst)
	return dst
}

// files reads every file under dir (symlinks not followed), by path.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

// The first commands of a fresh clone of a repository that ships a .cchub
// with an interrupted commit in its journal do not obey it: the commit is
// not rolled forward (victim.txt and .git/HEAD stay), nothing in the
// shipped .cchub changes, the commands work with the state kept in the
// user's private directory, and each says so on stderr.
func TestClonedStateIsNotObeyed(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	cchub := buildCchub(t)
	src := shippedRepo(t)
	for _, name := range []string{"with the journal's marker", "without it"} {
		t.Run(name, func(t *testing.T) {
			ws := cloneOf(t, src)
			why := "unfinished commit journal"
			if name == "without it" {
				if err := os.Remove(filepath.Join(ws, ".cchub", workspace.JournalMarker)); err != nil {
					t.Fatal(err)
				}
				why = "git tracks it"
			}
			head, err := os.ReadFile(filepath.Join(ws, ".git", "HEAD"))
			if err != nil {
				t.Fatal(err)
			}
			shipped := files(t, filepath.Join(ws, ".cchub"))
			status := gitIn(t, ws, "status", "--porcelain")
			for _, args := range [][]string{{"grep", "keep"}, {"staged"}, {"grep", "main"}} {
				cmd := exec.Command(cchub, args...)
				cmd.Dir = ws
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("cchub %v: %v\n%s%s", args, err, stdout.String(), stderr.String())
				}
				if args[0] == "grep" && !strings.Contains(stdout.String(), args[1]) {
					t.Errorf("cchub %v found nothing:\n%s", args, stdout.String())
				}
				if args[0] == "staged" && !strings.Contains(stdout.String(), "no staged changes") {
					t.Errorf("cchub staged listed the shipped state:\n%s", stdout.String())
				}
				msg := stderr.String()
				if strings.Count(msg, ".cchub here is not your cchub's state") != 1 || !strings.Contains(msg, why) || !strings.Contains(msg, "rm -rf .cchub") {
					t.Errorf("cchub %v said on stderr %q; want the notice once, saying %q and how to fix it", args, msg, why)
				}
				if b, err := os.ReadFile(filepath.Join(ws, "victim.txt")); err != nil || string(b) != "keep me\n" {
					t.Fatalf("after cchub %v, victim.txt: %q, %v", args, b, err)
				}
				if b, err := os.ReadFile(filepath.Join(ws, ".git", "HEAD")); err != nil || string(b) != string(head) {
					t.Fatalf("after cchub %v, .git/HEAD: %q, %v; was %q", args, b, err, head)
				}
				if _, err := os.Stat(filepath.Join(ws, "payload")); err != nil {
					t.Fatalf("after cchub %v, payload: %v", args, err)
				}
				if got := files(t, filepath.Join(ws, ".cchub")); len(got) != len(shipped) {
					t.Fatalf("after cchub %v the shipped .cchub holds %d files, had %d", args, len(got), len(shipped))
				} else {
					for p, data := range shipped {
						if got[p] != data {
							t.Fatalf("after cchub %v, %s changed", args, p)
						}
					}
				}
			}
			real, _ := filepath.EvalSymlinks(ws)
			private, err := workspace.FallbackStateDir(real)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(private, store.FileName)); err != nil {
				t.Errorf("cchub staged kept no database in the private state directory: %v", err)
			}
			if out := gitIn(t, ws, "status", "--porcelain"); out != status {
				t.Errorf("git status of the clone after the commands:\n%s\nbefore them:\n%s", out, status)
			}
		})
	}
}

// A hub on a workspace whose .cchub is not the user's tells each run the
// notice once, before its first result.
func TestStateNoticeOncePerRun(t *testing.T) {
	ws := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(ws, ".cchub")); err != nil {
		t.Fatal(err)
	}
	h := newTestHub(t, ws)
	if !strings.Contains(h.StateNotice(), "it is a symlink") {
		t.Fatalf("StateNotice %q", h.StateNotice())
	}
	a, b := NewRun(), NewRun()
	if n := h.Notice(a); !strings.Contains(n, h.StateNotice()) {
		t.Errorf("first Notice of a run: %q", n)
	}
	if n := h.Notice(a); n != "" {
		t.Errorf("second Notice of a run: %q, want nothing", n)
	}
	if n := h.Notice(b); n == "" {
		t.Error("another run was not told")
	}
	if n := newTestHub(t, t.TempDir()).Notice(a); n != "" {
		t.Errorf("a workspace without .cchub: notice %q", n)
	}
}
