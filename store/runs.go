package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// RunID names one run in the database. Runs are never renumbered, so an id
// held by a session stays its own until the run is dropped.
type RunID int64

// ErrNoRun is wrapped when a run was dropped (its session ended, or it was
// pruned) while something still used its id.
var ErrNoRun = errors.New("no such run")

// maxRunName bounds a run's name: it is typed by a human or a script.
const maxRunName = 200

// Run returns the id of the run called name, making it on first use, and
// marks it used. Every CLI call given the same --run shares it, in this
// process or another.
func (s *Store) Run(ctx context.Context, name string) (RunID, error) {
	if err := checkRunName(name); err != nil {
		return 0, err
	}
	var id RunID
	err := s.Write(ctx, func(tx *sql.Tx) error {
		now := time.Now().UnixMilli()
		// One statement, under the write lock: two processes asking for a
		// new name at once get one run.
		err := tx.QueryRowContext(ctx, `INSERT INTO runs(name, created, last_used) VALUES (?, ?, ?)
			ON CONFLICT(name) DO UPDATE SET last_used = excluded.last_used
			RETURNING id`, name, now, now).Scan(&id)
		if err != nil {
			return s.wrap(fmt.Sprintf("get run %q in", name), err)
		}
		return nil
	})
	return id, err
}

// NewRun makes an anonymous run, one MCP session's. Nobody else can name
// it; DropRun it when the session ends.
func (s *Store) NewRun(ctx context.Context) (RunID, error) {
	var id RunID
	err := s.Write(ctx, func(tx *sql.Tx) error {
		now := time.Now().UnixMilli()
		if err := tx.QueryRowContext(ctx, `INSERT INTO runs(name, created, last_used) VALUES (NULL, ?, ?) RETURNING id`, now, now).Scan(&id); err != nil {
			return s.wrap("make a run in", err)
		}
		return nil
	})
	return id, err
}

// DropRun deletes run and everything every owner keeps for it (their
// tables reference runs ON DELETE CASCADE). Dropping a run that is gone
// is not an error.
func (s *Store) DropRun(ctx context.Context, run RunID) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, run); err != nil {
			return s.wrap(fmt.Sprintf("drop run %d in", run), err)
		}
		return nil
	})
}

// PruneRuns drops the runs, named or not, last used before unusedSince
// (sessions of processes that crashed, CLI runs long finished) and returns
// how many it dropped.
func (s *Store) PruneRuns(ctx context.Context, unusedSince time.Time) (int64, error) {
	var n int64
	err := s.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE last_used < ?`, unusedSince.UnixMilli())
		if err != nil {
			return s.wrap("prune runs in", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// TouchRun marks run used now, inside an owner's write transaction, and
// fails with ErrNoRun if the run is gone: what an owner would write for it
// would only be deleted again.
func TouchRun(ctx context.Context, tx *sql.Tx, run RunID) error {
	res, err := tx.ExecContext(ctx, `UPDATE runs SET last_used = ? WHERE id = ?`, time.Now().UnixMilli(), run)
	if err != nil {
		return fmt.Errorf("store: mark run %d used: %w", run, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: mark run %d used: %w", run, err)
	} else if n == 0 {
		return fmt.Errorf("store: run %d: %w (its session ended or it was pruned)", run, ErrNoRun)
	}
	return nil
}

// SeenFiles is what a run has seen of the workspace's files, by path
// relative to the root.
type SeenFiles struct {
	// Hashes holds the SHA-256 of the content last seen of each file read
	// or written whole.
	Hashes map[string][32]byte
	// Parts holds the files seen only in part (too large to read whole)
	// and never whole: seen, with no content to check.
	Parts map[string]bool
}

// SaveSeen records that run has seen content whose SHA-256 is hash as the
// file rel.
func (s *Store) SaveSeen(ctx context.Context, run RunID, rel string, hash [32]byte) error {
	return s.saveSeen(ctx, run, rel, `INSERT INTO run_seen(run, path, sha256) VALUES (?, ?, ?)
		ON CONFLICT(run, path) DO UPDATE SET sha256 = excluded.sha256`, hash[:])
}

// SaveSeenPart records that run has read part of rel, a file too large to
// read whole. A hash already recorded for rel is kept.
func (s *Store) SaveSeenPart(ctx context.Context, run RunID, rel string) error {
	return s.saveSeen(ctx, run, rel, `INSERT INTO run_seen(run, path, sha256) VALUES (?, ?, ?)
		ON CONFLICT(run, path) DO NOTHING`, nil)
}

func (s *Store) saveSeen(ctx context.Context, run RunID, rel, query string, hash any) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if err := TouchRun(ctx, tx, run); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, query, run, rel, hash); err != nil {
			return s.wrap(fmt.Sprintf("record that run %d saw %s in", run, rel), err)
		}
		return nil
	})
}

// ForgetSeen drops what run has seen of rel (it was deleted or moved).
func (s *Store) ForgetSeen(ctx context.Context, run RunID, rel string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM run_seen WHERE run = ? AND path = ?`, run, rel); err != nil {
			return s.wrap(fmt.Sprintf("forget %s for run %d in", rel, run), err)
		}
		return nil
	})
}

// Seen returns everything run has seen. A run that is gone has seen
// nothing.
func (s *Store) Seen(ctx context.Context, run RunID) (SeenFiles, error) {
	seen := SeenFiles{Hashes: map[string][32]byte{}, Parts: map[string]bool{}}
	rows, err := s.db.QueryContext(ctx, `SELECT path, sha256 FROM run_seen WHERE run = ?`, run)
	if err != nil {
		return SeenFiles{}, s.wrap(fmt.Sprintf("read what run %d saw in", run), err)
	}
	defer rows.Close()
	for rows.Next() {
		var rel string
		var hash []byte
		if err := rows.Scan(&rel, &hash); err != nil {
			return SeenFiles{}, s.wrap(fmt.Sprintf("read what run %d saw in", run), err)
		}
		if hash == nil {
			seen.Parts[rel] = true
			continue
		}
		seen.Hashes[rel] = [32]byte(hash) // the schema's CHECK holds it to 32 bytes
	}
	if err := rows.Err(); err != nil {
		return SeenFiles{}, s.wrap(fmt.Sprintf("read what run %d saw in", run), err)
	}
	return seen, nil
}

// SaveRunStart keeps data, the encoding of run's starting point (the
// hub's), replacing what was kept.
func (s *Store) SaveRunStart(ctx context.Context, run RunID, data []byte) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO run_start(run, data) VALUES (?, ?)
			ON CONFLICT(run) DO UPDATE SET data = excluded.data`, run, data); err != nil {
			return s.wrap(fmt.Sprintf("record run %d's starting point in", run), err)
		}
		return nil
	})
}

// RunStart is what SaveRunStart kept for run, nil when nothing was.
func (s *Store) RunStart(ctx context.Context, run RunID) ([]byte, error) {
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT data FROM run_start WHERE run = ?`, run).Scan(&data)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, s.wrap(fmt.Sprintf("read run %d's starting point in", run), err)
	}
	return data, nil
}

// checkRunName refuses names a human could not tell apart or type again.
func checkRunName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("store: a run's name may not be empty; give a name such as --run review-42, or no --run for a run of its own")
	case len(name) > maxRunName:
		return fmt.Errorf("store: a run's name may be at most %d bytes; this one is %d", maxRunName, len(name))
	case !utf8.ValidString(name):
		return fmt.Errorf("store: run name %q is not valid UTF-8", name)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("store: run name %q holds a control character; give a plain name", name)
	}
	return nil
}
