package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The PostgreSQL engine of the shared store: tables prefixed cchub_ in
// the database a postgres:// URL names, shared by every checkout, path
// and machine that names it. Writes are single statements in autocommit
// (a large put is cut into chunks), each inserting its keys in sorted
// order and keeping what is there (ON CONFLICT DO NOTHING), so writers
// of overlapping sets wait for each other in one order and never
// deadlock; a deadlock or serialization failure reported anyway is tried
// again. When the database fails mid-run, the engine says so once and
// goes on with the checkout's own store for the rest of the process.

// Deadlines of the PostgreSQL engine.
const (
	pgConnectTimeout = 5 * time.Second
	pgStmtTimeout    = 30 * time.Second
	pgMaxConns       = 4
	// pgReadChunk is how many keys one read statement asks for (a
	// chunk's data is held in memory at once).
	pgReadChunk = 1000
	// pgRetries is how often a statement that deadlocked or failed to
	// serialize is tried again.
	pgRetries = 5
)

// pgMigrations is the PostgreSQL engine's schema, numbered from 1 without
// gaps, never edited once released (see migrations).
var pgMigrations = []migration{
	{1, "content-addressed store", `
-- One file content's extraction, keyed by the content's SHA-256, its
-- variant and the extractor's format; data is sealed (store.Seal). Times
-- are Unix seconds; last_used is moved forward at most once a day.
CREATE TABLE cchub_extracts (
	sha256    bytea   NOT NULL CHECK (length(sha256) = 32),
	variant   text    NOT NULL,
	format    integer NOT NULL,
	defs      integer NOT NULL,
	calls     integer NOT NULL,
	data      bytea   NOT NULL,
	created   bigint  NOT NULL,
	last_used bigint  NOT NULL,
	PRIMARY KEY (sha256, variant, format)
);
CREATE INDEX cchub_extracts_last_used ON cchub_extracts (last_used);
-- A resolved graph of one tree (gen: the tree's SHA-256): its rows, one
-- per name, then its index, whose presence makes it complete.
CREATE TABLE cchub_snapshots (
	gen       bytea  PRIMARY KEY CHECK (length(gen) = 32),
	idx       bytea,
	rows      bigint NOT NULL,
	bytes     bigint NOT NULL,
	created   bigint NOT NULL,
	last_used bigint NOT NULL
);
CREATE INDEX cchub_snapshots_last_used ON cchub_snapshots (last_used);
CREATE TABLE cchub_snapshot_rows (
	gen  bytea NOT NULL,
	name text  NOT NULL,
	data bytea NOT NULL,
	PRIMARY KEY (gen, name)
);
`},
}

// pgMigrateLock is the advisory lock key under which migrations run (so
// that many processes opening a new database at once apply them once).
const pgMigrateLock = 0x63636875620001 // "cchub", 1

