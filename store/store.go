package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite"

	"cchub/workspace"
)

// FileName is the database's name inside the workspace's state directory.
const FileName = "cchub.db"

// BusyTimeout is how long a statement waits for a lock another process
// holds before it fails. Writes are short (a ledger report, a few rows of a
// run), so a wait this long means the other process is stuck, not busy.
const BusyTimeout = 10 * time.Second

// maxConns bounds the pool. WAL lets readers run beside the one writer, so
// a few connections serve concurrent tool calls; more would only add file
// descriptors and lock traffic.
const maxConns = 4

// sqliteBusy is SQLITE_BUSY, the primary result code of "database is
// locked" (extended codes keep it in their low byte).
const sqliteBusy = 5

// Store is one open database of one workspace. It is safe for concurrent
// use; Close it when the workspace closes.
type Store struct {
	db   *sql.DB
	show string // the database's path (relative to the root when in it), for messages
	// writer is this user's stamp for the workspace (workspace.Root's
	// StateWriter): staged changes and journal rows record it, and only
	// rows it wrote (or that predate the record) are this user's.
	writer string
	// writers lets one write transaction of this process at a time ask
	// SQLite for the write lock: the others wait here, cancellably,
	// instead of in SQLite's busy loop, which polls with sleeps.
	writers chan struct{}
}

// Open opens (creating it, and the state directory, if absent) the
// database of root and brings its schema up to date. The state directory
// is the one root chose (workspace.Root.OpenStateDir: the workspace's
// .cchub when it is this user's, else a private one). A database file that
// is not a regular file, and a database written by a newer cchub, are
// refused.
func Open(ctx context.Context, root *workspace.Root) (*Store, error) {
	// OpenStateDir makes the state directory through a handle and refuses
	// a .cchub that is not this user's; it is also the handle the files
	// SQLite will create are checked through.
	state, err := root.OpenStateDir("")
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer state.Close()
	dir, err := root.StatePath()
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	writer, err := root.StateWriter()
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	where := root.StateShow()
	show := filepath.Join(where, FileName)
	// SQLite follows symlinks when it opens a file by name, so a planted
	// link would send cchub's writes elsewhere.
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm", FileName + "-journal"} {
		st, err := state.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("store: %s: %w", filepath.Join(where, name), err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("store: %s is not a regular file (%s); cchub keeps its database only in a plain file: remove it", filepath.Join(where, name), st.Mode().Type())
		}
	}
	abs := filepath.Join(dir, FileName)
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", show, err)
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	// Connections are kept, not recycled: each reopen would resolve the
	// path again.
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := &Store{db: db, show: show, writer: writer, writers: make(chan struct{}, 1)}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// SQLite opened the file by its path; make sure that path led to the
	// file in the directory OpenStateDir vetted, and not through a state
	// directory swapped for a symlink in between.
	if err := sameFile(state, abs, where); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", show, err)
	}
	return s, nil
}

// dsn is the driver's name for the database at abs: a file: URI (so a
// root path holding '?' or '#' stays one path) with the settings every
// connection of the pool gets when the pool opens it.
func dsn(abs string) string {
	q := url.Values{}
	// The busy timeout comes first (the driver applies it first): the
	// journal-mode switch of a new file may have to wait for the other
	// process that is creating it too.
	q.Set("_busy_timeout", fmt.Sprint(BusyTimeout.Milliseconds()))
	q.Set("_journal_mode", "WAL")
	// NORMAL is durable against a cchub crash; a power cut may lose the
	// last transactions but never corrupts the file (WAL).
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "1")
	// Write transactions begin IMMEDIATE: see the package comment.
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath() + "?" + q.Encode()
}

func sameFile(state *os.Root, abs, where string) error {
	inDir, err := state.Lstat(FileName)
	if err != nil {
		return err
	}
	byPath, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if !os.SameFile(inDir, byPath) {
		return fmt.Errorf("the database opened is not the file inside %s (was %s replaced by a symlink?); nothing is kept there: remove the symlink", where, where)
	}
	return nil
}

// Close closes the database. Transactions still running fail.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", s.show, err)
	}
	return nil
}

// DB is the pool, for owners' reads that need no snapshot across
// statements. Writes go through Write.
func (s *Store) DB() *sql.DB { return s.db }

// Write runs fn in one write transaction (BEGIN IMMEDIATE: the write lock
// is held from the first statement, so what fn reads stays true until it
// commits) and commits it if fn returns nil. fn must not keep tx.
func (s *Store) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	select {
	case s.writers <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("store: %w", ctx.Err())
	}
	defer func() { <-s.writers }()
	// SQLite answers BUSY at once, without its busy handler, in a few
	// cases (another connection recovering the WAL index as it opens):
	// those are tried again until BusyTimeout.
	tx, err := s.db.BeginTx(ctx, nil)
	for deadline := time.Now().Add(BusyTimeout); err != nil && isBusy(err) && time.Now().Before(deadline); {
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("store: %w", ctx.Err())
		}
		tx, err = s.db.BeginTx(ctx, nil)
	}
	if err != nil {
		return s.wrap("begin a write", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return s.wrap("commit", err)
	}
	return nil
}

// wrap says what failed, and for a lock held past BusyTimeout, why.
func (s *Store) wrap(what string, err error) error {
	if isBusy(err) {
		return fmt.Errorf("store: %s %s: another cchub process has held the database for more than %s: %w; try again", what, s.show, BusyTimeout, err)
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqliteNotADB {
		return fmt.Errorf("store: %s is not a database (%w); remove it, and cchub makes a new one", s.show, err)
	}
	return fmt.Errorf("store: %s %s: %w", what, s.show, err)
}

// isBusy reports whether err is SQLite's "database is locked" (or "table
// is locked"): a lock that another connection held for longer than
// BusyTimeout.
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqliteBusy || c == sqliteLocked
}

// sqliteNotADB is SQLITE_NOTADB: the file is something else.
const sqliteNotADB = 26

// sqliteLocked is SQLITE_LOCKED, a conflict inside one connection's
// shared cache; it reads "database table is locked".
const sqliteLocked = 6
