package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// migration is one step of the schema. Steps are numbered from 1 without
// gaps, never edited once released and never removed: a database records
// the steps applied to it, and the next cchub applies only the ones after.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations is the whole schema, every owner's, in the order applied.
// An owner adds its tables by appending a step here, named after itself.
var migrations = []migration{
	{1, "runs", `
-- A run is one conversation: an MCP session (anonymous, name NULL) or a
-- named CLI run (--run NAME) that several CLI calls share. Times are Unix
-- milliseconds.
CREATE TABLE runs (
	id        INTEGER PRIMARY KEY,
	name      TEXT UNIQUE,
	created   INTEGER NOT NULL,
	last_used INTEGER NOT NULL
);
CREATE INDEX runs_last_used ON runs(last_used);

-- What a run last saw of each file, for the stale-edit check: the SHA-256
-- of the content, or NULL for a file seen only in part (too large to read
-- whole).
CREATE TABLE run_seen (
	run    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	path   TEXT NOT NULL,
	sha256 BLOB CHECK (sha256 IS NULL OR length(sha256) = 32),
	PRIMARY KEY (run, path)
) WITHOUT ROWID;
`},
	{2, "ledger", `
-- The ledger: the diagnostics each run has been told and that are still
-- present, one row per key (file, severity, code, message; never a
-- position). A key that disappears is deleted, so it is news again when it
-- comes back.
CREATE TABLE ledger_keys (
	run      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	path     TEXT NOT NULL,
	severity TEXT NOT NULL,
	code     TEXT NOT NULL,
	message  TEXT NOT NULL,
	told     INTEGER NOT NULL,
	PRIMARY KEY (run, path, severity, code, message)
) WITHOUT ROWID;
`},
	{3, "codegraph", `
-- The code graph's index: what it read of each file (definitions, calls,
-- imports; codegraph's own encoding, versioned by format), keyed by the
-- content's SHA-256. size and mtime (Unix nanoseconds, 0 = unknown) let
-- an unchanged file go unread; a file changed within the same clock tick
-- as its indexing is stored with mtime 0, so it is hashed next time.
CREATE TABLE graph_files (
	path   TEXT PRIMARY KEY,
	sha256 BLOB NOT NULL CHECK (length(sha256) = 32),
	size   INTEGER NOT NULL,
	mtime  INTEGER NOT NULL,
	format INTEGER NOT NULL,
	defs   INTEGER NOT NULL,
	calls  INTEGER NOT NULL,
	data   BLOB NOT NULL
);
`},
	{4, "staged changes", `
-- Changes staged for review (astedit): a structural rewrite, a rename, a
-- patch. Each file holds the SHA-256 of what it was when staged (NULL: it
-- did not exist), its new content (NULL: it is to be deleted) and the diff
-- a reviewer reads. A change is applied whole or not at all.
CREATE TABLE staged_changes (
	id      TEXT PRIMARY KEY,
	kind    TEXT NOT NULL,
	title   TEXT NOT NULL,
	created INTEGER NOT NULL,
	matches INTEGER NOT NULL,
	report  TEXT NOT NULL
);
CREATE TABLE staged_files (
	change     TEXT NOT NULL REFERENCES staged_changes(id) ON DELETE CASCADE,
	path       TEXT NOT NULL,
	old_sha256 BLOB CHECK (old_sha256 IS NULL OR length(old_sha256) = 32),
	new_data   BLOB,
	mode       INTEGER NOT NULL, -- for a new file (0: 0644); a file that exists keeps its own
	diff       TEXT NOT NULL,
	added      INTEGER NOT NULL,
	removed    INTEGER NOT NULL,
	PRIMARY KEY (change, path)
) WITHOUT ROWID;
-- The commit journal: a change being written. state 'writing': temporary
-- files are being written beside their targets (a crash rolls back: they
-- are removed); 'renaming': all are written and synced (a crash rolls
-- forward: the rest are renamed into place). The row goes last.
CREATE TABLE commit_journal (
	change  TEXT PRIMARY KEY,
	state   TEXT NOT NULL CHECK (state IN ('writing', 'renaming')),
	started INTEGER NOT NULL,
	plan    TEXT NOT NULL
);
`},
	{5, "writers", `
-- Who wrote a staged change and a commit journal row: the writer's stamp
-- (the HMAC of the workspace's path keyed by the user's cchub id; see
-- package workspace). A change or a journal row is acted on only by the
-- cchub that wrote it, so a database that came from elsewhere (a clone, a
-- copy, an archive) cannot have its journal rolled forward or its changes
-- applied. Rows from before this step have NULL: they were written before
-- the record existed, in a state directory that is this user's (the
-- workspace checks that before the database is opened), and count as the
-- user's own.
ALTER TABLE staged_changes ADD COLUMN writer TEXT;
ALTER TABLE commit_journal ADD COLUMN writer TEXT;
`},
	{6, "content-addressed store", `
-- The code graph's index splits in two. graph_files keeps what is this
-- checkout's: which content each path held when read (its SHA-256 and
-- variant), with size and mtime to skip unchanged files. What a content
-- yields is content-addressed (see shared.go) and kept by the shared
-- engine: these shared_ tables when the engine is this file (the
-- default), a PostgreSQL database when one is configured. The old
-- table's data was a cache: files are read again once.
DROP TABLE graph_files;
CREATE TABLE graph_files (
	path    TEXT PRIMARY KEY,
	sha256  BLOB NOT NULL CHECK (length(sha256) = 32),
	variant TEXT NOT NULL,
	size    INTEGER NOT NULL,
	mtime   INTEGER NOT NULL,
	format  INTEGER NOT NULL,
	defs    INTEGER NOT NULL,
	calls   INTEGER NOT NULL
);
-- One file content's extraction; data is sealed (store.Seal). Times are
-- Unix seconds; last_used is moved forward at most once a day.
CREATE TABLE shared_extracts (
	sha256    BLOB NOT NULL CHECK (length(sha256) = 32),
	variant   TEXT NOT NULL,
	format    INTEGER NOT NULL,
	defs      INTEGER NOT NULL,
	calls     INTEGER NOT NULL,
	data      BLOB NOT NULL,
	created   INTEGER NOT NULL,
	last_used INTEGER NOT NULL,
	PRIMARY KEY (sha256, variant, format)
);
CREATE INDEX shared_extracts_last_used ON shared_extracts(last_used);
-- A resolved graph of one tree (gen: the tree's SHA-256): its rows, one
-- per name, then its index, whose presence makes it complete.
CREATE TABLE shared_snapshots (
	gen       BLOB PRIMARY KEY CHECK (length(gen) = 32),
	idx       BLOB,
	rows      INTEGER NOT NULL,
	bytes     INTEGER NOT NULL,
	created   INTEGER NOT NULL,
	last_used INTEGER NOT NULL
);
CREATE INDEX shared_snapshots_last_used ON shared_snapshots(last_used);
CREATE TABLE shared_snapshot_rows (
	gen  BLOB NOT NULL,
	name TEXT NOT NULL,
	data BLOB NOT NULL,
	PRIMARY KEY (gen, name)
);
`},
	{7, "token index", `
-- The token index (package tokenindex): for each text file, the content
-- it held when read (SHA-256, with size and mtime to tell it unchanged,
-- as graph_files) and that content's trigram filter, so that a search
-- reads only the files that can hold its literals. The filter is kept
-- here whole, to be loaded in one query; the shared engine keeps the same
-- filter under the content's key (variant "tokens").
CREATE TABLE token_files (
	path   TEXT PRIMARY KEY,
	sha256 BLOB NOT NULL CHECK (length(sha256) = 32),
	size   INTEGER NOT NULL,
	mtime  INTEGER NOT NULL,
	filter BLOB NOT NULL
);
-- Moved forward by every save of token_files, so that a long-lived
-- process that keeps the index in memory knows to load it again.
CREATE TABLE token_generation (
	id  INTEGER PRIMARY KEY CHECK (id = 1),
	gen INTEGER NOT NULL
);
INSERT INTO token_generation VALUES (1, 0);
`},
	{8, "token index: clean parses", `
-- 1: the content parses without a syntax error (the code graph's parse
-- said so, or the token index's own), so that a structural search may
-- parse only the lines of it that can match; 2: it does not; 0: not
-- known.
ALTER TABLE token_files ADD COLUMN clean INTEGER NOT NULL DEFAULT 0;
`},
	{9, "content identity", `
-- A file is trusted unchanged, and goes unread, only when its size,
-- mtime, ctime, inode and device are all as when it was read
-- (workspace.Identity): a same-size edit whose mtime is put back (cp -p,
-- rsync -t, tar x, touch -r) keeps the first two, never ctime, which no
-- user can set. ctime is Unix nanoseconds, 0 unknown, as mtime; inode and
-- device are the stat's unsigned numbers stored in a signed column's
-- bits. Rows from before this step have ctime 0: their files are read
-- and hashed once (a content unchanged keeps its filter and extraction).
ALTER TABLE graph_files ADD COLUMN ctime INTEGER NOT NULL DEFAULT 0;
ALTER TABLE graph_files ADD COLUMN inode INTEGER NOT NULL DEFAULT 0;
ALTER TABLE graph_files ADD COLUMN dev INTEGER NOT NULL DEFAULT 0;
ALTER TABLE token_files ADD COLUMN ctime INTEGER NOT NULL DEFAULT 0;
ALTER TABLE token_files ADD COLUMN inode INTEGER NOT NULL DEFAULT 0;
ALTER TABLE token_files ADD COLUMN dev INTEGER NOT NULL DEFAULT 0;
`},
	{10, "run starting point", `
-- What the language servers had published when a named run first looked
-- (the hub's encoding, JSON), so that its separate CLI calls tell a
-- problem that was there then, hidden and back, as back, not new.
CREATE TABLE run_start (
	run  INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	data BLOB NOT NULL
);
`},
}