// OpenShared opens the shared store spec names: "" is the checkout's own
// (LocalShared(local)); a postgres:// or postgresql:// URL is a
// PostgreSQL database, connected, checked and migrated here. When that
// fails (unreachable, refused, a newer schema, a spec it does not know)
// it returns the checkout's own store and a one-line notice saying what
// happened and how to fix it. local must not be nil. opt gives the key
// rows are sealed and checked with, and whether the process may write:
// the checkout's own store, when it stands in for a database that failed,
// is written whatever opt.Mode (it is not what others read).
func OpenShared(ctx context.Context, spec string, local *Store, opt SharedOptions) (Shared, string) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "sqlite" {
		return LocalSharedWith(local, opt), ""
	}
	own := LocalSharedWith(local, SharedOptions{Key: opt.Key})
	const meanwhile = "the index is kept in this checkout's store meanwhile"
	if !strings.HasPrefix(spec, "postgres://") && !strings.HasPrefix(spec, "postgresql://") {
		return own, fmt.Sprintf("shared store: %q is not a store cchub knows; %s; give a postgres:// or postgresql:// URL (postgres://USER@HOST:PORT/DATABASE), or sqlite for this checkout's own store, in --store / CCHUB_STORE",
			Redact(spec), meanwhile)
	}
	cfg, err := pgxpool.ParseConfig(spec)
	if err != nil {
		return own, fmt.Sprintf("shared store: %q is not a PostgreSQL URL cchub can read (%v); %s; give postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (a unix socket: ?host=/DIR) in --store / CCHUB_STORE",
			Redact(spec), oneLine(err), meanwhile)
	}
	cfg.MaxConns = pgMaxConns
	cfg.ConnConfig.ConnectTimeout = pgConnectTimeout
	p := &pgShared{where: Redact(spec), local: own, rowTrust: &rowTrust{opt: opt}}
	addr := fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port)
	cctx, cancel := context.WithTimeout(ctx, pgConnectTimeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(cctx, cfg)
	if err == nil {
		p.pool = pool
		if err = pool.Ping(cctx); err == nil {
			err = p.migrate(ctx)
		}
		if err == nil {
			err = p.readTimeout(cctx)
		}
		if err != nil {
			pool.Close()
		}
	}
	if err == nil {
		return p, ""
	}
	var pe *pgconn.PgError
	var newer *errNewerSchema
	user, db := cfg.ConnConfig.User, cfg.ConnConfig.Database
	switch {
	case errors.Is(err, errNotMigrated):
		return own, fmt.Sprintf("shared store: database %q at %s lacks cchub's tables (or an update of them), and --store-mode read writes nothing; %s; run cchub once against it where it may be written (CI, with the store key)",
			db, addr, meanwhile)
	case errors.As(err, &newer):
		return own, fmt.Sprintf("shared store: database %q at %s was migrated by a newer cchub (version %d, this one knows %d): upgrade cchub or use another database; %s",
			db, addr, newer.have, newer.known, meanwhile)
	case errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "28000"):
		return own, fmt.Sprintf("shared store: PostgreSQL at %s refused user %q (%s); %s; fix the user or password in --store / CCHUB_STORE, or let the user in (pg_hba.conf, ALTER ROLE … LOGIN)",
			addr, user, pe.Message, meanwhile)
	case errors.As(err, &pe) && pe.Code == "3D000":
		return own, fmt.Sprintf("shared store: database %q does not exist at %s; %s; create it (createdb %s) or fix --store / CCHUB_STORE",
			db, addr, meanwhile, db)
	case errors.As(err, &pe) && pe.Code == "42501":
		return own, fmt.Sprintf("shared store: user %q may not make cchub's tables in database %q at %s (%s); %s; grant it CREATE on the schema, or run cchub once as the database's owner",
			user, db, addr, pe.Message, meanwhile)
	case errors.As(err, &pe):
		return own, fmt.Sprintf("shared store: PostgreSQL at %s refused to open database %q (%s); %s; fix the server or --store / CCHUB_STORE",
			addr, db, oneLine(pe), meanwhile)
	case ctx.Err() != nil:
		return own, fmt.Sprintf("shared store: interrupted while connecting to PostgreSQL at %s; %s", addr, meanwhile)
	}
	return own, fmt.Sprintf("shared store: PostgreSQL could not be reached at %s (%s); %s; start it or fix --store / CCHUB_STORE",
		addr, reachError(err), meanwhile)
}

