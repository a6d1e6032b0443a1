package store

import (
	"context"
	"crypto/sha256"
	"testing"
)

// A database of schema 8, whose graph_files and token_files rows hold
// only size and mtime, is migrated to the content identity: each row
// keeps what it had, and its Identity is unknown (ctime 0), so its file
// is read and hashed once rather than trusted by size and mtime.
func TestContentIdentityMigrationLeavesOldRowsUnknown(t *testing.T) {
	ctx := context.Background()
	root := openRoot(t, "")
	s := openStore(t, root)
	// Back to schema 8, as an older cchub left it, with its rows.
	h := sha256.Sum256([]byte("package a\n"))
	for _, q := range []string{
		`DELETE FROM schema_migrations WHERE version >= 9`,
		`DROP TABLE run_start`,
		`ALTER TABLE graph_files DROP COLUMN ctime`,
		`ALTER TABLE graph_files DROP COLUMN inode`,
		`ALTER TABLE graph_files DROP COLUMN dev`,
		`ALTER TABLE token_files DROP COLUMN ctime`,
		`ALTER TABLE token_files DROP COLUMN inode`,
		`ALTER TABLE token_files DROP COLUMN dev`,
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO graph_files(path, sha256, variant, size, mtime, format, defs, calls) VALUES ('a.go', ?, 'go', 10, 1700000000000000000, 7, 1, 2)`, h[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO token_files(path, sha256, size, mtime, filter, clean) VALUES ('a.go', ?, 10, 1700000000000000000, x'0102', 1)`, h[:]); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openStore(t, root)
	var v int
	var name string
	if err := s.DB().QueryRowContext(ctx, `SELECT version, name FROM schema_migrations WHERE version = 9`).Scan(&v, &name); err != nil || name != "content identity" {
		t.Fatalf("schema after reopening: migration %d %q %v, want 9 \"content identity\"", v, name, err)
	}
	stamps, err := s.GraphStamps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g := stamps["a.go"]
	if len(stamps) != 1 || g.SHA256 != h || g.Size != 10 || g.MTime != 1700000000000000000 || g.Format != 7 || g.Defs != 1 || g.Calls != 2 {
		t.Fatalf("graph stamp after the migration: %+v", stamps)
	}
	if g.Identity.Known() || g.CTime != 0 || g.Inode != 0 || g.Dev != 0 {
		t.Errorf("an old graph row's identity is %+v, want unknown (ctime 0)", g.Identity)
	}
	var files []TokenFile
	if err := s.TokenFiles(ctx, func(f TokenFile) error {
		f.Filter = append([]byte(nil), f.Filter...)
		files = append(files, f)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].SHA256 != h || files[0].Size != 10 || files[0].MTime != 1700000000000000000 || string(files[0].Filter) != "\x01\x02" || files[0].Clean != ParsesClean {
		t.Fatalf("token rows after the migration: %+v", files)
	}
	if files[0].Identity.Known() {
		t.Errorf("an old token row's identity is %+v, want unknown (ctime 0)", files[0].Identity)
	}
}
