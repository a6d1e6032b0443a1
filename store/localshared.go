package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// LocalShared is the shared store kept in the checkout's own database
// (the shared_ tables of cchub.db): the default engine, and the one a
// PostgreSQL engine falls back to. It keeps at most keepSnapshots
// complete snapshots (the newest): it is one checkout's. Its rows are
// checksummed only, and it writes; see LocalSharedWith.
func LocalShared(s *Store) Shared { return LocalSharedWith(s, SharedOptions{}) }

// LocalSharedWith is LocalShared with a key, or to read only (opt).
func LocalSharedWith(s *Store, opt SharedOptions) Shared {
	return &localShared{s: s, rowTrust: &rowTrust{opt: opt}}
}

type localShared struct {
	s *Store
	*rowTrust
}

// Chunks: how much one statement or transaction carries at most.
// keepSnapshots is how many complete snapshots the local engine keeps:
// the checkout's latest tree. A process reading an older one finds it
// gone and resolves the graph itself. (A variable for the tests.)
var keepSnapshots = 1

const (
	chunkRows  = 500
	chunkBytes = 8 << 20
	// touchEvery is how stale last_used may get: a read moves it forward
	// only when it is older than this, so reads rarely write.
	touchEvery = 24 * time.Hour
)

func (l *localShared) Engine() string { return "sqlite" }
func (l *localShared) Where() string  { return l.s.show }
func (l *localShared) Close() error   { return nil }

// keysIn is the condition "(sha256, variant, format) is one of n keys".
func keysIn(n int) string {
	return "(sha256, variant, format) IN (VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", n), ", ") + ")"
}

func keyArgs(keys []ExtractKey) []any {
	args := make([]any, 0, 3*len(keys))
	for _, k := range keys {
		args = append(args, k.SHA256[:], k.Variant, k.Format)
	}
	return args
}

// chunks calls fn with consecutive parts of keys of at most n.
func chunks[T any](keys []T, n int, fn func(part []T) error) error {
	for len(keys) > 0 {
		k := min(len(keys), n)
		if err := fn(keys[:k]); err != nil {
			return err
		}
		keys = keys[k:]
	}
	return nil
}

// scanKey reads the key columns of a row.
func scanKey(h []byte, variant string, format int) ExtractKey {
	var k ExtractKey
	copy(k.SHA256[:], h)
	k.Variant, k.Format = variant, format
	return k
}