// reachError says briefly why a connection failed.
func reachError(err error) string {
	var ne net.Error
	switch {
	case pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return fmt.Sprintf("no answer within %s", pgConnectTimeout)
	case strings.Contains(err.Error(), "connection refused"):
		return "connection refused"
	case strings.Contains(err.Error(), "no such file or directory"):
		return "no server socket there"
	}
	return oneLine(err)
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// Redact is spec as messages may show it: without a password (in the
// user part or the query).
func Redact(spec string) string {
	u, err := url.Parse(spec)
	if err != nil {
		if i := strings.Index(spec, "://"); i >= 0 {
			return spec[:i+3] + "…"
		}
		return "…"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if q := u.Query(); q.Has("password") {
		q.Del("password")
		u.RawQuery = strings.ReplaceAll(q.Encode(), "%2F", "/")
	}
	return u.String()
}

// errNotMigrated is a database that needs migrating, opened to read only.
var errNotMigrated = errors.New("the database is not migrated, and the store is opened to read only")

// readTimeout reads the server's statement_timeout for this session (set
// in the URL, ?statement_timeout=…, or for the role or database): with
// cchub's own bound, the bound a statement runs under, which a notice of
// a statement cut short names.
func (p *pgShared) readTimeout(ctx context.Context) error {
	var ms int64
	err := p.pool.QueryRow(ctx, `SELECT setting::bigint FROM pg_settings WHERE name = 'statement_timeout'`).Scan(&ms)
	if err != nil {
		return err
	}
	p.serverTimeout = time.Duration(ms) * time.Millisecond
	return nil
}

// stmtBound says the bound a statement runs under: cchub's own, or the
// server's statement_timeout where that is shorter.
func (p *pgShared) stmtBound() string {
	if p.serverTimeout > 0 && p.serverTimeout < pgStmtTimeout {
		return fmt.Sprintf("the server's statement_timeout, %s", p.serverTimeout)
	}
	return fmt.Sprintf("cchub's statement bound, %s", pgStmtTimeout)
}

// errNewerSchema is a database migrated further than this cchub knows.
type errNewerSchema struct{ have, known int }

func (e *errNewerSchema) Error() string {
	return fmt.Sprintf("schema at version %d, this cchub knows up to %d", e.have, e.known)
}

// migrate applies the migrations the database lacks, under an advisory
// lock held by the transaction, so processes that open a new database at
// once apply them once.
func (p *pgShared) migrate(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, pgStmtTimeout)
	defer cancel()
	// A database migrated already is only read: a role that may read and
	// write cchub's tables, but not create tables, uses it.
	known := pgMigrations[len(pgMigrations)-1].version
	var have int
	if err := p.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM cchub_schema_migrations`).Scan(&have); err == nil {
		if have > known {
			return &errNewerSchema{have, known}
		}
		if have == known {
			return nil
		}
	}
	if !p.writes() {
		return errNotMigrated
	}
	return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(pgMigrateLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS cchub_schema_migrations (
			version integer PRIMARY KEY,
			name    text NOT NULL,
			applied timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM cchub_schema_migrations`).Scan(&have); err != nil {
			return err
		}
		if have > known {
			return &errNewerSchema{have, known}
		}
		for _, m := range pgMigrations[have:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO cchub_schema_migrations(version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
}

type pgShared struct {
	pool  *pgxpool.Pool
	where string
	local Shared
	*rowTrust
	// serverTimeout is the server's statement_timeout (0: none).
	serverTimeout time.Duration

	fell    atomic.Bool // every call goes to local
	mu      sync.Mutex
	notices []string
}

func (p *pgShared) Engine() string {
	if p.fell.Load() {
		return p.local.Engine()
	}
	return "postgres"
}

func (p *pgShared) Where() string {
	if p.fell.Load() {
		return p.local.Where()
	}
	return p.where
}

// Rejected counts the rows refused for their MAC, here and in the
// checkout's store this process fell back to.
func (p *pgShared) Rejected() (int64, string) {
	n, first := p.rowTrust.Rejected()
	m, lfirst := SharedRejected(p.local)
	if first == "" {
		first = lfirst
	}
	return n + m, first
}

func (p *pgShared) Close() error {
	p.pool.Close()
	return nil
}

// Notices returns what the engine has said since last asked.
func (p *pgShared) Notices() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.notices
	p.notices = nil
	return n
}

// failed decides what err, from the PostgreSQL half of a call, means:
// the caller's cancellation is returned as it is (false); any other
// failure makes the engine fall back to the local store for the rest of
// the process, says so once, and asks the caller to do its work there
// (true).
func (p *pgShared) failed(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if p.fell.CompareAndSwap(false, true) {
		p.mu.Lock()
		p.notices = append(p.notices, fmt.Sprintf("shared store: PostgreSQL at %s %s; this process goes on with this checkout's store (%s), and what was written before is kept; check the server, then run again",
			p.where, p.midRun(err), p.local.Where()))
		p.mu.Unlock()
	}
	return true
}

// midRun says what went wrong with a statement, with the bound it hit.
func (p *pgShared) midRun(err error) string {
	var pe *pgconn.PgError
	var ne net.Error
	switch {
	case errors.As(err, &pe) && pe.Code == "57014":
		return fmt.Sprintf("cancelled a statement mid-run (%s: %s)", pe.Message, p.stmtBound())
	case errors.As(err, &pe) && pe.Code == "55P03":
		return fmt.Sprintf("could not lock a row or table mid-run (%s: the server's lock_timeout)", pe.Message)
	case errors.As(err, &pe) && !strings.HasPrefix(pe.Code, "08") && !strings.HasPrefix(pe.Code, "57P"):
		return fmt.Sprintf("failed mid-run (%s)", oneLine(pe))
	case errors.As(err, &pe):
		return fmt.Sprintf("could not be reached mid-run (%s)", oneLine(pe))
	case pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return fmt.Sprintf("gave no answer mid-run within %s", p.stmtBound())
	}
	return fmt.Sprintf("could not be reached mid-run (%s)", reachError(err))
}

// pgRetried counts the statements tried again (for tests: sorted keys
// should leave nothing to retry).
var pgRetried atomic.Int64

// stmt runs fn with a statement's deadline, again when PostgreSQL
// reports a deadlock or a serialization failure.
func stmt(ctx context.Context, fn func(ctx context.Context) error) error {
	for attempt := 0; ; attempt++ {
		sctx, cancel := context.WithTimeout(ctx, pgStmtTimeout)
		err := fn(sctx)
		cancel()
		var pe *pgconn.PgError
		if err == nil || attempt == pgRetries || !errors.As(err, &pe) || (pe.Code != "40P01" && pe.Code != "40001") {
			return err
		}
		pgRetried.Add(1)
		select {
		case <-time.After(time.Duration(attempt+1) * 20 * time.Millisecond):
		case <-ctx.Done():
			return err
		}
	}
}

// keyArrays is keys as the columns unnest reads.
func keyArrays(keys []ExtractKey) (hs [][]byte, vs []string, fs []int32) {
	for _, k := range keys {
		hs = append(hs, k.SHA256[:])
		vs = append(vs, k.Variant)
		fs = append(fs, int32(k.Format))
	}
	return
}

const pgKeys = `unnest($1::bytea[], $2::text[], $3::int4[]) AS k(sha256, variant, format)`

func (p *pgShared) HaveExtracts(ctx context.Context, keys []ExtractKey) (map[ExtractKey]ExtractInfo, error) {
	if p.fell.Load() {
		return p.local.HaveExtracts(ctx, keys)
	}
	out := map[ExtractKey]ExtractInfo{}
	var stale []ExtractKey
	old := time.Now().Add(-touchEvery).Unix()
	err := chunks(keys, pgReadChunk, func(part []ExtractKey) error {
		return stmt(ctx, func(ctx context.Context) error {
			hs, vs, fs := keyArrays(part)
			rows, err := p.pool.Query(ctx, `SELECT e.sha256, e.variant, e.format, e.defs, e.calls, e.last_used FROM `+pgKeys+`
				JOIN cchub_extracts e USING (sha256, variant, format)`, hs, vs, fs)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var h []byte
				var v string
				var f int
				var info ExtractInfo
				var used int64
				if err := rows.Scan(&h, &v, &f, &info.Defs, &info.Calls, &used); err != nil {
					return err
				}
				k := scanKey(h, v, f)
				out[k] = info
				if used < old {
					stale = append(stale, k)
				}
			}
			return rows.Err()
		})
	})
	if err == nil {
		err = p.touchExtracts(ctx, stale)
	}
	if err != nil {
		if p.failed(ctx, err) {
			return p.local.HaveExtracts(ctx, keys)
		}
		return nil, p.wrap("read", err)
	}
	return out, nil
}

