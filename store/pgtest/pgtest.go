// Package pgtest starts a private PostgreSQL server for tests and
// benchmarks: a cluster made with initdb in a temporary directory, that
// listens on a unix socket in that directory only (no TCP port), trusts
// its one role, and is stopped after. As root (CI runs as root) the
// server runs as the unprivileged user nobody, since PostgreSQL refuses
// to run as root.
//
// The server is this process's child (its own process group, killed with
// SIGQUIT if this process dies, reaped by a goroutine of its Cluster), not
// a daemon pg_ctl would leave behind: Stop is PostgreSQL's fast shutdown,
// the one pg_ctl stop -m fast asks for, and waits for it.
//
// A package's tests share one cluster (ForTest; TestMain runs
// pgtest.Main(m).Run() so it is stopped at the end) with a fresh database
// per test (DatabaseForTest); a test that stops or kills its server starts
// its own (StartForTest).
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Role and Database are the cluster's superuser and the database made
// with it.
const (
	Role     = "cchub"
	Database = "cchub"
)

// InstallHint says how to get PostgreSQL's server.
const InstallHint = "PostgreSQL's server (initdb, postgres) is needed: apt-get install postgresql-15 (make tools-test installs it as root), or put its bin directory on PATH"

// Available says whether PostgreSQL's server programs are found, and if
// not, why.
func Available() (ok bool, why string) {
	if _, err := binDir(); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// debianBins is where Debian's packages put each version's programs.
var debianBins = "/usr/lib/postgresql/*/bin"

// binDir is the directory of initdb and postgres: initdb's on PATH (links
// followed), else the newest /usr/lib/postgresql/*/bin.
func binDir() (string, error) {
	has := func(dir string) bool {
		for _, p := range []string{"initdb", "postgres"} {
			if st, err := os.Stat(filepath.Join(dir, p)); err != nil || st.IsDir() {
				return false
			}
		}
		return true
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && has(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
		if has(filepath.Dir(p)) {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob(debianBins)
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	return "", errors.New("pgtest: no initdb on PATH nor in /usr/lib/postgresql/*/bin; " + InstallHint)
}

func version(bin string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(bin)), 64)
	return v
}

// Cluster is one running (or stopped) private server.
type Cluster struct {
	bin     string
	dir     string // the caller's directory: data/ and the log are in it
	data    string
	sock    string // the socket's directory
	ownSock bool   // sock is a directory of ours, removed by Stop
	cred    *syscall.Credential
	log     string

	mu     sync.Mutex
	server *server // nil before the first start
	dbs    atomic.Int64
}

// server is one run of the postmaster.
type server struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the reaper has waited for it
	err  error         // its exit, once done is closed
}

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the server's process group (the postmaster and
// every backend), unless it has been reaped.
func (s *server) signal(sig syscall.Signal) {
	if !s.exited() {
		syscall.Kill(-s.cmd.Process.Pid, sig)
	}
}

// Start makes a cluster in dir (which must be empty or absent) and starts
// its server. Stop it when done.
func Start(ctx context.Context, dir string) (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	c := &Cluster{bin: bin, dir: dir, data: filepath.Join(dir, "data"), sock: dir, log: filepath.Join(dir, "postgres.log")}
	// A socket's path has room for about 100 bytes.
	if len(dir)+len("/.s.PGSQL.5432") > 100 {
		if c.sock, err = os.MkdirTemp("", "pgsock-"); err != nil {
			return nil, fmt.Errorf("pgtest: %w", err)
		}
		c.ownSock = true
	}
	if os.Geteuid() == 0 {
		if c.cred, err = nobody(); err != nil {
			return nil, err
		}
		for _, d := range []string{dir, c.sock} {
			if err := reachable(d, c.cred); err != nil {
				return nil, err
			}
		}
	}
	initdb := c.command(filepath.Join(bin, "initdb"), "-D", c.data, "--auth=trust", "-U", Role, "--no-sync", "--encoding=UTF8", "--locale=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgtest: initdb in %s: %v\n%s", c.data, err, out)
	}
	conf := fmt.Sprintf(`
listen_addresses = ''
unix_socket_directories = '%s'
port = 5432
max_connections = 200
shared_buffers = 32MB
fsync = off
full_page_writes = off
dynamic_shared_memory_type = mmap
`, c.sock)
	f, err := os.OpenFile(filepath.Join(c.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(conf)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pgtest: configure %s: %w", c.data, err)
	}
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	if err := Exec(ctx, c.url("postgres"), "CREATE DATABASE "+Database); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// nobody is the credential of the user nobody.
func nobody() (*syscall.Credential, error) {
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root, the server must run as another user, and there is no user nobody: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// reachable gives dir (and what is in it) to cred's user, and makes every
// directory above it that is under the temporary directory traversable
// (search only); a directory above it elsewhere that is not traversable
// is an error.
func reachable(dir string, cred *syscall.Credential) error {
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(cred.Uid), int(cred.Gid))
	})
	if err != nil {
		return fmt.Errorf("pgtest: give %s to the server's user: %w", dir, err)
	}
	tmp, _ := filepath.EvalSymlinks(os.TempDir())
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("pgtest: %w", err)
		}
		if st.Mode().Perm()&0o001 == 0 {
			real, _ := filepath.EvalSymlinks(p)
			if tmp == "" || (real != tmp && !strings.HasPrefix(real, tmp+string(filepath.Separator))) {
				return fmt.Errorf("pgtest: the server runs as nobody, who cannot reach %s (%s is mode %o); give a directory under %s", dir, p, st.Mode().Perm(), os.TempDir())
			}
			if err := os.Chmod(p, st.Mode().Perm()|0o001); err != nil {
				return fmt.Errorf("pgtest: %w", err)
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// command is a program of the server run as its user, with an
// environment of its own (no PG* variable of the caller's).
func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = c.dir
	cmd.Env = []string{"PATH=" + c.bin + ":/usr/bin:/bin", "LC_ALL=C", "LANG=C", "TZ=UTC"}
	cmd.SysProcAttr = sysAttr(c.cred)
	return cmd
}

// start starts the server and waits until it accepts connections.
func (c *Cluster) start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.server != nil && !c.server.exited() {
		return errors.New("pgtest: the server is running already")
	}
	// A server killed a moment ago may leave backends that still hold
	// its shared memory: a new one refuses to start until they are gone.
	var last error
	for attempt := 0; ; attempt++ {
		if last = c.startOnce(ctx); last == nil {
			return nil
		}
		if attempt == 50 || !errors.Is(last, errShmemInUse) {
			return last
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return last
		}
	}
}

