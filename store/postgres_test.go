package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cchub/store/pgtest"
)

// What only the PostgreSQL engine has to show: many writers at once,
// migrations by many at once, and its faults.

// writerSet is what writer who of a concurrency test puts: overlapping
// ranges of extracts, in an order of its own, and one snapshot every
// writer puts.
func writerSet(who int) []Extract {
	es := extracts(who*150, who*150+1200, "go")
	rand.New(rand.NewPCG(uint64(who), 7)).Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	return es
}

const writers = 8

// sharedGen is the snapshot every writer puts.
func sharedSnapshot() (Gen, []byte, map[string][]byte) { return snapshotOf(chunkRows+30, "joint") }

// writeAll is one writer's work: put its set in two halves, then the
// joint snapshot.
func writeAll(ctx context.Context, sh Shared, who int) error {
	es := writerSet(who)
	half := len(es) / 2
	if err := sh.PutExtracts(ctx, es[:half]); err != nil {
		return err
	}
	if _, err := sh.HaveExtracts(ctx, keysOf(es)); err != nil {
		return err
	}
	if err := sh.PutExtracts(ctx, es[half:]); err != nil {
		return err
	}
	gen, index, rows := sharedSnapshot()
	return sh.PutSnapshot(ctx, gen, index, rows)
}

// checkWritten checks that the database at url holds exactly what one
// writer would have left after putting every writer's set.
func checkWritten(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	want := map[ExtractKey][]byte{}
	for who := range writers {
		for _, e := range writerSet(who) {
			want[e.ExtractKey] = e.Data
		}
	}
	sh, notice := OpenShared(ctx, url, openStore(t, openRoot(t, "")), SharedOptions{})
	if notice != "" {
		t.Fatal(notice)
	}
	defer sh.Close()
	var keys []ExtractKey
	for k := range want {
		keys = append(keys, k)
	}
	got, corrupt := getAll(t, sh, keys)
	if len(corrupt) > 0 || len(got) != len(want) {
		t.Fatalf("%d of %d extracts back, corrupt %q", len(got), len(want), corrupt)
	}
	for k, d := range want {
		if !bytes.Equal(got[k], d) {
			t.Fatalf("%x: %q, want %q", k.SHA256[:4], got[k], d)
		}
	}
	conn := pgConn(t, url)
	var n, snaps, rows int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM cchub_extracts), (SELECT count(*) FROM cchub_snapshots), (SELECT count(*) FROM cchub_snapshot_rows)`).Scan(&n, &snaps, &rows); err != nil {
		t.Fatal(err)
	}
	gen, index, srows := sharedSnapshot()
	if n != len(want) || snaps != 1 || rows != len(srows) {
		t.Errorf("%d extracts, %d snapshots, %d rows; want %d, 1, %d", n, snaps, rows, len(want), len(srows))
	}
	idx, ok, _, err := sh.SnapshotIndex(ctx, gen)
	if err != nil || !ok || !bytes.Equal(idx, index) {
		t.Errorf("the joint snapshot: %q %v %v", idx, ok, err)
	}
	var migrated int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM cchub_schema_migrations`).Scan(&migrated); err != nil || migrated != len(pgMigrations) {
		t.Errorf("%d migrations recorded (%v), want %d", migrated, err, len(pgMigrations))
	}
}

// Eight writers of one process, each with its own pool, open a new
// database at once (all migrating it) and put overlapping sets in
// different orders: no error, no notice, no duplicate, and what one
// writer alone would have left.
func TestPostgresConcurrentWriters(t *testing.T) {
	url := pgtest.DatabaseForTest(t)
	ctx := context.Background()
	retried := pgRetried.Load()
	var wg sync.WaitGroup
	errs := make([]error, writers)
	start := make(chan struct{})
	for who := range writers {
		local := openStore(t, openRoot(t, ""))
		wg.Go(func() {
			<-start
			sh, notice := OpenShared(ctx, url, local, SharedOptions{})
			defer sh.Close()
			if notice != "" {
				errs[who] = fmt.Errorf("notice: %s", notice)
				return
			}
			errs[who] = writeAll(ctx, sh, who)
			if n := SharedNotices(sh); n != nil {
				errs[who] = fmt.Errorf("fell back: %q", n)
			}
		})
	}
	close(start)
	wg.Wait()
	for who, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", who, err)
		}
	}
	// Keys sorted in every statement: writers wait for each other in one
	// order, PostgreSQL never finds a deadlock to break.
	if n := pgRetried.Load() - retried; n != 0 {
		t.Errorf("%d statements deadlocked and were tried again", n)
	}
	checkWritten(t, url)
}