func (l *localShared) HaveExtracts(ctx context.Context, keys []ExtractKey) (map[ExtractKey]ExtractInfo, error) {
	out := map[ExtractKey]ExtractInfo{}
	var stale []ExtractKey
	old := time.Now().Add(-touchEvery).Unix()
	err := chunks(keys, chunkRows, func(part []ExtractKey) error {
		rows, err := l.s.db.QueryContext(ctx, `SELECT sha256, variant, format, defs, calls, last_used FROM shared_extracts WHERE `+keysIn(len(part)), keyArgs(part)...)
		if err != nil {
			return l.s.wrap("read the shared store in", err)
		}
		defer rows.Close()
		for rows.Next() {
			var h []byte
			var v string
			var f int
			var info ExtractInfo
			var used int64
			if err := rows.Scan(&h, &v, &f, &info.Defs, &info.Calls, &used); err != nil {
				return l.s.wrap("read the shared store in", err)
			}
			k := scanKey(h, v, f)
			out[k] = info
			if used < old {
				stale = append(stale, k)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, l.touchExtracts(ctx, stale)
}

func (l *localShared) GetExtracts(ctx context.Context, keys []ExtractKey, fn func(k ExtractKey, data []byte) error) (corrupt []string, err error) {
	var stale []ExtractKey
	var bad []badExtract
	old := time.Now().Add(-touchEvery).Unix()
	err = chunks(keys, chunkRows, func(part []ExtractKey) error {
		rows, err := l.s.db.QueryContext(ctx, `SELECT sha256, variant, format, data, last_used FROM shared_extracts WHERE `+keysIn(len(part)), keyArgs(part)...)
		if err != nil {
			return l.s.wrap("read the shared store in", err)
		}
		defer rows.Close()
		for rows.Next() {
			var h, blob []byte
			var v string
			var f int
			var used int64
			if err := rows.Scan(&h, &v, &f, &blob, &used); err != nil {
				return l.s.wrap("read the shared store in", err)
			}
			k := scanKey(h, v, f)
			data, err := l.open(SealExtract, ExtractKeyBytes(k), blob, func() string { return extractName(k, l.Where()) })
			if err != nil {
				if !IsUntrusted(err) { // else absent: read again, and replaced
					corrupt = append(corrupt, corruptExtract(k, l.Where(), err))
				}
				bad = append(bad, badExtract{k, blob})
				continue
			}
			if used < old {
				stale = append(stale, k)
			}
			if err := fn(k, data); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return l.s.wrap("read the shared store in", err)
		}
		return nil
	})
	if err != nil {
		return corrupt, err
	}
	if err := l.dropCorrupt(ctx, bad); err != nil {
		return corrupt, err
	}
	return corrupt, l.touchExtracts(ctx, stale)
}

// badExtract is a row found corrupt: its key and the bytes it held.
type badExtract struct {
	k    ExtractKey
	blob []byte
}

// dropCorrupt removes rows found corrupt (unless rewritten since), so
// that the extraction read again takes their place.
func (l *localShared) dropCorrupt(ctx context.Context, bad []badExtract) error {
	if len(bad) == 0 || !l.writes() {
		return nil
	}
	return l.s.Write(ctx, func(tx *sql.Tx) error {
		for _, b := range bad {
			if _, err := tx.ExecContext(ctx, `DELETE FROM shared_extracts WHERE sha256 = ? AND variant = ? AND format = ? AND data = ?`,
				b.k.SHA256[:], b.k.Variant, b.k.Format, b.blob); err != nil {
				return l.s.wrap("remove a corrupt row of the shared store in", err)
			}
		}
		return nil
	})
}

// dropSnapshot makes snapshot gen incomplete again, a row of it (or its
// index) having been found corrupt: the next process that resolves the
// graph writes it anew.
func (l *localShared) dropSnapshot(ctx context.Context, gen Gen, name string) error {
	if !l.writes() {
		return nil
	}
	return l.s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM shared_snapshot_rows WHERE gen = ? AND name = ?`, gen[:], name); err != nil {
			return l.s.wrap("remove a corrupt row of the shared store in", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE shared_snapshots SET idx = NULL WHERE gen = ?`, gen[:]); err != nil {
			return l.s.wrap("remove a corrupt row of the shared store in", err)
		}
		return nil
	})
}

// dropUntrusted removes snapshot gen, its index and every row, a part of
// it having no valid MAC: rows planted under its name go with it, and the
// next keyed writer writes it whole.
func (l *localShared) dropUntrusted(ctx context.Context, gen Gen) error {
	if !l.writes() {
		return nil
	}
	return l.s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM shared_snapshot_rows WHERE gen = ?`, gen[:]); err != nil {
			return l.s.wrap("remove an unverified snapshot of the shared store in", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM shared_snapshots WHERE gen = ?`, gen[:]); err != nil {
			return l.s.wrap("remove an unverified snapshot of the shared store in", err)
		}
		return nil
	})
}

// The descriptions of corrupt rows, one line each.
func corruptExtract(k ExtractKey, where string, err error) string {
	return fmt.Sprintf("shared store: %s: %v; ignored, the file is read again", extractName(k, where), err)
}

func extractName(k ExtractKey, where string) string {
	return fmt.Sprintf("extraction of %s (%s) in %s", hex.EncodeToString(k.SHA256[:6]), k.Variant, where)
}

func snapshotName(gen Gen, name, where string) string {
	if name == "" {
		return fmt.Sprintf("index of snapshot %s in %s", hex.EncodeToString(gen[:6]), where)
	}
	return fmt.Sprintf("row %q of snapshot %s in %s", name, hex.EncodeToString(gen[:6]), where)
}

func corruptSnapshot(gen Gen, name, where string, err error) string {
	return fmt.Sprintf("shared store: %s: %v; ignored, the graph is resolved again", snapshotName(gen, name, where), err)
}

