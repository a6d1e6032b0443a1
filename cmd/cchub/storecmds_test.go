package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rogpeppe/go-internal/testscript"

	"cchub/store"
	"cchub/tokenindex"
)

// storeCmds are the blast scripts' commands on a shared store, as a
// person who may write the database (and holds no store key) would
// use them: plain SQL, and rows planted so that they seal correctly.
var storeCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"storelock": storeLock,
	"validjson": validJSON,
	// storesql URL QUERY prints each row of QUERY, its columns separated
	// by spaces.
	"storesql": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: storesql URL QUERY")
		}
		withConn(ts, args[0], func(ctx context.Context, c *pgx.Conn) error {
			rows, err := c.Query(ctx, args[1])
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					return err
				}
				var cols []string
				for _, v := range vals {
					cols = append(cols, fmt.Sprint(v))
				}
				fmt.Fprintln(ts.Stdout(), strings.Join(cols, " "))
			}
			return rows.Err()
		}, neg)
	},
	// plant-zero-filters URL replaces every token filter with one of the
	// same size and no bit set (a file that holds no trigram), sealed
	// under its row's key.
	"plant-zero-filters": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: plant-zero-filters URL")
		}
		withConn(ts, args[0], func(ctx context.Context, c *pgx.Conn) error {
			return replaceExtracts(ctx, c, tokenindex.Variant, func(k store.ExtractKey, payload []byte) []byte {
				zero := make([]byte, len(payload))
				copy(zero, payload[:2]) // the filter's header: format and size
				return zero
			})
		}, neg)
	},
	// plant-extract URL VARIANT FILE AS replaces the extraction of FILE's
	// content with AS's (another file's reading), sealed under FILE's key.
	"plant-extract": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 4 {
			ts.Fatalf("usage: plant-extract URL VARIANT FILE AS")
		}
		sum := func(p string) [32]byte { return sha256.Sum256([]byte(ts.ReadFile(p))) }
		target, as := sum(args[2]), sum(args[3])
		withConn(ts, args[0], func(ctx context.Context, c *pgx.Conn) error {
			var blob []byte
			var format int
			if err := c.QueryRow(ctx, `SELECT data, format FROM cchub_extracts WHERE sha256 = $1 AND variant = $2`, as[:], args[1]).Scan(&blob, &format); err != nil {
				return fmt.Errorf("the extraction of %s: %w", args[3], err)
			}
			payload, err := store.Unseal(store.SealExtract, store.ExtractKeyBytes(store.ExtractKey{SHA256: as, Variant: args[1], Format: format}), blob)
			if err != nil {
				return err
			}
			k := store.ExtractKey{SHA256: target, Variant: args[1], Format: format}
			tag, err := c.Exec(ctx, `UPDATE cchub_extracts SET data = $1 WHERE sha256 = $2 AND variant = $3 AND format = $4`,
				store.Seal(store.SealExtract, store.ExtractKeyBytes(k), payload), target[:], args[1], format)
			if err == nil && tag.RowsAffected() != 1 {
				err = fmt.Errorf("no extraction of %s (%s) to replace", args[2], args[1])
			}
			return err
		}, neg)
	},
}

// storelock URL holds cchub's tables of the store locked (ACCESS
// EXCLUSIVE, in a transaction of its own) until the script's end: every statement of cchub on them waits, until the
// statement timeout in force cancels it.
func storeLock(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: storelock URL")
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, args[0])
	ts.Check(err)
	tx, err := c.Begin(ctx)
	ts.Check(err)
	_, err = tx.Exec(ctx, `LOCK TABLE cchub_extracts, cchub_snapshots, cchub_snapshot_rows IN ACCESS EXCLUSIVE MODE`)
	ts.Check(err)
	unlock := func() {
		tx.Rollback(ctx)
		c.Close(ctx)
	}
	ts.Defer(unlock)
}

// validjson FILE fails unless FILE holds one JSON document.
func validJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: validjson FILE")
	}
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[0])))
	var v any
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = fmt.Errorf("more than one document")
	}
	if neg != (err != nil) {
		ts.Fatalf("%s: %v", args[0], err)
	}
}

// replaceExtracts rewrites the payload of every extraction of variant,
// sealed again under its key (without a store key: anyone may).
func replaceExtracts(ctx context.Context, c *pgx.Conn, variant string, fn func(k store.ExtractKey, payload []byte) []byte) error {
	rows, err := c.Query(ctx, `SELECT sha256, format, data FROM cchub_extracts WHERE variant = $1`, variant)
	if err != nil {
		return err
	}
	type row struct {
		k    store.ExtractKey
		blob []byte
	}
	var all []row
	for rows.Next() {
		var h, blob []byte
		var r row
		if err := rows.Scan(&h, &r.k.Format, &blob); err != nil {
			return err
		}
		copy(r.k.SHA256[:], h)
		r.k.Variant, r.blob = variant, blob
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(all) == 0 {
		return fmt.Errorf("no extraction of variant %s", variant)
	}
	for _, r := range all {
		payload, err := store.Unseal(store.SealExtract, store.ExtractKeyBytes(r.k), r.blob)
		if err != nil {
			return err
		}
		forged := store.Seal(store.SealExtract, store.ExtractKeyBytes(r.k), fn(r.k, payload))
		if _, err := c.Exec(ctx, `UPDATE cchub_extracts SET data = $1 WHERE sha256 = $2 AND variant = $3 AND format = $4`, forged, r.k.SHA256[:], variant, r.k.Format); err != nil {
			return err
		}
	}
	return nil
}

func withConn(ts *testscript.TestScript, url string, fn func(ctx context.Context, c *pgx.Conn) error, neg bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err == nil {
		err = fn(ctx, c)
		c.Close(ctx)
	}
	if neg != (err != nil) {
		ts.Fatalf("%v (negated: %v)", err, neg)
	}
}
