package pgtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m).Run()) }

func query(t *testing.T, url, sql string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var s string
	if err := conn.QueryRow(ctx, sql).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// The shared cluster gives each test a database of its own, on a unix
// socket only, with fsync off, run by a user that is not root.
func TestDatabasesAreFreshAndPrivate(t *testing.T) {
	a, b := DatabaseForTest(t), DatabaseForTest(t)
	if a == b {
		t.Fatalf("two tests got one database %s", a)
	}
	if err := Exec(context.Background(), a, `CREATE TABLE x (v int)`); err != nil {
		t.Fatal(err)
	}
	if got := query(t, b, `SELECT count(*)::text FROM pg_tables WHERE tablename = 'x'`); got != "0" {
		t.Errorf("a table made in %s is in %s", a, b)
	}
	for setting, want := range map[string]string{"listen_addresses": "", "fsync": "off"} {
		if got := query(t, a, `SELECT current_setting('`+setting+`')`); got != want {
			t.Errorf("%s = %q, want %q", setting, got, want)
		}
	}
	if !strings.Contains(a, "?host=/") {
		t.Errorf("URL %s is not a unix socket's", a)
	}
	if os.Geteuid() == 0 {
		data := query(t, a, `SELECT current_setting('data_directory')`)
		st, err := os.Stat(data)
		if err != nil {
			t.Fatal(err)
		}
		if uid := st.Sys().(*syscall.Stat_t).Uid; uid == 0 {
			t.Errorf("the data directory %s is root's: the server must run as another user", data)
		}
	}
}

// A cluster of a test's own stops, is killed, and restarts with its data.
func TestStopKillRestart(t *testing.T) {
	c := StartForTest(t)
	ctx := context.Background()
	if err := Exec(ctx, c.URL(), `CREATE TABLE kept (v int); INSERT INTO kept VALUES (7)`); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if c.Running() {
		t.Fatal("running after Stop")
	}
	if _, err := pgx.Connect(ctx, c.URL()); err == nil {
		t.Fatal("a stopped server accepted a connection")
	}
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	c.Kill()
	if c.Running() {
		t.Fatal("running after Kill")
	}
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if got := query(t, c.URL(), `SELECT v::text FROM kept`); got != "7" {
		t.Errorf("after a stop and a kill the table holds %q, want 7", got)
	}
}

// Without initdb on PATH nor in Debian's place, the server is missing and
// the reason says how to get it; with Debian's layout it is found there.
func TestAvailableLooksOnPathThenDebiansPlace(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	old := debianBins
	defer func() { debianBins = old }()
	debianBins = filepath.Join(t.TempDir(), "*", "bin")
	if ok, why := Available(); ok || !strings.Contains(why, "apt-get install postgresql-15") {
		t.Errorf("Available() = %v, %q; want false and the install hint", ok, why)
	}
	root := filepath.Dir(filepath.Dir(debianBins))
	for _, v := range []string{"13", "15", "9.6"} {
		bin := filepath.Join(root, v, "bin")
		os.MkdirAll(bin, 0o755)
		for _, p := range []string{"initdb", "postgres"} {
			if err := os.WriteFile(filepath.Join(bin, p), nil, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if dir, err := binDir(); err != nil || dir != filepath.Join(root, "15", "bin") {
		t.Errorf("binDir() = %s, %v; want the newest, 15", dir, err)
	}
}