// wrap says which store failed.
func (p *pgShared) wrap(what string, err error) error {
	return fmt.Errorf("shared store: %s %s: %w", what, p.where, err)
}

func (p *pgShared) GetExtracts(ctx context.Context, keys []ExtractKey, fn func(k ExtractKey, data []byte) error) (corrupt []string, err error) {
	if p.fell.Load() {
		return p.local.GetExtracts(ctx, keys, fn)
	}
	done := map[ExtractKey]bool{} // passed to fn (or found corrupt)
	var stale []ExtractKey
	var bad []badExtract
	var fnErr error
	old := time.Now().Add(-touchEvery).Unix()
	type row struct {
		k    ExtractKey
		blob []byte
		used int64
	}
	err = chunks(keys, pgReadChunk, func(part []ExtractKey) error {
		// A chunk is read whole before fn sees it: the statement's
		// deadline is not spent on the caller's work, and a statement
		// tried again passes nothing twice.
		var got []row
		err := stmt(ctx, func(ctx context.Context) error {
			got = got[:0]
			hs, vs, fs := keyArrays(part)
			rows, err := p.pool.Query(ctx, `SELECT e.sha256, e.variant, e.format, e.data, e.last_used FROM `+pgKeys+`
				JOIN cchub_extracts e USING (sha256, variant, format)`, hs, vs, fs)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var h []byte
				var v string
				var f int
				var r row
				if err := rows.Scan(&h, &v, &f, &r.blob, &r.used); err != nil {
					return err
				}
				r.k = scanKey(h, v, f)
				got = append(got, r)
			}
			return rows.Err()
		})
		if err != nil {
			return err
		}
		for _, r := range got {
			if done[r.k] {
				continue // asked twice
			}
			done[r.k] = true
			data, err := p.open(SealExtract, ExtractKeyBytes(r.k), r.blob, func() string { return extractName(r.k, p.where) })
			if err != nil {
				if !IsUntrusted(err) { // else absent: read again, and replaced
					corrupt = append(corrupt, corruptExtract(r.k, p.where, err))
				}
				bad = append(bad, badExtract{r.k, r.blob})
				continue
			}
			if r.used < old {
				stale = append(stale, r.k)
			}
			if err := fn(r.k, data); err != nil {
				fnErr = err
				return err
			}
		}
		return nil
	})
	if fnErr != nil {
		return corrupt, fnErr
	}
	for _, b := range bad {
		if err != nil || !p.writes() {
			break
		}
		// Removed (unless rewritten since): the extraction read again
		// takes its place.
		err = stmt(ctx, func(ctx context.Context) error {
			_, err := p.pool.Exec(ctx, `DELETE FROM cchub_extracts WHERE sha256 = $1 AND variant = $2 AND format = $3 AND data = $4`,
				b.k.SHA256[:], b.k.Variant, int32(b.k.Format), b.blob)
			return err
		})
	}
	if err == nil {
		err = p.touchExtracts(ctx, stale)
	}
	if err != nil {
		if p.failed(ctx, err) {
			rest := slices.DeleteFunc(slices.Clone(keys), func(k ExtractKey) bool { return done[k] })
			more, err := p.local.GetExtracts(ctx, rest, fn)
			return append(corrupt, more...), err
		}
		return corrupt, p.wrap("read", err)
	}
	return corrupt, nil
}