// touchExtracts moves last_used of keys to now.
func (l *localShared) touchExtracts(ctx context.Context, keys []ExtractKey) error {
	if len(keys) == 0 || !l.writes() {
		return nil
	}
	now := time.Now().Unix()
	return chunks(keys, chunkRows, func(part []ExtractKey) error {
		return l.s.Write(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE shared_extracts SET last_used = ? WHERE `+keysIn(len(part)), append([]any{now}, keyArgs(part)...)...)
			if err != nil {
				return l.s.wrap("note the use of the shared store in", err)
			}
			return nil
		})
	})
}

func (l *localShared) PutExtracts(ctx context.Context, es []Extract) error {
	if !l.writes() {
		return nil
	}
	now := time.Now().Unix()
	for len(es) > 0 {
		n, size := 0, 0
		for n < len(es) && n < chunkRows && (n == 0 || size+len(es[n].Data) <= chunkBytes) {
			size += len(es[n].Data)
			n++
		}
		part := es[:n]
		es = es[n:]
		err := l.s.Write(ctx, func(tx *sql.Tx) error {
			st, err := tx.PrepareContext(ctx, `INSERT INTO shared_extracts(sha256, variant, format, defs, calls, data, created, last_used)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
			if err != nil {
				return l.s.wrap("write to the shared store in", err)
			}
			defer st.Close()
			for _, e := range part {
				blob := l.seal(SealExtract, ExtractKeyBytes(e.ExtractKey), e.Data)
				if _, err := st.ExecContext(ctx, e.SHA256[:], e.Variant, e.Format, e.Defs, e.Calls, blob, now, now); err != nil {
					return l.s.wrap("write to the shared store in", err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (l *localShared) HaveSnapshot(ctx context.Context, gen Gen) (bool, error) {
	if l.opt.Key != nil {
		if _, ok := l.verified.Load(gen); !ok {
			// A keyed reader trusts a snapshot's completeness only with
			// its index's MAC: a planted index would make its names read
			// as having no definitions.
			_, ok, _, err := l.SnapshotIndex(ctx, gen)
			return ok, err
		}
	}
	var used int64
	err := l.s.db.QueryRowContext(ctx, `SELECT last_used FROM shared_snapshots WHERE gen = ? AND idx IS NOT NULL`, gen[:]).Scan(&used)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, l.s.wrap("read the shared store in", err)
	}
	return true, l.touchSnapshot(ctx, gen, used)
}

// touchSnapshot moves the last use of snapshot gen (last used at used)
// to now, at most once a day.
func (l *localShared) touchSnapshot(ctx context.Context, gen Gen, used int64) error {
	now := time.Now()
	if used >= now.Add(-touchEvery).Unix() || !l.writes() {
		return nil
	}
	err := l.s.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE shared_snapshots SET last_used = ? WHERE gen = ?`, now.Unix(), gen[:])
		return err
	})
	if err != nil {
		return l.s.wrap("note the use of the shared store in", err)
	}
	return nil
}

func (l *localShared) SnapshotIndex(ctx context.Context, gen Gen) (index []byte, ok bool, corrupt []string, err error) {
	var blob []byte
	var used int64
	err = l.s.db.QueryRowContext(ctx, `SELECT idx, last_used FROM shared_snapshots WHERE gen = ? AND idx IS NOT NULL`, gen[:]).Scan(&blob, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil, nil
	}
	if err != nil {
		return nil, false, nil, l.s.wrap("read the shared store in", err)
	}
	index, err = l.open(SealIndex, SnapshotKeyBytes(gen, ""), blob, func() string { return snapshotName(gen, "", l.Where()) })
	if IsUntrusted(err) {
		return nil, false, []string{corruptSnapshot(gen, "", l.Where(), err)}, l.dropUntrusted(ctx, gen)
	}
	if err != nil {
		return nil, false, []string{corruptSnapshot(gen, "", l.Where(), err)}, l.dropSnapshot(ctx, gen, "")
	}
	if err := l.touchSnapshot(ctx, gen, used); err != nil {
		return nil, false, nil, err
	}
	l.verified.Store(gen, true)
	return index, true, nil, nil
}

func (l *localShared) SnapshotRows(ctx context.Context, gen Gen, names []string) (map[string][]byte, []string, error) {
	out := map[string][]byte{}
	var corrupt, bad []string
	untrusted := false
	err := chunks(names, chunkRows, func(part []string) error {
		args := []any{gen[:]}
		for _, n := range part {
			args = append(args, n)
		}
		rows, err := l.s.db.QueryContext(ctx, `SELECT r.name, r.data FROM shared_snapshot_rows r JOIN shared_snapshots s ON s.gen = r.gen AND s.idx IS NOT NULL
			WHERE r.gen = ? AND r.name IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(part)), ", ")+`)`, args...)
		if err != nil {
			return l.s.wrap("read the shared store in", err)
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			var blob []byte
			if err := rows.Scan(&name, &blob); err != nil {
				return l.s.wrap("read the shared store in", err)
			}
			data, err := l.open(SealSnapshot, SnapshotKeyBytes(gen, name), blob, func() string { return snapshotName(gen, name, l.Where()) })
			if err != nil {
				// A row without its MAC is not absent: a name with no
				// row has no definitions. The snapshot is not used.
				corrupt = append(corrupt, corruptSnapshot(gen, name, l.Where(), err))
				bad = append(bad, name)
				untrusted = untrusted || IsUntrusted(err)
				continue
			}
			out[name] = data
		}
		if err := rows.Err(); err != nil {
			return l.s.wrap("read the shared store in", err)
		}
		return nil
	})
	if err != nil {
		return nil, corrupt, err
	}
	if untrusted {
		return nil, corrupt, l.dropUntrusted(ctx, gen)
	}
	for _, name := range bad {
		if err := l.dropSnapshot(ctx, gen, name); err != nil {
			return nil, corrupt, err
		}
	}
	return out, corrupt, nil
}

// sortedNames is the names of rows, sorted (so every writer writes them
// in one order).
func sortedNames(rows map[string][]byte) []string {
	names := make([]string, 0, len(rows))
	for n := range rows {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// rowChunks cuts names into parts of at most chunkRows rows and about
// chunkBytes.
func rowChunks(names []string, rows map[string][]byte) [][]string {
	var out [][]string
	for len(names) > 0 {
		n, size := 0, 0
		for n < len(names) && n < chunkRows && (n == 0 || size+len(rows[names[n]]) <= chunkBytes) {
			size += len(rows[names[n]])
			n++
		}
		out = append(out, names[:n])
		names = names[n:]
	}
	return out
}

func (l *localShared) PutSnapshot(ctx context.Context, gen Gen, index []byte, rows map[string][]byte) error {
	if !l.writes() {
		return nil
	}
	var complete bool
	err := l.s.db.QueryRowContext(ctx, `SELECT idx IS NOT NULL FROM shared_snapshots WHERE gen = ?`, gen[:]).Scan(&complete)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return l.s.wrap("read the shared store in", err)
	}
	if complete {
		return nil
	}
	now := time.Now().Unix()
	if err := l.s.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO shared_snapshots(gen, idx, rows, bytes, created, last_used) VALUES (?, NULL, 0, 0, ?, ?) ON CONFLICT DO NOTHING`, gen[:], now, now)
		return err
	}); err != nil {
		return l.s.wrap("write to the shared store in", err)
	}
	var total int64
	for _, part := range rowChunks(sortedNames(rows), rows) {
		err := l.s.Write(ctx, func(tx *sql.Tx) error {
			st, err := tx.PrepareContext(ctx, `INSERT INTO shared_snapshot_rows(gen, name, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, name := range part {
				blob := l.seal(SealSnapshot, SnapshotKeyBytes(gen, name), rows[name])
				total += int64(len(blob))
				if _, err := st.ExecContext(ctx, gen[:], name, blob); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return l.s.wrap("write to the shared store in", err)
		}
	}
	idx := l.seal(SealIndex, SnapshotKeyBytes(gen, ""), index)
	total += int64(len(idx))
	err = l.s.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE shared_snapshots SET idx = ?, rows = ?, bytes = ?, last_used = ? WHERE gen = ? AND idx IS NULL`,
			idx, len(rows), total, now, gen[:])
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // completed by another writer meanwhile
		}
		// One checkout needs its current graph and the one before (a
		// branch switched back): older complete snapshots go.
		old := `SELECT gen FROM shared_snapshots WHERE idx IS NOT NULL ORDER BY created DESC, last_used DESC LIMIT -1 OFFSET ?`
		if _, err := tx.ExecContext(ctx, `DELETE FROM shared_snapshot_rows WHERE gen IN (`+old+`)`, keepSnapshots); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM shared_snapshots WHERE gen IN (`+old+`)`, keepSnapshots)
		return err
	})
	if err != nil {
		return l.s.wrap("write to the shared store in", err)
	}
	return nil
}