func (c *Cluster) startOnce(ctx context.Context) error {
	logf, err := os.OpenFile(c.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer logf.Close()
	mark, _ := logf.Seek(0, 2)
	cmd := c.command(filepath.Join(c.bin, "postgres"), "-D", c.data)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	c.server = s
	go func() { // the server's reaper
		s.err = cmd.Wait()
		close(s.done)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(cctx, c.url("postgres"))
		cancel()
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-s.done:
			log := c.logSince(mark)
			if strings.Contains(log, "shared memory block") {
				return fmt.Errorf("pgtest: postgres exited at start: %s: %w", log, errShmemInUse)
			}
			return fmt.Errorf("pgtest: postgres exited at start: %s", log)
		case <-ctx.Done():
			s.signal(syscall.SIGKILL)
			<-s.done
			return fmt.Errorf("pgtest: start postgres: %w", ctx.Err())
		case <-time.After(30 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.signal(syscall.SIGKILL)
			<-s.done
			return fmt.Errorf("pgtest: postgres did not accept connections within a minute: %v; its log: %s", err, c.logSince(mark))
		}
	}
}

func (c *Cluster) logSince(mark int64) string {
	b, _ := os.ReadFile(c.log)
	if mark > int64(len(b)) {
		mark = 0
	}
	b = b[mark:]
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return strings.TrimSpace(string(b))
}

// errShmemInUse: backends of a killed server still hold its shared
// memory.
var errShmemInUse = errors.New("the last server's backends are still exiting")

// url is the URL of database db.
func (c *Cluster) url(db string) string {
	host := strings.ReplaceAll(url.QueryEscape(c.sock), "%2F", "/")
	return "postgres://" + Role + "@/" + db + "?host=" + host
}

// URL is the URL of the cluster's database cchub.
func (c *Cluster) URL() string { return c.url(Database) }

// Dir is the cluster's directory.
func (c *Cluster) Dir() string { return c.dir }

// Running says whether the server runs.
func (c *Cluster) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.server != nil && !c.server.exited()
}