// pgWriterEnv tells this test binary that it is a writer process of
// TestPostgresConcurrentProcesses: "URL|WHO|START_UNIX_NANO".
const pgWriterEnv = "CCHUB_PG_WRITER"

// The same with eight processes, started together on a new database.
func TestPostgresConcurrentProcesses(t *testing.T) {
	if os.Getenv(pgWriterEnv) != "" {
		t.Skip("in the child")
	}
	url := pgtest.DatabaseForTest(t)
	start := time.Now().Add(time.Second) // past every child's start-up
	var wg sync.WaitGroup
	for who := range writers {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPostgresWriterChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d|%d", pgWriterEnv, url, who, start.UnixNano()))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			_, line, ok := strings.Cut(out.String(), "PGWRITER ")
			if err != nil || !ok {
				t.Errorf("writer process %d: %v\n%s", who, err, out.String())
				return
			}
			line, _, _ = strings.Cut(line, "\n")
			var problems []string
			if err := json.Unmarshal([]byte(line), &problems); err != nil {
				t.Errorf("writer process %d: %v in %q", who, err, line)
			}
			for _, p := range problems {
				t.Errorf("writer process %d: %s", who, p)
			}
		})
	}
	wg.Wait()
	checkWritten(t, url)
}

// TestPostgresWriterChild is one process of
// TestPostgresConcurrentProcesses; it prints the problems it met.
func TestPostgresWriterChild(t *testing.T) {
	spec := os.Getenv(pgWriterEnv)
	if spec == "" {
		t.Skip("only as a child of TestPostgresConcurrentProcesses")
	}
	parts := strings.Split(spec, "|")
	who, _ := strconv.Atoi(parts[1])
	startNano, _ := strconv.ParseInt(parts[2], 10, 64)
	local := openStore(t, openRoot(t, ""))
	time.Sleep(time.Until(time.Unix(0, startNano)))
	ctx := context.Background()
	problems := []string{}
	sh, notice := OpenShared(ctx, parts[0], local, SharedOptions{})
	if notice != "" {
		problems = append(problems, "notice: "+notice)
	}
	if err := writeAll(ctx, sh, who); err != nil {
		problems = append(problems, err.Error())
	}
	problems = append(problems, SharedNotices(sh)...)
	if n := pgRetried.Load(); n != 0 {
		problems = append(problems, fmt.Sprintf("%d statements deadlocked and were tried again", n))
	}
	sh.Close()
	b, _ := json.Marshal(problems)
	fmt.Printf("PGWRITER %s\n", b)
}

// openFallback opens spec expecting the fall back to the local store,
// and returns the notice.
func openFallback(t *testing.T, spec string) string {
	t.Helper()
	local := openStore(t, openRoot(t, ""))
	sh, notice := OpenShared(context.Background(), spec, local, SharedOptions{})
	defer sh.Close()
	if sh.Engine() != "sqlite" || sh.Where() != local.show {
		t.Errorf("OpenShared(%s) gave the %s engine at %s, want the checkout's store", spec, sh.Engine(), sh.Where())
	}
	if notice == "" || strings.Contains(notice, "\n") {
		t.Errorf("notice %q: want one line", notice)
	}
	if n := SharedNotices(sh); n != nil {
		t.Errorf("the local engine has notices %q", n)
	}
	return notice
}

func wantAll(t *testing.T, notice string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(notice, p) {
			t.Errorf("notice %q does not say %q", notice, p)
		}
	}
}

