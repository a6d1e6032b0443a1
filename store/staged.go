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

// ErrNotYours is returned for a staged change that another cchub wrote
// (another user's, or one in a database copied from elsewhere): it is not
// listed, shown, applied or discarded.
var ErrNotYours = errors.New("not staged by you")

// mine selects the rows this store's writer wrote. NULL, a row from
// before writers were recorded (migration 5), is nobody's: a state
// directory adopted from an archive may carry such rows, and acting on
// them would obey whoever made the archive. (What it costs: a change
// staged before the upgrade is no longer shown; stage it again.)
const mine = "(writer = ?)"

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
		if _, err := tx.ExecContext(ctx, `INSERT INTO staged_changes(id, kind, title, created, matches, report, writer) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			c.ID, c.Kind, c.Title, c.Created.UnixMilli(), c.Matches, c.Report, s.writer); err != nil {
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

// StagedChanges lists this user's staged changes, oldest first, without
// their files' contents (Files holds paths, diffs' sizes aside, and
// counts).
func (s *Store) StagedChanges(ctx context.Context) ([]Staged, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.kind, c.title, c.created, c.matches, c.report, f.path, f.old_sha256 IS NULL, f.new_data IS NULL, f.added, f.removed
		FROM staged_changes c JOIN staged_files f ON f.change = c.id WHERE c.writer = ? ORDER BY c.created, c.id, f.path`, s.writer)
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
// and diffs, or an error wrapping ErrNoStaged (or ErrNotYours, for
// another writer's).
func (s *Store) StagedChange(ctx context.Context, id string) (*Staged, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, s.wrap("read a staged change in", err)
	}
	defer tx.Rollback()
	c := &Staged{ID: id}
	var created int64
	var writer sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT kind, title, created, matches, report, writer FROM staged_changes WHERE id = ?`, id).
		Scan(&c.Kind, &c.Title, &created, &c.Matches, &c.Report, &writer)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w with id %q", ErrNoStaged, id)
	}
	if err != nil {
		return nil, s.wrap("read a staged change in", err)
	}
	if !writer.Valid || writer.String != s.writer {
		return nil, s.notYours(id)
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

// DropStaged deletes one of this user's staged changes; it reports
// whether there was one. Another writer's is left alone (ErrNotYours).
func (s *Store) DropStaged(ctx context.Context, id string) (bool, error) {
	var n int64
	err := s.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM staged_changes WHERE id = ? AND `+mine, id, s.writer)
		if err != nil {
			return s.wrap("discard a staged change in", err)
		}
		if n, err = res.RowsAffected(); err != nil || n > 0 {
			return err
		}
		var other int
		if tx.QueryRowContext(ctx, `SELECT 1 FROM staged_changes WHERE id = ?`, id).Scan(&other) == nil {
			return s.notYours(id)
		}
		return nil
	})
	return n > 0, err
}

// notYours is the error for another writer's staged change.
func (s *Store) notYours(id string) error {
	return fmt.Errorf("change %q: %w: another user's cchub, or a copy of another workspace's state, wrote it into %s; cchub leaves it alone (stage your own change instead)", id, ErrNotYours, s.show)
}

// Journal is one row of the commit journal: a change being written.
type Journal struct {
	Change string
	State  string // "writing" or "renaming"
	Plan   string // the owner's JSON
	// Mine says this user's cchub wrote the row (for this workspace);
	// another's must not be acted on.
	Mine bool
}

// OpenJournal records that change is about to be written, with its plan.
// A change already being committed is refused.
func (s *Store) OpenJournal(ctx context.Context, change, plan string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO commit_journal(change, state, started, plan, writer) VALUES (?, 'writing', ?, ?, ?)`, change, time.Now().UnixMilli(), plan, s.writer); err != nil {
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
		res, err := tx.ExecContext(ctx, `UPDATE commit_journal SET state = 'renaming' WHERE change = ? AND state = 'writing' AND `+mine, change, s.writer)
		if err != nil {
			return s.wrap("update the commit journal of", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("store: the commit journal of %s has no change %q being written", s.show, change)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM staged_changes WHERE id = ? AND `+mine, change, s.writer); err != nil {
			return s.wrap("update the commit journal of", err)
		}
		return nil
	})
}

// CloseJournal removes change's row, if this user's: it is wholly
// written, or wholly rolled back. Another writer's row is left alone.
func (s *Store) CloseJournal(ctx context.Context, change string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM commit_journal WHERE change = ? AND `+mine, change, s.writer); err != nil {
			return s.wrap("close the commit journal of", err)
		}
		return nil
	})
}

// Journals lists the changes whose commit did not finish, each saying
// whether this user's cchub wrote it.
func (s *Store) Journals(ctx context.Context) ([]Journal, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT change, state, plan, coalesce(writer = ?, false) FROM commit_journal ORDER BY started, change`, s.writer)
	if err != nil {
		return nil, s.wrap("read the commit journal of", err)
	}
	defer rows.Close()
	var out []Journal
	for rows.Next() {
		var j Journal
		if err := rows.Scan(&j.Change, &j.State, &j.Plan, &j.Mine); err != nil {
			return nil, s.wrap("read the commit journal of", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("read the commit journal of", err)
	}
	return out, nil
}