func (l *localShared) Stats(ctx context.Context) (SharedStats, error) {
	st := SharedStats{Engine: l.Engine(), Where: l.Where()}
	var oldest, newest sql.NullInt64
	var pages, pageSize int64
	err := func() error {
		db := l.s.db
		if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&st.Schema); err != nil {
			return err
		}
		if err := db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(data)), 0), min(last_used), max(last_used) FROM shared_extracts`).
			Scan(&st.Extracts, &st.ExtractBytes, &oldest, &newest); err != nil {
			return err
		}
		if err := db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(data)), 0) FROM shared_extracts WHERE variant = ?`, TokensVariant).
			Scan(&st.TokenFilters, &st.TokenBytes); err != nil {
			return err
		}
		var syntaxBytes int64
		if err := db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(data)), 0) FROM shared_extracts WHERE substr(variant, 1, ?) = ?`, len(SyntaxVariant), SyntaxVariant).
			Scan(&st.SyntaxRecords, &syntaxBytes); err != nil {
			return err
		}
		st.Extracts -= st.TokenFilters + st.SyntaxRecords
		st.ExtractBytes -= st.TokenBytes + syntaxBytes
		var so, sn sql.NullInt64
		if err := db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(rows), 0), coalesce(sum(bytes), 0), min(last_used), max(last_used) FROM shared_snapshots WHERE idx IS NOT NULL`).
			Scan(&st.Snapshots, &st.SnapshotRows, &st.SnapshotBytes, &so, &sn); err != nil {
			return err
		}
		oldest, newest = minNull(oldest, so, true), minNull(newest, sn, false)
		if err := db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
			return err
		}
		return db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize)
	}()
	if err != nil {
		return st, l.s.wrap("read the shared store's size in", err)
	}
	st.TotalBytes = pages * pageSize
	if oldest.Valid {
		st.OldestUse = time.Unix(oldest.Int64, 0)
	}
	if newest.Valid {
		st.NewestUse = time.Unix(newest.Int64, 0)
	}
	return st, nil
}

