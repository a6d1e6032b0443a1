package main

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"cchub/bench/corpus"
)

// cluster is the PostgreSQL the benchmark writes to: a private one
// (started by startCluster, see cluster_pgtest.go) or one given with
// -store.
type cluster interface {
	URL() string
	Stop() error
}

// given is a PostgreSQL the benchmark did not start (-store URL).
type given string

func (g given) URL() string { return string(g) }
func (given) Stop() error   { return nil }

// dbURL is base with its database replaced by name.
func dbURL(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("the store URL: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// redact is a URL without its password, for what the benchmark prints.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(an unreadable URL)"
	}
	return u.Redacted()
}

// psql runs one SQL statement on the database of dsn with psql (which
// reads postgres:// URLs, unix sockets through ?host=) and returns what it
// printed, unaligned.
func psql(ctx context.Context, dsn, sql string) (string, error) {
	bin, err := exec.LookPath("psql")
	if err != nil {
		return "", fmt.Errorf("psql is not on PATH: install PostgreSQL's client (apt-get install postgresql-client)")
	}
	out, err := corpus.RunOut(ctx, time.Minute, "", nil, bin, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-c", sql)
	if err != nil {
		return "", fmt.Errorf("psql on %s: %q: %v %s", redact(dsn), sql, err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// newDatabase creates an empty database on c's server and returns its URL.
func newDatabase(ctx context.Context, c cluster, name string) (string, error) {
	if _, err := psql(ctx, c.URL(), "DROP DATABASE IF EXISTS "+name); err != nil {
		return "", err
	}
	if _, err := psql(ctx, c.URL(), "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("%w (the role of the store URL must be allowed to create databases)", err)
	}
	return dbURL(c.URL(), name)
}

func dropDatabase(ctx context.Context, c cluster, name string) error {
	_, err := psql(ctx, c.URL(), "DROP DATABASE IF EXISTS "+name)
	return err
}

// dbSize is pg_database_size of dsn's database, in bytes.
func dbSize(ctx context.Context, dsn string) (int64, error) {
	out, err := psql(ctx, dsn, "SELECT pg_database_size(current_database())")
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(out, 10, 64)
}

// serverVersion is the server's version string, for the report.
func serverVersion(ctx context.Context, dsn string) string {
	out, err := psql(ctx, dsn, "SHOW server_version")
	if err != nil {
		return "unknown"
	}
	return "PostgreSQL " + out
}

// dbActivity is what the server counted for dsn's database: transactions
// committed and rows written (inserted or updated). The counts reach the
// statistics within a second or so of a transaction's end; psql's own
// query adds one transaction.
func dbActivity(ctx context.Context, dsn string) (xacts, rows int64, err error) {
	out, err := psql(ctx, dsn, "SELECT pg_stat_force_next_flush(); SELECT xact_commit, tup_inserted + tup_updated FROM pg_stat_database WHERE datname = current_database()")
	if err != nil {
		return 0, 0, err
	}
	lines := strings.Split(out, "\n")
	f := strings.Split(lines[len(lines)-1], "|")
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("pg_stat_database: unexpected %q", out)
	}
	if xacts, err = strconv.ParseInt(f[0], 10, 64); err == nil {
		rows, err = strconv.ParseInt(f[1], 10, 64)
	}
	return xacts, rows, err
}
