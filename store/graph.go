package store

import (
	"context"
	"database/sql"
	"fmt"
)

// GraphStamp is what the store knows of one indexed file without its
// data: enough to tell whether the file must be read again.
type GraphStamp struct {
	SHA256 [32]byte
	Size   int64
	MTime  int64 // Unix nanoseconds; 0: unknown, compare the content
	Format int   // the encoding of Data; another format is read again
	Defs   int   // how many definitions and calls the file holds
	Calls  int
}

// GraphFile is one indexed file, stamp and data.
type GraphFile struct {
	Path string
	GraphStamp
	Data []byte
}

// GraphStamps returns the stamp of every indexed file, by path.
func (s *Store) GraphStamps(ctx context.Context) (map[string]GraphStamp, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, sha256, size, mtime, format, defs, calls FROM graph_files`)
	if err != nil {
		return nil, s.wrap("read the code graph's index in", err)
	}
	defer rows.Close()
	out := map[string]GraphStamp{}
	for rows.Next() {
		var p string
		var h []byte
		var st GraphStamp
		if err := rows.Scan(&p, &h, &st.Size, &st.MTime, &st.Format, &st.Defs, &st.Calls); err != nil {
			return nil, s.wrap("read the code graph's index in", err)
		}
		copy(st.SHA256[:], h)
		out[p] = st
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("read the code graph's index in", err)
	}
	return out, nil
}

// GraphData calls fn with the data of every indexed file in paths (all
// files when paths is nil), in one read snapshot. data is valid only
// during the call.
func (s *Store) GraphData(ctx context.Context, paths map[string]bool, fn func(path string, st GraphStamp, data []byte) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.wrap("read the code graph's index in", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT path, sha256, size, mtime, format, data FROM graph_files`)
	if err != nil {
		return s.wrap("read the code graph's index in", err)
	}
	defer rows.Close()
	var data sql.RawBytes
	for rows.Next() {
		var p string
		var h sql.RawBytes
		var st GraphStamp
		if err := rows.Scan(&p, &h, &st.Size, &st.MTime, &st.Format, &data); err != nil {
			return s.wrap("read the code graph's index in", err)
		}
		if paths != nil && !paths[p] {
			continue
		}
		copy(st.SHA256[:], h)
		if err := fn(p, st, data); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.wrap("read the code graph's index in", err)
	}
	return nil
}

// SaveGraph records the files put and forgets the paths removed, in one
// transaction; a stamp-only change (same content, new mtime) is a put
// with nil Data, which keeps the stored data.
func (s *Store) SaveGraph(ctx context.Context, put []GraphFile, removed []string) error {
	if len(put) == 0 && len(removed) == 0 {
		return nil
	}
	return s.Write(ctx, func(tx *sql.Tx) error {
		full, err := tx.PrepareContext(ctx, `INSERT INTO graph_files(path, sha256, size, mtime, format, defs, calls, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(path) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size, mtime = excluded.mtime,
				format = excluded.format, defs = excluded.defs, calls = excluded.calls, data = excluded.data`)
		if err != nil {
			return s.wrap("save the code graph's index in", err)
		}
		defer full.Close()
		stamp, err := tx.PrepareContext(ctx, `UPDATE graph_files SET size = ?, mtime = ? WHERE path = ? AND sha256 = ?`)
		if err != nil {
			return s.wrap("save the code graph's index in", err)
		}
		defer stamp.Close()
		for _, f := range put {
			if f.Data == nil {
				_, err = stamp.ExecContext(ctx, f.Size, f.MTime, f.Path, f.SHA256[:])
			} else {
				_, err = full.ExecContext(ctx, f.Path, f.SHA256[:], f.Size, f.MTime, f.Format, f.Defs, f.Calls, f.Data)
			}
			if err != nil {
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