// Stop shuts the server down (fast: open transactions are rolled back,
// sessions ended) and waits until it has exited. Stopping a stopped
// server does nothing.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	s := c.server
	c.mu.Unlock()
	if s == nil || s.exited() {
		return nil
	}
	s.signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		c.Kill()
		return errors.New("pgtest: the server did not stop within a minute of its fast shutdown; it was killed")
	}
	if c.ownSock {
		os.Remove(filepath.Join(c.sock, ".s.PGSQL.5432"))
	}
	return nil
}

// Kill kills the server and its backends at once (SIGKILL), as a crash
// or an out-of-memory kill would, and waits for the server's exit.
// (Backends lead process groups of their own: they are found as the
// stopped postmaster's children.)
func (c *Cluster) Kill() {
	c.mu.Lock()
	s := c.server
	c.mu.Unlock()
	if s == nil || s.exited() {
		return
	}
	pm := s.cmd.Process.Pid
	syscall.Kill(pm, syscall.SIGSTOP) // it forks no more
	kids := children(pm)
	for _, k := range kids {
		syscall.Kill(k, syscall.SIGKILL)
	}
	s.signal(syscall.SIGKILL)
	<-s.done
	// The backends, now init's children, are gone when their /proc entry
	// is (or is a zombie).
	for _, k := range kids {
		for alive(k) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		k, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, k)
		}
	}
	return out
}

// alive says whether pid runs (exists and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// Restart starts the stopped (or killed) server again on the same data.
func (c *Cluster) Restart(ctx context.Context) error { return c.start(ctx) }

// Remove stops the server and removes its files.
func (c *Cluster) Remove() error {
	err := c.Stop()
	if c.ownSock {
		os.RemoveAll(c.sock)
	}
	if rerr := os.RemoveAll(c.dir); err == nil {
		err = rerr
	}
	return err
}

// NewDatabase makes a new, empty database in the cluster and returns its
// URL.
func (c *Cluster) NewDatabase(ctx context.Context) (string, error) {
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("t_%d", c.dbs.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	return c.url(name), nil
}

// Exec runs sql as the superuser in the database at dbURL (for tests
// that make roles, or break things).
func Exec(ctx context.Context, dbURL, sql string, args ...any) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("pgtest: %s: %w", sql, err)
	}
	return nil
}

// The cluster the tests of one binary share.
var (
	shared     *Cluster
	sharedErr  error
	sharedOnce sync.Once
	sharedDir  string
)

// requireEnv makes a missing server a failure instead of a skip.
const requireEnv = "CCHUB_REQUIRE_PEERS"

// need skips (or, when CCHUB_REQUIRE_PEERS is set, fails) t when the
// server programs are missing.
func need(t testing.TB) {
	t.Helper()
	if ok, why := Available(); !ok {
		if os.Getenv(requireEnv) != "" {
			t.Fatalf("missing peer: %s", why)
		}
		t.Skipf("missing peer (%s=1 makes this a failure): %s", requireEnv, why)
	}
}

// ForTest returns the cluster this test binary's tests share, started on
// first use. Its TestMain must run pgtest.Main(m).Run(), which stops it.
// Do not stop or kill it: use StartForTest for that.
func ForTest(t testing.TB) *Cluster {
	t.Helper()
	need(t)
	sharedOnce.Do(func() {
		sharedDir, sharedErr = os.MkdirTemp("", "cchub-pg-")
		if sharedErr == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			shared, sharedErr = Start(ctx, sharedDir)
		}
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// DatabaseForTest returns the URL of a new, empty database of the shared
// cluster.
func DatabaseForTest(t testing.TB) string {
	t.Helper()
	c := ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u, err := c.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// StartForTest starts a cluster of t's own, removed when t ends.
func StartForTest(t testing.TB) *Cluster {
	t.Helper()
	need(t)
	dir, err := os.MkdirTemp("", "cchub-pg-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Start(ctx, dir)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Remove(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// Runner is what a TestMain runs (*testing.M).
type Runner interface{ Run() int }

// Main wraps m so that the shared cluster, if a test started it, is
// stopped and removed after the tests: TestMain runs
// os.Exit(pgtest.Main(m).Run()).
func Main(m Runner) Runner { return mainRunner{m} }

type mainRunner struct{ m Runner }

func (r mainRunner) Run() int {
	code := r.m.Run()
	if shared != nil {
		if err := shared.Remove(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	} else if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	return code
}
