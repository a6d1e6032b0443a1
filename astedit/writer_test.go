package astedit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/store"
)

// plantJournal writes, into the workspace's own state, a journal row past
// the point of no return that deletes victim.txt, with the marker, as an
// interrupted commit leaves them; writer says whose row it is ("" keeps
// this user's).
func plantJournal(t *testing.T, dir, writer string) (*store.Store, func() ([]Recovered, error)) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "victim.txt"), []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, st := openWS(t, dir)
	ctx := context.Background()
	if err := st.OpenJournal(ctx, "planted", `{"files":[{"path":"victim.txt","delete":true}]}`); err != nil {
		t.Fatal(err)
	}
	if err := st.JournalRenaming(ctx, "planted"); err != nil {
		t.Fatal(err)
	}
	if writer != "" {
		if _, err := st.DB().ExecContext(ctx, `UPDATE commit_journal SET writer = ?`, writer); err != nil {
			t.Fatal(err)
		}
	}
	if err := setMarker(root, true); err != nil {
		t.Fatal(err)
	}
	return st, func() ([]Recovered, error) { return Recover(ctx, root, st) }
}

// A journal row this user's cchub wrote is finished by Recover: the
// control for the test below, showing the planted row does what it says.
func TestRecoverFinishesYourOwnRow(t *testing.T) {
	dir := t.TempDir()
	_, recover := plantJournal(t, dir, "")
	done, err := recover()
	if err != nil || len(done) != 1 || done[0].Action != "finished" {
		t.Fatalf("Recover: %+v, %v", done, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "victim.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("victim.txt: %v, want it deleted by its own commit", err)
	}
}

// A journal row another writer made (a database copied in whole, its
// .cchub stamp kept) is ignored: nothing it names is touched, the row is
// left as it was, it is reported once, and the marker goes so the next
// start does not look again.
func TestRecoverIgnoresAnotherWritersRow(t *testing.T) {
	dir := t.TempDir()
	st, recover := plantJournal(t, dir, "someone else")
	done, err := recover()
	if err != nil || len(done) != 1 || done[0].Action != Ignored || len(done[0].Files) != 0 {
		t.Fatalf("Recover: %+v, %v; want the row reported as ignored", done, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "victim.txt")); err != nil || string(b) != "keep me" {
		t.Fatalf("victim.txt: %q, %v", b, err)
	}
	js, err := st.Journals(context.Background())
	if err != nil || len(js) != 1 || js[0].State != "renaming" {
		t.Fatalf("the row after Recover: %+v, %v; want it untouched", js, err)
	}
	again, err := recover()
	if err != nil || len(again) != 0 {
		t.Errorf("second Recover: %+v, %v; want nothing (reported once)", again, err)
	}
}

// A staged change another writer made is not listed, shown, applied or
// discarded, and naming it says why.
func TestAnotherWritersStagedChangeIsNotYours(t *testing.T) {
	dir := t.TempDir()
	paths, old := tree(t, dir, 2)
	root, st := openWS(t, dir)
	ctx := context.Background()
	c, _ := changeAll(paths, old)
	s, err := Stage(ctx, st, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().ExecContext(ctx, `UPDATE staged_changes SET writer = 'someone else'`); err != nil {
		t.Fatal(err)
	}
	if l, err := List(ctx, st); err != nil || len(l) != 0 {
		t.Errorf("List: %d changes, %v; want none", len(l), err)
	}
	_, lerr := Load(ctx, st, s.ID)
	_, cerr := Commit(ctx, root, st, s.ID)
	derr := Discard(ctx, st, s.ID)
	for what, err := range map[string]error{"Load": lerr, "Commit": cerr, "Discard": derr} {
		if !errors.Is(err, store.ErrNotYours) || !strings.Contains(err.Error(), "not staged by you") {
			t.Errorf("%s: %v, want %q", what, err, "not staged by you")
		}
	}
	if got := readAll(t, dir, paths); string(got[paths[0]]) != string(old[paths[0]]) {
		t.Error("a file was written")
	}
}