// minNull is the least (or, with least false, the greatest) of a and b
// that are valid.
func minNull(a, b sql.NullInt64, least bool) sql.NullInt64 {
	switch {
	case !a.Valid:
		return b
	case !b.Valid:
		return a
	case (b.Int64 < a.Int64) == least:
		return b
	}
	return a
}

func (l *localShared) GC(ctx context.Context, unused time.Duration) (GCStats, error) {
	if !l.writes() {
		return GCStats{}, errReadOnly
	}
	var gc GCStats
	cutoff := time.Now().Add(-unused).Unix()
	err := l.s.Write(ctx, func(tx *sql.Tx) error {
		// An extraction a file of this checkout holds is in use, however
		// long ago it was last read.
		cond := `last_used < ? AND NOT EXISTS (SELECT 1 FROM graph_files g WHERE g.sha256 = shared_extracts.sha256 AND g.variant = shared_extracts.variant AND g.format = shared_extracts.format)`
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(data)), 0) FROM shared_extracts WHERE `+cond, cutoff).Scan(&gc.Extracts, &gc.Bytes); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM shared_extracts WHERE `+cond, cutoff); err != nil {
			return err
		}
		gone := `SELECT gen FROM shared_snapshots WHERE (idx IS NOT NULL AND last_used < ?1) OR (idx IS NULL AND created < ?1)`
		var rows, bytes int64
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(data)), 0) FROM shared_snapshot_rows WHERE gen IN (`+gone+`)`, cutoff).Scan(&rows, &bytes); err != nil {
			return err
		}
		var idxBytes int64
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE idx IS NOT NULL), coalesce(sum(length(idx)), 0) FROM shared_snapshots WHERE gen IN (`+gone+`)`, cutoff).Scan(&gc.Snapshots, &idxBytes); err != nil {
			return err
		}
		gc.Rows, gc.Bytes = rows, gc.Bytes+bytes+idxBytes
		if _, err := tx.ExecContext(ctx, `DELETE FROM shared_snapshot_rows WHERE gen IN (`+gone+`)`, cutoff); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM shared_snapshots WHERE gen IN (`+gone+`)`, cutoff)
		return err
	})
	if err != nil {
		return GCStats{}, l.s.wrap("collect the shared store's garbage in", err)
	}
	return gc, nil
}

// SharedNotices returns what sh has to say since it was last asked (a
// PostgreSQL engine that fell back to the local one says why), each
// notice once; nil for an engine that never has any.
func SharedNotices(sh Shared) []string {
	if n, ok := sh.(interface{ Notices() []string }); ok {
		return n.Notices()
	}
	return nil
}

// IsOwn says whether sh is s's own shared store (the checkout's SQLite
// file, not a store other checkouts read): what is put there by content
// serves no other checkout.
func IsOwn(sh Shared, s *Store) bool {
	l, ok := sh.(*localShared)
	return ok && l.s == s
}
