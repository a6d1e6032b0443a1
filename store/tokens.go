package store

import (
	"context"
	"database/sql"
	"fmt"

	"cchub/workspace"
)

// TokenFile is what the token index knows of one file: the content it
// held when read (its SHA-256, and its workspace.Identity then, as
// GraphStamp; unknown: the file is read again) and that content's filter
// (package tokenindex's encoding, which says its format).
type TokenFile struct {
	Path   string
	SHA256 [32]byte
	workspace.Identity
	Filter []byte
	// Clean says whether the content parses without a syntax error in
	// the language of its path: ParsesClean, ParsesBroken, or 0 (not
	// known; the token index asks only of the languages structural
	// search parses in part).
	Clean int
}

// Values of TokenFile.Clean.
const (
	ParsesClean  = 1
	ParsesBroken = 2
)

// TokenFiles calls fn with every file of the token index, in no order.
// The TokenFile's Filter is fn's only during the call (it is the
// database's buffer, not copied: an index of thousands of files is loaded
// without an allocation per file).
func (s *Store) TokenFiles(ctx context.Context, fn func(TokenFile) error) error {
	return s.tokenFiles(ctx, s.db, fn)
}

// tokenFiles is TokenFiles through q (the pool, or one connection).
func (s *Store) tokenFiles(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, fn func(TokenFile) error) error {
	rows, err := q.QueryContext(ctx, `SELECT path, sha256, size, mtime, ctime, inode, dev, filter, clean FROM token_files`)
	if err != nil {
		return s.wrap("read the token index in", err)
	}
	defer rows.Close()
	for rows.Next() {
		var f TokenFile
		var h, flt sql.RawBytes
		var ino, dev int64
		if err := rows.Scan(&f.Path, &h, &f.Size, &f.MTime, &f.CTime, &ino, &dev, &flt, &f.Clean); err != nil {
			return s.wrap("read the token index in", err)
		}
		f.Inode, f.Dev = uint64(ino), uint64(dev)
		copy(f.SHA256[:], h)
		f.Filter = flt
		if err := fn(f); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.wrap("read the token index in", err)
	}
	return nil
}

// TokenSnapshot calls at with the token index's generation, then fn
// with every file of it, as TokenFiles does, all read in one read
// transaction: a copy made from them (package tokenindex's pack) is
// exactly that generation's, whatever other processes write meanwhile.
func (s *Store) TokenSnapshot(ctx context.Context, at func(gen int64) error, fn func(TokenFile) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.wrap("read the token index in", err)
	}
	defer conn.Close()
	// BEGIN, not BeginTx: the pool's transactions begin IMMEDIATE (a
	// write lock); a deferred one reads a snapshot and blocks no writer.
	if _, err := conn.ExecContext(ctx, `BEGIN`); err != nil {
		return s.wrap("read the token index in", err)
	}
	defer conn.ExecContext(context.Background(), `ROLLBACK`)
	var gen int64
	if err := conn.QueryRowContext(ctx, `SELECT gen FROM token_generation`).Scan(&gen); err != nil {
		return s.wrap("read the token index's generation in", err)
	}
	if err := at(gen); err != nil {
		return err
	}
	return s.tokenFiles(ctx, conn, fn)
}

// SaveTokens records the files put and forgets the paths removed, in one
// transaction.
func (s *Store) SaveTokens(ctx context.Context, put []TokenFile, removed []string) error {
	if len(put) == 0 && len(removed) == 0 {
		return nil
	}
	return s.Write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO token_files(path, sha256, size, mtime, ctime, inode, dev, filter, clean) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(path) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size, mtime = excluded.mtime,
				ctime = excluded.ctime, inode = excluded.inode, dev = excluded.dev, filter = excluded.filter, clean = excluded.clean`)
		if err != nil {
			return s.wrap("save the token index in", err)
		}
		defer st.Close()
		for _, f := range put {
			if _, err := st.ExecContext(ctx, f.Path, f.SHA256[:], f.Size, f.MTime, f.CTime, int64(f.Inode), int64(f.Dev), f.Filter, f.Clean); err != nil {
				return s.wrap(fmt.Sprintf("save %s to the token index in", f.Path), err)
			}
		}
		for _, p := range removed {
			if _, err := tx.ExecContext(ctx, `DELETE FROM token_files WHERE path = ?`, p); err != nil {
				return s.wrap("save the token index in", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE token_generation SET gen = gen + 1`); err != nil {
			return s.wrap("save the token index in", err)
		}
		return nil
	})
}

// TokenGeneration is moved forward by every SaveTokens that changed
// something: a process keeping the index in memory loads it again when
// the generation it loaded is no longer the store's.
func (s *Store) TokenGeneration(ctx context.Context) (int64, error) {
	var gen int64
	if err := s.db.QueryRowContext(ctx, `SELECT gen FROM token_generation`).Scan(&gen); err != nil {
		return 0, s.wrap("read the token index's generation in", err)
	}
	return gen, nil
}
