package store

import (
	"context"
	"strings"
	"testing"
)

// engine is one engine of the shared store under test: open gives a fresh,
// empty store of it; exec runs SQL on its tables directly ({extracts},
// {snapshots} and {rows} name them, ? are the arguments), to corrupt rows
// or move time back.
type engine struct {
	name   string
	open   func(t *testing.T) Shared
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
	return []engine{sqliteEngine()}
}

func sqliteEngine() engine {
	stores := map[*testing.T]*Store{}
	e := engine{name: "sqlite", tables: map[string]string{"extracts": "shared_extracts", "snapshots": "shared_snapshots", "rows": "shared_snapshot_rows"}}
	e.open = func(t *testing.T) Shared {
		s := openStore(t, openRoot(t, ""))
		stores[t] = s
		return LocalShared(s)
	}
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