// touchExtracts moves last_used of keys to now. Rows another statement
// holds are skipped (it is moving them, or writing them), so touches
// never wait for each other.
func (p *pgShared) touchExtracts(ctx context.Context, keys []ExtractKey) error {
	if !p.writes() {
		return nil
	}
	now := time.Now()
	return chunks(keys, pgReadChunk, func(part []ExtractKey) error {
		return stmt(ctx, func(ctx context.Context) error {
			hs, vs, fs := keyArrays(part)
			_, err := p.pool.Exec(ctx, `UPDATE cchub_extracts SET last_used = $4 WHERE ctid IN (
				SELECT e.ctid FROM `+pgKeys+` JOIN cchub_extracts e USING (sha256, variant, format)
				WHERE e.last_used < $5 ORDER BY e.sha256, e.variant COLLATE "C", e.format FOR UPDATE OF e SKIP LOCKED)`, hs, vs, fs, now.Unix(), now.Add(-touchEvery).Unix())
			return err
		})
	})
}

func (p *pgShared) PutExtracts(ctx context.Context, es []Extract) error {
	if p.fell.Load() {
		return p.local.PutExtracts(ctx, es)
	}
	if !p.writes() {
		return nil
	}
	now := time.Now().Unix()
	rest := es
	var err error
	for len(rest) > 0 && err == nil {
		n, size := 0, 0
		for n < len(rest) && n < chunkRows && (n == 0 || size+len(rest[n].Data) <= chunkBytes) {
			size += len(rest[n].Data)
			n++
		}
		part := rest[:n]
		rest = rest[n:]
		var hs, blobs [][]byte
		var vs []string
		var fs, defs, calls []int32
		for _, e := range part {
			hs = append(hs, e.SHA256[:])
			vs = append(vs, e.Variant)
			fs = append(fs, int32(e.Format))
			defs = append(defs, int32(e.Defs))
			calls = append(calls, int32(e.Calls))
			blobs = append(blobs, p.seal(SealExtract, ExtractKeyBytes(e.ExtractKey), e.Data))
		}
		err = stmt(ctx, func(ctx context.Context) error {
			_, err := p.pool.Exec(ctx, `INSERT INTO cchub_extracts(sha256, variant, format, defs, calls, data, created, last_used)
				SELECT k.*, $7, $7 FROM unnest($1::bytea[], $2::text[], $3::int4[], $4::int4[], $5::int4[], $6::bytea[]) AS k(sha256, variant, format, defs, calls, data)
				ORDER BY k.sha256, k.variant COLLATE "C", k.format
				ON CONFLICT DO NOTHING`, hs, vs, fs, defs, calls, blobs, now)
			return err
		})
	}
	if err != nil {
		if p.failed(ctx, err) {
			// What PostgreSQL committed stays there; this process reads
			// from here on from the local store, which gets all of es.
			return p.local.PutExtracts(ctx, es)
		}
		return p.wrap("write to", err)
	}
	return nil
}

func (p *pgShared) HaveSnapshot(ctx context.Context, gen Gen) (bool, error) {
	if p.fell.Load() {
		return p.local.HaveSnapshot(ctx, gen)
	}
	if p.opt.Key != nil {
		if _, ok := p.verified.Load(gen); !ok {
			// A keyed reader trusts a snapshot's completeness only with
			// its index's MAC: a planted index would make its names read
			// as having no definitions.
			_, ok, _, err := p.SnapshotIndex(ctx, gen)
			return ok, err
		}
	}
	_, found, err := p.completeSnapshot(ctx, gen, false)
	if err != nil {
		if p.failed(ctx, err) {
			return p.local.HaveSnapshot(ctx, gen)
		}
		return false, p.wrap("read", err)
	}
	return found, nil
}

// completeSnapshot looks snapshot gen up (its sealed index too, with
// index), complete ones only, and notes its use.
func (p *pgShared) completeSnapshot(ctx context.Context, gen Gen, index bool) (blob []byte, found bool, err error) {
	col := "NULL"
	if index {
		col = "idx"
	}
	var used int64
	found = true
	err = stmt(ctx, func(ctx context.Context) error {
		err := p.pool.QueryRow(ctx, `SELECT `+col+`, last_used FROM cchub_snapshots WHERE gen = $1 AND idx IS NOT NULL`, gen[:]).Scan(&blob, &used)
		if errors.Is(err, pgx.ErrNoRows) {
			found = false
			return nil
		}
		return err
	})
	if err == nil && found {
		err = p.touchSnapshot(ctx, gen, used)
	}
	return blob, found, err
}

