package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrNoStaged is returned for a change id the store does not hold.
var ErrNoStaged = errors.New("no staged change")

// Staged is a change staged for review: what it is and, file by file,
// what it does. Report is the owner's (astedit's) JSON, kept as is.
type Staged struct {
	ID      string
	Kind    string // rewrite, rename, patch
	Title   string
	Created time.Time
	Matches int
	Report  string
	Files   []StagedFile
}

// StagedFile is one file of a staged change.
type StagedFile struct {
	Path   string
	OldSHA *[32]byte // nil: the file did not exist
	New    []byte    // nil: the file is to be deleted (non-nil, possibly empty, otherwise)
	Mode   uint32    // a new file's mode (0: 0644); a file that exists keeps its own
	Diff   string
	Added  int
	Remove int
}

// SaveStaged stores a change under its id, which must be new.
func (s *Store) SaveStaged(ctx context.Context, c *Staged) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO staged_changes(id, kind, title, created, matches, report) VALUES (?, ?, ?, ?, ?, ?)`,
			c.ID, c.Kind, c.Title, c.Created.UnixMilli(), c.Matches, c.Report); err != nil {
			return s.wrap("stage a change in", err)
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO staged_files(change, path, old_sha256, new_data, mode, diff, added, removed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return s.wrap("stage a change in", err)
		}
		defer ins.Close()
		for _, f := range c.Files {
			var old, data any
			if f.OldSHA != nil {
				old = f.OldSHA[:]
			}
			if f.New != nil {
				data = append([]byte{}, f.New...) // never NULL for an empty file
			}
			if _, err := ins.ExecContext(ctx, c.ID, f.Path, old, data, f.Mode, f.Diff, f.Added, f.Remove); err != nil {
				return s.wrap("stage a change in", err)
			}
		}
		return nil
	})
}

// StagedChanges lists the staged changes, oldest first, without their
// files' contents (Files holds paths, diffs' sizes aside, and counts).
func (s *Store) StagedChanges(ctx context.Context) ([]Staged, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.kind, c.title, c.created, c.matches, c.report, f.path, f.old_sha256 IS NULL, f.new_data IS NULL, f.added, f.removed
		FROM staged_changes c JOIN staged_files f ON f.change = c.id ORDER BY c.created, c.id, f.path`)
	if err != nil {
		return nil, s.wrap("read the staged changes in", err)
	}
	defer rows.Close()
	var out []Staged
	for rows.Next() {
		var c Staged
		var f StagedFile
		var created int64
		var added, deleted bool
		if err := rows.Scan(&c.ID, &c.Kind, &c.Title, &created, &c.Matches, &c.Report, &f.Path, &added, &deleted, &f.Added, &f.Remove); err != nil {
			return nil, s.wrap("read the staged changes in", err)
		}
		if !added {
			f.OldSHA = &[32]byte{}
		}
		if !deleted {
			f.New = []byte{}
		}
		if n := len(out); n == 0 || out[n-1].ID != c.ID {
			c.Created = time.UnixMilli(created)
			out = append(out, c)
		}
		last := &out[len(out)-1]
		last.Files = append(last.Files, f)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("read the staged changes in", err)
	}
	return out, nil
}

// StagedChange returns one staged change with its files' new contents
// and diffs, or an error wrapping ErrNoStaged.
func (s *Store) StagedChange(ctx context.Context, id string) (*Staged, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, s.wrap("read a staged change in", err)
	}
	defer tx.Rollback()
	c := &Staged{ID: id}
	var created int64
	err = tx.QueryRowContext(ctx, `SELECT kind, title, created, matches, report FROM staged_changes WHERE id = ?`, id).
		Scan(&c.Kind, &c.Title, &created, &c.Matches, &c.Report)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w with id %q", ErrNoStaged, id)
	}
	if err != nil {
		return nil, s.wrap("read a staged change in", err)
	}
	c.Created = time.UnixMilli(created)
	rows, err := tx.QueryContext(ctx, `SELECT path, old_sha256, new_data IS NULL, new_data, mode, diff, added, removed FROM staged_files WHERE change = ? ORDER BY path`, id)
	if err != nil {
		return nil, s.wrap("read a staged change in", err)
	}
	defer rows.Close()
	for rows.Next() {
		var f StagedFile
		var old []byte
		var data []byte
		var deleted bool
		if err := rows.Scan(&f.Path, &old, &deleted, &data, &f.Mode, &f.Diff, &f.Added, &f.Remove); err != nil {
			return nil, s.wrap("read a staged change in", err)
		}
		if old != nil {
			var h [32]byte
			copy(h[:], old)
			f.OldSHA = &h
		}
		if !deleted {
			f.New = append([]byte{}, data...)
		}
		c.Files = append(c.Files, f)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("read a staged change in", err)
	}
	return c, nil
}

// DropStaged deletes a staged change; it reports whether there was one.
func (s *Store) DropStaged(ctx context.Context, id string) (bool, error) {
	var n int64
	err := s.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM staged_changes WHERE id = ?`, id)
		if err != nil {
			return s.wrap("discard a staged change in", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// Journal is one row of the commit journal: a change being written.
type Journal struct {
	Change string
	State  string // "writing" or "renaming"
	Plan   string // the owner's JSON
}

// OpenJournal records that change is about to be written, with its plan.
// A change already being committed is refused.
func (s *Store) OpenJournal(ctx context.Context, change, plan string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO commit_journal(change, state, started, plan) VALUES (?, 'writing', ?, ?)`, change, time.Now().UnixMilli(), plan); err != nil {
			return s.wrap("open the commit journal of", err)
		}
		return nil
	})
}

// JournalRenaming marks the point of no return: every new file is written
// and synced, so from now on the change is finished, never undone. The
// staged change is dropped in the same transaction: it is the journal's now.
func (s *Store) JournalRenaming(ctx context.Context, change string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE commit_journal SET state = 'renaming' WHERE change = ? AND state = 'writing'`, change)
		if err != nil {
			return s.wrap("update the commit journal of", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("store: the commit journal of %s has no change %q being written", s.show, change)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM staged_changes WHERE id = ?`, change); err != nil {
			return s.wrap("update the commit journal of", err)
		}
		return nil
	})
}

// CloseJournal removes change's row: it is wholly written, or wholly
// rolled back.
func (s *Store) CloseJournal(ctx context.Context, change string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM commit_journal WHERE change = ?`, change); err != nil {
			return s.wrap("close the commit journal of", err)
		}
		return nil
	})
}

// Journals lists the changes whose commit did not finish.
func (s *Store) Journals(ctx context.Context) ([]Journal, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT change, state, plan FROM commit_journal ORDER BY started, change`)
	if err != nil {
		return nil, s.wrap("read the commit journal of", err)
	}
	defer rows.Close()
	var out []Journal
	for rows.Next() {
		var j Journal
		if err := rows.Scan(&j.Change, &j.State, &j.Plan); err != nil {
			return nil, s.wrap("read the commit journal of", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("read the commit journal of", err)
	}
	return out, nil
}