func TestOpenSharedFallsBack(t *testing.T) {
	t.Run("empty spec", func(t *testing.T) {
		sh, notice := OpenShared(context.Background(), "", openStore(t, openRoot(t, "")), SharedOptions{})
		if sh.Engine() != "sqlite" || notice != "" {
			t.Errorf("%s, %q", sh.Engine(), notice)
		}
	})
	t.Run("unknown spec", func(t *testing.T) {
		wantAll(t, openFallback(t, "mysql://u:secret@host/db"), "not a store cchub knows", "postgres://", "--store / CCHUB_STORE")
	})
	t.Run("bad URL", func(t *testing.T) {
		n := openFallback(t, "postgres://u:secret@host:notaport/db")
		wantAll(t, n, "not a PostgreSQL URL", "postgres://USER")
		if strings.Contains(n, "secret") {
			t.Errorf("notice %q shows the password", n)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		wantAll(t, openFallback(t, "postgres://u:secret@"+addr+"/db?sslmode=disable"),
			"could not be reached at "+addr, "connection refused", "kept in this checkout's store meanwhile", "start it or fix --store / CCHUB_STORE")
	})
	t.Run("stalled server", func(t *testing.T) {
		addr := fakeStalledServer(t)
		wantAll(t, openFallback(t, "postgres://u@"+addr+"/db"), "could not be reached at "+addr, "no answer within", "start it or fix")
	})
	t.Run("server stopped", func(t *testing.T) {
		c := pgtest.StartForTest(t)
		if err := c.Stop(); err != nil {
			t.Fatal(err)
		}
		wantAll(t, openFallback(t, c.URL()), "could not be reached at", "start it or fix --store / CCHUB_STORE")
	})
	c := pgtest.ForTest(t)
	t.Run("database missing", func(t *testing.T) {
		url := strings.Replace(c.URL(), "/"+pgtest.Database+"?", "/absent?", 1)
		wantAll(t, openFallback(t, url), `database "absent" does not exist`, "createdb absent")
	})
	t.Run("auth refused", func(t *testing.T) {
		// Trust lets anyone in who may log in: a role that may not is
		// refused by the server all the same.
		if err := pgtest.Exec(context.Background(), c.URL(), `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'nologin') THEN CREATE ROLE nologin NOLOGIN; END IF; END $$`); err != nil {
			t.Fatal(err)
		}
		url := strings.Replace(c.URL(), pgtest.Role+"@", "nologin@", 1)
		wantAll(t, openFallback(t, url), `refused user "nologin"`, "not permitted to log in", "fix the user or password")
	})
	t.Run("newer schema", func(t *testing.T) {
		_, url := openPostgres(t)
		if err := pgtest.Exec(context.Background(), url, `INSERT INTO cchub_schema_migrations(version, name) VALUES (99, 'from the future')`); err != nil {
			t.Fatal(err)
		}
		wantAll(t, openFallback(t, url), fmt.Sprintf("migrated by a newer cchub (version 99, this one knows %d): upgrade cchub or use another database", len(pgMigrations)))
	})
}

// fakeStalledServer accepts TCP connections and never answers, as a
// server stuck (or a firewall that swallows packets after the handshake)
// would; no real PostgreSQL can be made to do that on demand. It returns
// its address and stops when the test ends.
func fakeStalledServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// The server killed mid-run: the calls after go to the checkout's store,
// the notice is given once, and everything committed before is there
// when the server is back.
func TestPostgresKilledMidRun(t *testing.T) {
	c := pgtest.StartForTest(t)
	ctx := context.Background()
	url, err := c.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	local := openStore(t, openRoot(t, ""))
	sh, notice := OpenShared(ctx, url, local, SharedOptions{})
	if notice != "" {
		t.Fatal(notice)
	}
	defer sh.Close()
	before := extracts(0, 600, "go")
	if err := sh.PutExtracts(ctx, before); err != nil {
		t.Fatal(err)
	}
	gen, index, rows := snapshotOf(10, "before")
	if err := sh.PutSnapshot(ctx, gen, index, rows); err != nil {
		t.Fatal(err)
	}

	c.Kill()
	if c.Running() {
		t.Fatal("the server runs after Kill")
	}
	after := extracts(600, 700, "go")
	if err := sh.PutExtracts(ctx, after); err != nil {
		t.Fatalf("a put after the kill failed instead of falling back: %v", err)
	}
	notices := SharedNotices(sh)
	if len(notices) != 1 {
		t.Fatalf("notices %q, want one", notices)
	}
	wantAll(t, notices[0], "mid-run", "goes on with this checkout's store", "written before is kept", "check the server")
	if sh.Engine() != "sqlite" {
		t.Errorf("engine %s after the fall back", sh.Engine())
	}
	// Later calls go to the local store without another word; what went
	// only to PostgreSQL is simply not found.
	got, _ := getAll(t, sh, keysOf(append(before[:5:5], after...)))
	if len(got) != len(after) {
		t.Errorf("%d found after the fall back, want the %d put after it", len(got), len(after))
	}
	if _, ok, _, err := sh.SnapshotIndex(ctx, gen); ok || err != nil {
		t.Errorf("snapshot after the fall back: %v %v", ok, err)
	}
	if n := SharedNotices(sh); n != nil {
		t.Errorf("a second notice %q", n)
	}

	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	again, notice := OpenShared(ctx, url, local, SharedOptions{})
	if notice != "" {
		t.Fatal(notice)
	}
	defer again.Close()
	got, corrupt := getAll(t, again, keysOf(before))
	if len(got) != len(before) || len(corrupt) > 0 {
		t.Errorf("after the restart %d of the %d extracts written before the kill (corrupt %q)", len(got), len(before), corrupt)
	}
	if idx, ok, _, err := again.SnapshotIndex(ctx, gen); !ok || err != nil || !bytes.Equal(idx, index) {
		t.Errorf("the snapshot written before the kill: %v %v", ok, err)
	}
}

// The caller's cancellation is the caller's: no fall back, no notice.
func TestPostgresCancelIsNotAFault(t *testing.T) {
	sh, _ := openPostgres(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sh.HaveExtracts(ctx, keysOf(extracts(0, 3, "go"))); err == nil {
		t.Error("a cancelled call succeeded")
	}
	if err := sh.PutExtracts(ctx, extracts(0, 3, "go")); err == nil {
		t.Error("a cancelled put succeeded")
	}
	if sh.Engine() != "postgres" {
		t.Errorf("engine %s after a cancellation", sh.Engine())
	}
	if n := SharedNotices(sh); n != nil {
		t.Errorf("notices %q", n)
	}
}

func TestRedactSpec(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h:5432/db":                   "postgres://u@h:5432/db",
		"postgresql://u@h/db?password=secret&sslmode=off": "postgresql://u@h/db?sslmode=off",
		"postgres://u@/db?host=/run/pg":                   "postgres://u@/db?host=/run/pg",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%s) = %s, want %s", in, got, want)
		}
	}
}

