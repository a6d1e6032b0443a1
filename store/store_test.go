package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cchub/workspace"
)

// openRoot opens a workspace in a fresh directory (or dir, if given).
func openRoot(t *testing.T, dir string) *workspace.Root {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

func openStore(t *testing.T, root *workspace.Root) *Store {
	t.Helper()
	s, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMigrationsAreNumberedFromOneWithoutGaps(t *testing.T) {
	names := map[string]bool{}
	for i, m := range migrations {
		if m.version != i+1 {
			t.Errorf("migration %d (%s) has version %d, want %d: migrate relies on it", i, m.name, m.version, i+1)
		}
		if m.name == "" || names[m.name] {
			t.Errorf("migration %d: name %q is empty or repeated", m.version, m.name)
		}
		names[m.name] = true
	}
}

// Open makes .cchub with its .gitignore, and the database in it, with the
// settings the package comment promises on every connection.
func TestOpenMakesStateDirAndConfiguresConnections(t *testing.T) {
	root := openRoot(t, "")
	s := openStore(t, root)
	ctx := context.Background()
	ignore, err := os.ReadFile(filepath.Join(root.Dir(), ".cchub", ".gitignore"))
	if err != nil || string(ignore) != "*\n" {
		t.Fatalf(".cchub/.gitignore = %q, %v; want \"*\\n\"", ignore, err)
	}
	if st, err := os.Lstat(filepath.Join(root.Dir(), ".cchub", FileName)); err != nil || !st.Mode().IsRegular() {
		t.Fatalf(".cchub/%s: %v, %v", FileName, st, err)
	}
	// Hold several connections at once so the check covers more than one.
	var conns []*sql.Conn
	for range maxConns {
		c, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for i, c := range conns {
		for pragma, want := range map[string]string{
			"journal_mode": "wal",
			"foreign_keys": "1",
			"busy_timeout": fmt.Sprint(BusyTimeout.Milliseconds()),
			"synchronous":  "1", // NORMAL
		} {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("connection %d: PRAGMA %s = %s, want %s", i, pragma, got, want)
			}
		}
		c.Close()
	}
}

// What a run keeps survives closing and reopening, and the migrations
// are recorded once however often the database is opened.
func TestReopenKeepsDataAndMigratesOnce(t *testing.T) {
	ctx := context.Background()
	root := openRoot(t, "")
	s, err := Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	named, err := s.Run(ctx, "review")
	if err != nil {
		t.Fatal(err)
	}
	anon, err := s.NewRun(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte("package main\n"))
	if err := s.SaveSeen(ctx, named, "main.go", h); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		s = openStore(t, root)
		again, err := s.Run(ctx, "review")
		if err != nil {
			t.Fatal(err)
		}
		if again != named {
			t.Fatalf("run %q is %d after reopening, was %d", "review", again, named)
		}
		seen, err := s.Seen(ctx, named)
		if err != nil {
			t.Fatal(err)
		}
		if seen.Hashes["main.go"] != h || len(seen.Hashes) != 1 || len(seen.Parts) != 0 {
			t.Fatalf("seen after reopening = %+v", seen)
		}
		if next, err := s.NewRun(ctx); err != nil || next == anon || next == named {
			t.Fatalf("NewRun after reopening = %d, %v; ids in use %d, %d", next, err, named, anon)
		}
		var applied []string
		rows, err := s.DB().QueryContext(ctx, `SELECT version, name FROM schema_migrations ORDER BY version`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var v int
			var n string
			rows.Scan(&v, &n)
			applied = append(applied, fmt.Sprint(v, " ", n))
		}
		rows.Close()
		var want []string
		for _, m := range migrations {
			want = append(want, fmt.Sprint(m.version, " ", m.name))
		}
		if strings.Join(applied, ",") != strings.Join(want, ",") {
			t.Fatalf("schema_migrations = %v, want %v", applied, want)
		}
		s.Close()
	}
}

// A database a newer cchub migrated further is refused, and left as it was.
func TestNewerDatabaseIsRefused(t *testing.T) {
	ctx := context.Background()
	root := openRoot(t, "")
	s, err := Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	future := len(migrations) + 1
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied) VALUES (?, 'index-v2', 0)`, future); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, root)
	if err == nil {
		t.Fatal("a database from a newer cchub was opened")
	}
	for _, w := range []string{"created by a newer cchub", fmt.Sprintf("version %d", future), `"index-v2"`, fmt.Sprintf("up to %d", len(migrations)), ".cchub/cchub.db"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
}

// A file that is not a database is refused, and not overwritten.
func TestNotADatabaseIsRefused(t *testing.T) {
	dir := t.TempDir()
	junk := []byte(strings.Repeat("not a database at all\n", 20))
	if err := os.Mkdir(filepath.Join(dir, ".cchub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".cchub", FileName), junk, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), openRoot(t, dir))
	if err == nil || !strings.Contains(err.Error(), ".cchub/cchub.db is not a database") {
		t.Fatalf("Open over a text file: %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".cchub", FileName)); string(b) != string(junk) {
		t.Fatal("the file was changed")
	}
}

// A .cchub that is a symlink is not followed: the database is made in the
// private directory in its place, nothing is made where the link points,
// and the root says why.
func TestSymlinkedStateDirIsNotFollowed(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, ".cchub")); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, dir)
	s := openStore(t, root)
	run, err := s.NewRun(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveSeen(context.Background(), run, "a.go", sha256.Sum256([]byte("x"))); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Fatalf("the symlink's target got %d entries", len(ents))
	}
	if n := root.StateNotice(); !strings.Contains(n, "it is a symlink") {
		t.Fatalf("notice %q does not say the .cchub is a symlink", n)
	}
	state, _ := root.StatePath()
	if _, err := os.Lstat(filepath.Join(state, FileName)); err != nil || root.StateInWorkspace() {
		t.Fatalf("the database is not in the private state directory %s: %v", state, err)
	}
}

// A database file (or its WAL) that is a symlink is refused: SQLite would
// follow it and write wherever it led.
func TestSymlinkedDatabaseIsRefused(t *testing.T) {
	for _, name := range []string{FileName, FileName + "-wal"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			outside := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(outside, []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(dir, ".cchub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(dir, ".cchub", name)); err != nil {
				t.Fatal(err)
			}
			_, err := Open(context.Background(), openRoot(t, dir))
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("Open with .cchub/%s a symlink: %v, want a refusal", name, err)
			}
			if b, _ := os.ReadFile(outside); string(b) != "precious" {
				t.Fatalf("the symlink's target was changed: %q", b)
			}
		})
	}
}

func TestRunsAndWhatTheySaw(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openRoot(t, ""))
	for _, bad := range []string{"", "  ", "a\nb", strings.Repeat("x", maxRunName+1), "\xff"} {
		if _, err := s.Run(ctx, bad); err == nil {
			t.Errorf("Run(%q) was accepted", bad)
		}
	}
	a, _ := s.Run(ctx, "a")
	b, _ := s.Run(ctx, "b")
	a2, _ := s.Run(ctx, "a")
	x, _ := s.NewRun(ctx)
	y, _ := s.NewRun(ctx)
	if a != a2 || a == b || x == y || x == a || x == b || y == a || y == b {
		t.Fatalf("runs a=%d a'=%d b=%d x=%d y=%d: named runs must be shared, others distinct", a, a2, b, x, y)
	}

	h1, h2 := sha256.Sum256([]byte("one")), sha256.Sum256([]byte("two"))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.SaveSeen(ctx, a, "f.go", h1))
	must(s.SaveSeen(ctx, a, "f.go", h2)) // the latest content wins
	must(s.SaveSeenPart(ctx, a, "f.go")) // a part read keeps the hash
	must(s.SaveSeenPart(ctx, a, "big.log"))
	must(s.SaveSeen(ctx, a, "gone.go", h1))
	must(s.ForgetSeen(ctx, a, "gone.go"))
	must(s.SaveSeen(ctx, x, "f.go", h1))
	seen, err := s.Seen(ctx, a)
	must(err)
	if len(seen.Hashes) != 1 || seen.Hashes["f.go"] != h2 || len(seen.Parts) != 1 || !seen.Parts["big.log"] {
		t.Fatalf("run a saw %+v", seen)
	}
	// A file seen in part, then whole, has a hash.
	must(s.SaveSeen(ctx, a, "big.log", h1))
	if seen, _ := s.Seen(ctx, a); seen.Hashes["big.log"] != h1 || seen.Parts["big.log"] {
		t.Fatalf("after a whole read, run a saw %+v", seen)
	}
	if seen, _ := s.Seen(ctx, b); len(seen.Hashes)+len(seen.Parts) != 0 {
		t.Fatalf("run b saw what run a saw: %+v", seen)
	}
	if seen, _ := s.Seen(ctx, x); seen.Hashes["f.go"] != h1 || len(seen.Hashes) != 1 {
		t.Fatalf("run x saw %+v", seen)
	}

	// Dropping a run drops what it saw; writing for it then says so.
	must(s.DropRun(ctx, x))
	var left int
	must(s.DB().QueryRowContext(ctx, `SELECT count(*) FROM run_seen WHERE run = ?`, x).Scan(&left))
	if left != 0 {
		t.Fatalf("%d rows of a dropped run are left", left)
	}
	if err := s.SaveSeen(ctx, x, "f.go", h1); !errors.Is(err, ErrNoRun) {
		t.Fatalf("SaveSeen for a dropped run: %v, want ErrNoRun", err)
	}
	must(s.DropRun(ctx, x)) // again: nothing to do
}

func TestPruneRunsDropsOnlyUnusedOnes(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openRoot(t, ""))
	old, _ := s.Run(ctx, "old")
	oldAnon, _ := s.NewRun(ctx)
	if _, err := s.DB().ExecContext(ctx, `UPDATE runs SET last_used = ? WHERE id IN (?, ?)`, time.Now().Add(-48*time.Hour).UnixMilli(), old, oldAnon); err != nil {
		t.Fatal(err)
	}
	fresh, _ := s.NewRun(ctx)
	n, err := s.PruneRuns(ctx, time.Now().Add(-24*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("PruneRuns = %d, %v; want 2", n, err)
	}
	if err := s.SaveSeen(ctx, fresh, "a", [32]byte{}); err != nil {
		t.Fatalf("the fresh run was pruned: %v", err)
	}
	if again, _ := s.Run(ctx, "old"); again == old {
		t.Fatalf("run %q kept its id %d after it was pruned", "old", old)
	}
}

// Many goroutines of one process share one Store: a named run is one run,
// every write lands, and nothing reports "database is locked".
func TestConcurrentUseInOneProcess(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openRoot(t, ""))
	const workers, each = 16, 40
	ids := make([]RunID, workers)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			id, err := s.Run(ctx, "joint")
			if err != nil {
				errs <- err
				return
			}
			ids[w] = id
			for i := range each {
				if err := s.SaveSeen(ctx, id, fmt.Sprintf("w%02d/%03d", w, i), sha256.Sum256(fmt.Appendf(nil, "%d/%d", w, i))); err != nil {
					errs <- err
					return
				}
				if i%10 == 0 {
					anon, err := s.NewRun(ctx)
					if err == nil {
						err = s.DropRun(ctx, anon)
					}
					if err == nil {
						_, err = s.Seen(ctx, id)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w, id := range ids {
		if id != ids[0] {
			t.Fatalf("worker %d got run %d for %q, worker 0 got %d", w, id, "joint", ids[0])
		}
	}
	seen, err := s.Seen(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(seen.Hashes) != workers*each {
		t.Fatalf("%d files seen, want %d", len(seen.Hashes), workers*each)
	}
	for w := range workers {
		for i := range each {
			if seen.Hashes[fmt.Sprintf("w%02d/%03d", w, i)] != sha256.Sum256(fmt.Appendf(nil, "%d/%d", w, i)) {
				t.Fatalf("w%02d/%03d is missing or wrong", w, i)
			}
		}
	}
}

// A cancelled context stops a writer waiting for its turn.
func TestWriteWaitIsCancellable(t *testing.T) {
	s := openStore(t, openRoot(t, ""))
	hold := make(chan struct{})
	held := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Write(context.Background(), func(*sql.Tx) error {
			close(held)
			<-hold
			return nil
		})
	}()
	<-held
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := s.Write(ctx, func(*sql.Tx) error { return nil })
	close(hold)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a write waiting behind another: %v, want the context's deadline", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