// touchSnapshot moves the last use of snapshot gen (last used at used)
// to now, at most once a day.
func (p *pgShared) touchSnapshot(ctx context.Context, gen Gen, used int64) error {
	now := time.Now()
	if used >= now.Add(-touchEvery).Unix() || !p.writes() {
		return nil
	}
	return stmt(ctx, func(ctx context.Context) error {
		_, err := p.pool.Exec(ctx, `UPDATE cchub_snapshots SET last_used = $2 WHERE gen = $1 AND last_used < $2`, gen[:], now.Unix())
		return err
	})
}

func (p *pgShared) SnapshotIndex(ctx context.Context, gen Gen) (index []byte, ok bool, corrupt []string, err error) {
	if p.fell.Load() {
		return p.local.SnapshotIndex(ctx, gen)
	}
	blob, found, err := p.completeSnapshot(ctx, gen, true)
	if err != nil {
		if p.failed(ctx, err) {
			return p.local.SnapshotIndex(ctx, gen)
		}
		return nil, false, nil, p.wrap("read", err)
	}
	if !found {
		return nil, false, nil, nil
	}
	index, err = p.open(SealIndex, SnapshotKeyBytes(gen, ""), blob, func() string { return snapshotName(gen, "", p.where) })
	if IsUntrusted(err) {
		return nil, false, []string{corruptSnapshot(gen, "", p.where, err)}, p.dropUntrusted(ctx, gen)
	}
	if err != nil {
		return nil, false, []string{corruptSnapshot(gen, "", p.where, err)}, p.dropSnapshot(ctx, gen, "")
	}
	p.verified.Store(gen, true)
	return index, true, nil, nil
}

func (p *pgShared) SnapshotRows(ctx context.Context, gen Gen, names []string) (map[string][]byte, []string, error) {
	if p.fell.Load() {
		return p.local.SnapshotRows(ctx, gen, names)
	}
	out := map[string][]byte{}
	var corrupt, bad []string
	untrusted := false
	err := chunks(names, pgReadChunk, func(part []string) error {
		return stmt(ctx, func(ctx context.Context) error {
			rows, err := p.pool.Query(ctx, `SELECT r.name, r.data FROM cchub_snapshot_rows r
				WHERE r.gen = $1 AND r.name = ANY($2::text[])
				AND EXISTS (SELECT 1 FROM cchub_snapshots s WHERE s.gen = $1 AND s.idx IS NOT NULL)`, gen[:], part)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var name string
				var blob []byte
				if err := rows.Scan(&name, &blob); err != nil {
					return err
				}
				if _, dup := out[name]; dup {
					continue
				}
				data, err := p.open(SealSnapshot, SnapshotKeyBytes(gen, name), blob, func() string { return snapshotName(gen, name, p.where) })
				if err != nil {
					// A row without its MAC is not absent: a name with
					// no row has no definitions. The snapshot is not used.
					corrupt = append(corrupt, corruptSnapshot(gen, name, p.where, err))
					bad = append(bad, name)
					untrusted = untrusted || IsUntrusted(err)
					continue
				}
				out[name] = data
			}
			return rows.Err()
		})
	})
	if err != nil {
		if p.failed(ctx, err) {
			return p.local.SnapshotRows(ctx, gen, names)
		}
		return nil, corrupt, p.wrap("read", err)
	}
	if untrusted {
		if err := p.dropUntrusted(ctx, gen); err != nil {
			return nil, corrupt, p.wrap("write to", err)
		}
		return nil, corrupt, nil
	}
	for _, name := range bad {
		if err := p.dropSnapshot(ctx, gen, name); err != nil {
			return nil, corrupt, p.wrap("write to", err)
		}
	}
	return out, corrupt, nil
}

// dropSnapshot makes snapshot gen incomplete again, a row of it (or its
// index, name "") having been found corrupt: the next process that
// resolves the graph writes it anew.
func (p *pgShared) dropSnapshot(ctx context.Context, gen Gen, name string) error {
	if !p.writes() {
		return nil
	}
	// One statement: a reader never finds the row gone from a snapshot
	// still marked complete.
	return stmt(ctx, func(ctx context.Context) error {
		_, err := p.pool.Exec(ctx, `WITH gone AS (DELETE FROM cchub_snapshot_rows WHERE gen = $1 AND name = $2)
			UPDATE cchub_snapshots SET idx = NULL WHERE gen = $1`, gen[:], name)
		return err
	})
}