func FuzzUnseal(f *testing.F) {
	f.Add(byte('e'), []byte("key"), []byte("payload"), []byte{})
	f.Add(byte('s'), []byte{}, []byte{}, []byte("cchub1s"))
	f.Add(byte('i'), []byte("k"), []byte("p"), Seal('i', []byte("k"), []byte("p")))
	f.Fuzz(func(t *testing.T, kind byte, key, payload, blob []byte) {
		// Any blob: an error or a payload, never a panic; a payload
		// only when the blob is the seal of it.
		if p, err := Unseal(kind, key, blob); err == nil && !bytes.Equal(Seal(kind, key, p), blob) {
			t.Fatalf("Unseal accepted %q as %q", blob, p)
		}
		sealed := Seal(kind, key, payload)
		p, err := Unseal(kind, key, sealed)
		if err != nil || !bytes.Equal(p, payload) {
			t.Fatalf("round trip: %q, %v", p, err)
		}
		if _, err := Unseal(kind^1, key, sealed); err == nil {
			t.Fatal("a seal of another kind was accepted")
		}
		if len(sealed) > 0 {
			flipped := bytes.Clone(sealed)
			flipped[len(flipped)-1] ^= 0x80
			if _, err := Unseal(kind, key, flipped); err == nil {
				t.Fatal("a flipped byte was accepted")
			}
		}
	})
}

// A database migrated once is used by a role that may only read and
// write cchub's tables (a team's CI role, say): opening it creates
// nothing.
func TestPostgresReadWriteRoleNeedsNoCreate(t *testing.T) {
	ctx := context.Background()
	_, url := openPostgres(t) // migrated by the owner
	for _, q := range []string{
		`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ciwriter') THEN CREATE ROLE ciwriter LOGIN; END IF; END $$`,
		`REVOKE CREATE ON SCHEMA public FROM PUBLIC`,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ciwriter`,
	} {
		if err := pgtest.Exec(ctx, url, q); err != nil {
			t.Fatal(err)
		}
	}
	writer := strings.Replace(url, pgtest.Role+"@", "ciwriter@", 1)
	sh, notice := OpenShared(ctx, writer, openStore(t, openRoot(t, "")), SharedOptions{})
	defer sh.Close()
	if notice != "" || sh.Engine() != "postgres" {
		t.Fatalf("a read-write role: %s engine, notice %q", sh.Engine(), notice)
	}
	es := extracts(0, 3, "go")
	if err := sh.PutExtracts(ctx, es); err != nil {
		t.Fatal(err)
	}
	if got, corrupt := getAll(t, sh, keysOf(es)); len(got) != 3 || len(corrupt) != 0 {
		t.Fatalf("read back %d, corrupt %q", len(got), corrupt)
	}
	if n := SharedNotices(sh); n != nil {
		t.Fatalf("fell back: %q", n)
	}
}
