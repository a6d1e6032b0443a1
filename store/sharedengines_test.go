package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"cchub/store/pgtest"
)

// engine is one engine of the shared store under test: open gives a fresh,
// empty store of it; exec runs SQL on its tables directly ({extracts},
// {snapshots} and {rows} name them, ? are the arguments), to corrupt rows
// or move time back.
type engine struct {
	name string
	open func(t *testing.T) Shared
	// with opens another handle, with opt, on the store open gave t.
	with   func(t *testing.T, opt SharedOptions) Shared
	execFn func(t *testing.T, query string, args ...any)
	tables map[string]string
	count  func(t *testing.T, table, where string) int
}

func (e engine) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	e.execFn(t, e.sql(query), args...)
}

// sql names the engine's tables in query.
func (e engine) sql(query string) string {
	for k, v := range e.tables {
		query = strings.ReplaceAll(query, "{"+k+"}", v)
	}
	return query
}

// engines is every engine the suite runs against.
func engines(t *testing.T) []engine {
	return []engine{sqliteEngine(), postgresEngine()}
}

// pgPlaceholders turns ? into $1, $2, ….
func pgPlaceholders(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// openPostgres opens the PostgreSQL engine on a new database of the
// shared test cluster; the test fails if it falls back.
func openPostgres(t *testing.T) (Shared, string) {
	t.Helper()
	url := pgtest.DatabaseForTest(t)
	sh, notice := OpenShared(context.Background(), url, openStore(t, openRoot(t, "")), SharedOptions{})
	if notice != "" || sh.Engine() != "postgres" {
		t.Fatalf("OpenShared(%s): %s engine, notice %q", url, sh.Engine(), notice)
	}
	t.Cleanup(func() {
		if n := SharedNotices(sh); n != nil && !t.Failed() {
			t.Errorf("the engine fell back: %q", n)
		}
		sh.Close()
	})
	return sh, url
}

// pgConn is a connection of the test's own to url, closed when t ends.
func pgConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func postgresEngine() engine {
	conns := map[*testing.T]*pgx.Conn{}
	urls := map[*testing.T]string{}
	e := engine{name: "postgres", tables: map[string]string{"extracts": "cchub_extracts", "snapshots": "cchub_snapshots", "rows": "cchub_snapshot_rows"}}
	e.open = func(t *testing.T) Shared {
		sh, url := openPostgres(t)
		conns[t] = pgConn(t, url)
		urls[t] = url
		return sh
	}
	e.with = func(t *testing.T, opt SharedOptions) Shared {
		sh, notice := OpenShared(context.Background(), urls[t], openStore(t, openRoot(t, "")), opt)
		if notice != "" || sh.Engine() != "postgres" {
			t.Fatalf("OpenShared(%s): %s engine, notice %q", urls[t], sh.Engine(), notice)
		}
		t.Cleanup(func() { sh.Close() })
		return sh
	}
	e.execFn = func(t *testing.T, query string, args ...any) {
		t.Helper()
		if _, err := conns[t].Exec(context.Background(), pgPlaceholders(query), args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	e.count = func(t *testing.T, table, where string) int {
		t.Helper()
		q := "SELECT count(*) FROM " + e.tables[table]
		if where != "" {
			q += " WHERE " + where
		}
		var n int
		if err := conns[t].QueryRow(context.Background(), q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	return e
}

func sqliteEngine() engine {
	stores := map[*testing.T]*Store{}
	e := engine{name: "sqlite", tables: map[string]string{"extracts": "shared_extracts", "snapshots": "shared_snapshots", "rows": "shared_snapshot_rows"}}
	e.open = func(t *testing.T) Shared {
		s := openStore(t, openRoot(t, ""))
		stores[t] = s
		return LocalShared(s)
	}
	e.with = func(t *testing.T, opt SharedOptions) Shared { return LocalSharedWith(stores[t], opt) }
	e.execFn = func(t *testing.T, query string, args ...any) {
		t.Helper()
		if _, err := stores[t].DB().ExecContext(context.Background(), query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	e.count = func(t *testing.T, table, where string) int {
		t.Helper()
		q := "SELECT count(*) FROM " + e.tables[table]
		if where != "" {
			q += " WHERE " + where
		}
		var n int
		if err := stores[t].DB().QueryRowContext(context.Background(), q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	return e
}