// dropUntrusted removes snapshot gen, its index and every row, a part of
// it having no valid MAC: rows planted under its name go with it, and the
// next keyed writer writes it whole.
func (p *pgShared) dropUntrusted(ctx context.Context, gen Gen) error {
	if !p.writes() {
		return nil
	}
	return stmt(ctx, func(ctx context.Context) error {
		_, err := p.pool.Exec(ctx, `WITH gone AS (DELETE FROM cchub_snapshots WHERE gen = $1)
			DELETE FROM cchub_snapshot_rows WHERE gen = $1`, gen[:])
		return err
	})
}

func (p *pgShared) PutSnapshot(ctx context.Context, gen Gen, index []byte, rows map[string][]byte) error {
	if p.fell.Load() {
		return p.local.PutSnapshot(ctx, gen, index, rows)
	}
	if !p.writes() {
		return nil
	}
	err := p.putSnapshot(ctx, gen, index, rows)
	if err != nil {
		if p.failed(ctx, err) {
			return p.local.PutSnapshot(ctx, gen, index, rows)
		}
		return p.wrap("write to", err)
	}
	return nil
}

func (p *pgShared) putSnapshot(ctx context.Context, gen Gen, index []byte, rows map[string][]byte) error {
	var complete bool
	err := stmt(ctx, func(ctx context.Context) error {
		err := p.pool.QueryRow(ctx, `SELECT idx IS NOT NULL FROM cchub_snapshots WHERE gen = $1`, gen[:]).Scan(&complete)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil || complete {
		return err
	}
	now := time.Now().Unix()
	if err := stmt(ctx, func(ctx context.Context) error {
		_, err := p.pool.Exec(ctx, `INSERT INTO cchub_snapshots(gen, idx, rows, bytes, created, last_used) VALUES ($1, NULL, 0, 0, $2, $2) ON CONFLICT DO NOTHING`, gen[:], now)
		return err
	}); err != nil {
		return err
	}
	var total int64
	for _, part := range rowChunks(sortedNames(rows), rows) {
		blobs := make([][]byte, len(part))
		for i, name := range part {
			blobs[i] = p.seal(SealSnapshot, SnapshotKeyBytes(gen, name), rows[name])
			total += int64(len(blobs[i]))
		}
		if err := stmt(ctx, func(ctx context.Context) error {
			_, err := p.pool.Exec(ctx, `INSERT INTO cchub_snapshot_rows(gen, name, data)
				SELECT $1, k.name, k.data FROM unnest($2::text[], $3::bytea[]) AS k(name, data)
				ORDER BY k.name COLLATE "C" ON CONFLICT DO NOTHING`, gen[:], part, blobs)
			return err
		}); err != nil {
			return err
		}
	}
	idx := p.seal(SealIndex, SnapshotKeyBytes(gen, ""), index)
	total += int64(len(idx))
	return stmt(ctx, func(ctx context.Context) error {
		// A collection may have removed the incomplete row (and rows)
		// meanwhile, if it was older than the collection's limit: then
		// it stays absent, never complete with rows missing.
		_, err := p.pool.Exec(ctx, `UPDATE cchub_snapshots SET idx = $2, rows = $3, bytes = $4, last_used = $5
			WHERE gen = $1 AND idx IS NULL`, gen[:], idx, int64(len(rows)), total, now)
		return err
	})
}

func (p *pgShared) Stats(ctx context.Context) (SharedStats, error) {
	if p.fell.Load() {
		return p.local.Stats(ctx)
	}
	st := SharedStats{Engine: "postgres", Where: p.where}
	var oldest, newest, so, sn *int64
	var syntaxBytes int64
	err := stmt(ctx, func(ctx context.Context) error {
		return p.pool.QueryRow(ctx, `SELECT
			(SELECT coalesce(max(version), 0) FROM cchub_schema_migrations),
			(SELECT count(*) FROM cchub_extracts),
			(SELECT coalesce(sum(length(data)), 0) FROM cchub_extracts),
			(SELECT min(last_used) FROM cchub_extracts),
			(SELECT max(last_used) FROM cchub_extracts),
			(SELECT count(*) FROM cchub_extracts WHERE variant = $1),
			(SELECT coalesce(sum(length(data)), 0) FROM cchub_extracts WHERE variant = $1),
			(SELECT count(*) FROM cchub_extracts WHERE left(variant, $3) = $2),
			(SELECT coalesce(sum(length(data)), 0) FROM cchub_extracts WHERE left(variant, $3) = $2),
			(SELECT count(*) FROM cchub_snapshots WHERE idx IS NOT NULL),
			(SELECT coalesce(sum(rows), 0) FROM cchub_snapshots WHERE idx IS NOT NULL),
			(SELECT coalesce(sum(bytes), 0) FROM cchub_snapshots WHERE idx IS NOT NULL),
			(SELECT min(last_used) FROM cchub_snapshots WHERE idx IS NOT NULL),
			(SELECT max(last_used) FROM cchub_snapshots WHERE idx IS NOT NULL),
			pg_total_relation_size('cchub_extracts') + pg_total_relation_size('cchub_snapshots') +
				pg_total_relation_size('cchub_snapshot_rows') + pg_total_relation_size('cchub_schema_migrations')`, TokensVariant, SyntaxVariant, len(SyntaxVariant)).
			Scan(&st.Schema, &st.Extracts, &st.ExtractBytes, &oldest, &newest, &st.TokenFilters, &st.TokenBytes, &st.SyntaxRecords, &syntaxBytes, &st.Snapshots, &st.SnapshotRows, &st.SnapshotBytes, &so, &sn, &st.TotalBytes)
	})
	st.Extracts -= st.TokenFilters + st.SyntaxRecords
	st.ExtractBytes -= st.TokenBytes + syntaxBytes
	if err != nil {
		if p.failed(ctx, err) {
			return p.local.Stats(ctx)
		}
		return st, p.wrap("read the size of", err)
	}
	pick := func(a, b *int64, least bool) *int64 {
		if a == nil || (b != nil && (*b < *a) == least) {
			return b
		}
		return a
	}
	if o := pick(oldest, so, true); o != nil {
		st.OldestUse = time.Unix(*o, 0)
	}
	if n := pick(newest, sn, false); n != nil {
		st.NewestUse = time.Unix(*n, 0)
	}
	return st, nil
}

// pgDeleteChunk is how many rows one statement of a collection deletes.
const pgDeleteChunk = 5000

func (p *pgShared) GC(ctx context.Context, unused time.Duration) (GCStats, error) {
	if p.fell.Load() {
		return p.local.GC(ctx, unused)
	}
	if !p.writes() {
		return GCStats{}, errReadOnly
	}
	gc, err := p.gc(ctx, time.Now().Add(-unused).Unix())
	if err != nil {
		if p.failed(ctx, err) {
			return p.local.GC(ctx, unused)
		}
		return gc, p.wrap("collect the garbage of", err)
	}
	return gc, nil
}

// gc deletes in chunks, each its own statement: a collection of a large
// database never holds a long transaction.
func (p *pgShared) gc(ctx context.Context, cutoff int64) (GCStats, error) {
	var gc GCStats
	deleted := func(query string, args ...any) (n, bytes int64, err error) {
		err = stmt(ctx, func(ctx context.Context) error {
			return p.pool.QueryRow(ctx, query, args...).Scan(&n, &bytes)
		})
		return n, bytes, err
	}
	for {
		n, b, err := deleted(`WITH d AS (DELETE FROM cchub_extracts WHERE ctid IN (
			SELECT ctid FROM cchub_extracts WHERE last_used < $1 LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING length(data) AS n)
			SELECT count(*), coalesce(sum(n), 0) FROM d`, cutoff, pgDeleteChunk)
		if err != nil {
			return gc, err
		}
		gc.Extracts, gc.Bytes = gc.Extracts+n, gc.Bytes+b
		if n < pgDeleteChunk {
			break
		}
	}
	// A snapshot goes first (so it is never seen without its rows), then
	// its rows; rows left by a collection that stopped half way have no
	// snapshot and go too.
	for {
		var gens [][]byte
		var complete int64
		err := stmt(ctx, func(ctx context.Context) error {
			gens, complete = nil, 0
			rows, err := p.pool.Query(ctx, `DELETE FROM cchub_snapshots WHERE gen IN (
				SELECT gen FROM cchub_snapshots WHERE (idx IS NOT NULL AND last_used < $1) OR (idx IS NULL AND created < $1)
				LIMIT 100 FOR UPDATE SKIP LOCKED) RETURNING gen, idx IS NOT NULL, coalesce(length(idx), 0)`, cutoff)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var g []byte
				var c bool
				var n int64
				if err := rows.Scan(&g, &c, &n); err != nil {
					return err
				}
				gens = append(gens, g)
				if c {
					complete++
				}
				gc.Bytes += n
			}
			return rows.Err()
		})
		if err != nil {
			return gc, err
		}
		gc.Snapshots += complete
		if len(gens) == 0 {
			break
		}
	}
	for {
		n, b, err := deleted(`WITH d AS (DELETE FROM cchub_snapshot_rows WHERE ctid IN (
			SELECT r.ctid FROM cchub_snapshot_rows r WHERE NOT EXISTS (SELECT 1 FROM cchub_snapshots s WHERE s.gen = r.gen)
			LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING length(data) AS n)
			SELECT count(*), coalesce(sum(n), 0) FROM d`, pgDeleteChunk)
		if err != nil {
			return gc, err
		}
		gc.Rows, gc.Bytes = gc.Rows+n, gc.Bytes+b
		if n < pgDeleteChunk {
			break
		}
	}
	return gc, nil
}
