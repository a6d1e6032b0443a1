package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// Rows another writer made (here: rows whose writer is rewritten, as a
// database copied from elsewhere holds them) are not this user's: a staged
// change is not listed, shown or discarded, a journal row is not Mine and
// is not closed. Rows from before writers were recorded (NULL) are.
func TestOnlyYourRowsAreYours(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openRoot(t, ""))
	for _, id := range []string{"mine", "theirs", "legacy"} {
		c := &Staged{ID: id, Kind: "rewrite", Title: id, Created: time.Now(), Matches: 1, Report: "{}",
			Files: []StagedFile{{Path: "a.go", New: []byte("x"), Diff: "d"}}}
		if err := s.SaveStaged(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := s.OpenJournal(ctx, id, `{"files":[]}`); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`UPDATE staged_changes SET writer = 'someone else' WHERE id = 'theirs'`,
		`UPDATE commit_journal SET writer = 'someone else' WHERE change = 'theirs'`,
		`UPDATE staged_changes SET writer = NULL WHERE id = 'legacy'`,
		`UPDATE commit_journal SET writer = NULL WHERE change = 'legacy'`,
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.StagedChanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	if strings.Join(ids, ",") != "mine" {
		t.Errorf("listed %v, want mine only (a row without a writer is nobody's)", ids)
	}
	if _, err := s.StagedChange(ctx, "theirs"); !errors.Is(err, ErrNotYours) {
		t.Errorf("StagedChange(theirs): %v, want ErrNotYours", err)
	}
	if _, err := s.StagedChange(ctx, "legacy"); !errors.Is(err, ErrNotYours) {
		t.Errorf("StagedChange(legacy): %v, want ErrNotYours", err)
	}
	if ok, err := s.DropStaged(ctx, "theirs"); ok || !errors.Is(err, ErrNotYours) {
		t.Errorf("DropStaged(theirs) = %v, %v; want false, ErrNotYours", ok, err)
	}
	if err := s.JournalRenaming(ctx, "theirs"); err == nil {
		t.Error("JournalRenaming(theirs) succeeded")
	}
	js, err := s.Journals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mine := map[string]bool{}
	for _, j := range js {
		mine[j.Change] = j.Mine
	}
	if !mine["mine"] || mine["theirs"] || mine["legacy"] || len(mine) != 3 {
		t.Errorf("journal rows' Mine = %v, want mine true, theirs and legacy false", mine)
	}
	if err := s.CloseJournal(ctx, "theirs"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM commit_journal WHERE change = 'theirs'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("another writer's journal row: %d rows left (%v), want it untouched", n, err)
	}
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM staged_changes WHERE id = 'theirs'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("another writer's staged change: %d rows left (%v), want it untouched", n, err)
	}
}