// migrate brings the schema up to date. It reads the version inside the
// write transaction that applies the steps, so of two processes opening a
// new database at once, the second waits for the first and then finds
// nothing left to do.
func (s *Store) migrate(ctx context.Context) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY,
			name    TEXT NOT NULL,
			applied INTEGER NOT NULL
		)`); err != nil {
			return s.wrap("read the schema of", err)
		}
		var have int
		var name string
		err := tx.QueryRowContext(ctx, `SELECT version, name FROM schema_migrations ORDER BY version DESC LIMIT 1`).Scan(&have, &name)
		if err != nil && err != sql.ErrNoRows {
			return s.wrap("read the schema version of", err)
		}
		known := migrations[len(migrations)-1].version
		if have > known {
			return fmt.Errorf("store: %s was created by a newer cchub: its schema is at version %d (%q), this cchub knows up to %d; use that newer cchub, or remove %s to start afresh (it holds runs' state and caches)", s.show, have, name, known, s.show)
		}
		now := time.Now().UnixMilli()
		for _, m := range migrations[have:] {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("store: %s: migration %d (%s): %w", s.show, m.version, m.name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied) VALUES (?, ?, ?)`, m.version, m.name, now); err != nil {
				return s.wrap("record a migration of", err)
			}
		}
		return nil
	})
}
