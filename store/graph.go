package store

import (
	"context"
	"database/sql"
	"fmt"

	"cchub/workspace"
)

// GraphStamp is what the checkout knows of one indexed file: which
// content it held when read (its extraction is in the shared store under
// that content's key) and enough to tell whether it must be read again.
type GraphStamp struct {
	SHA256  [32]byte
	Variant string // the extraction's variant (ExtractKey.Variant)
	// The file's Identity when read; unknown: compare the content.
	workspace.Identity
	Format int // the extractor's format; another format is read again
	Defs   int // how many definitions and calls the file holds
	Calls  int
}

// Key is the shared store's key of the file's extraction.
func (s GraphStamp) Key() ExtractKey {
	return ExtractKey{SHA256: s.SHA256, Variant: s.Variant, Format: s.Format}
}

// GraphFile is one indexed file's stamp.
type GraphFile struct {
	Path string
	GraphStamp
}

// GraphStamps returns the stamp of every indexed file, by path.
func (s *Store) GraphStamps(ctx context.Context) (map[string]GraphStamp, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, sha256, variant, size, mtime, ctime, inode, dev, format, defs, calls FROM graph_files`)
	if err != nil {
		return nil, s.wrap("read the code graph's index in", err)
	}
	defer rows.Close()
	out := map[string]GraphStamp{}
	for rows.Next() {
		var p string
		var h []byte
		var st GraphStamp
		var ino, dev int64
		if err := rows.Scan(&p, &h, &st.Variant, &st.Size, &st.MTime, &st.CTime, &ino, &dev, &st.Format, &st.Defs, &st.Calls); err != nil {
			return nil, s.wrap("read the code graph's index in", err)
		}
		st.Inode, st.Dev = uint64(ino), uint64(dev)
		copy(st.SHA256[:], h)
		out[p] = st
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("read the code graph's index in", err)
	}
	return out, nil
}

// SaveGraph records the stamps put and forgets the paths removed, in one
// transaction.
func (s *Store) SaveGraph(ctx context.Context, put []GraphFile, removed []string) error {
	if len(put) == 0 && len(removed) == 0 {
		return nil
	}
	return s.Write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO graph_files(path, sha256, variant, size, mtime, ctime, inode, dev, format, defs, calls) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(path) DO UPDATE SET sha256 = excluded.sha256, variant = excluded.variant, size = excluded.size, mtime = excluded.mtime,
				ctime = excluded.ctime, inode = excluded.inode, dev = excluded.dev, format = excluded.format, defs = excluded.defs, calls = excluded.calls`)
		if err != nil {
			return s.wrap("save the code graph's index in", err)
		}
		defer st.Close()
		for _, f := range put {
			if _, err := st.ExecContext(ctx, f.Path, f.SHA256[:], f.Variant, f.Size, f.MTime, f.CTime, int64(f.Inode), int64(f.Dev), f.Format, f.Defs, f.Calls); err != nil {
				return s.wrap(fmt.Sprintf("save %s to the code graph's index in", f.Path), err)
			}
		}
		for _, p := range removed {
			if _, err := tx.ExecContext(ctx, `DELETE FROM graph_files WHERE path = ?`, p); err != nil {
				return s.wrap("save the code graph's index in", err)
			}
		}
		return nil
	})
}
