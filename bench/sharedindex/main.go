// Command sharedindex measures what a shared index in PostgreSQL buys a
// fleet of CI runners and a new process (issue 25). It is a benchmark,
// run by `make bench`: it exits non-zero only on a wrong answer (two
// checkouts whose graphs differ, a cchub that failed), never on a time
// target missed.
//
// On a copy of GOROOT/src and of Python's standard library (sysconfig's
// stdlib path, its .py and .pyi files), each made a git repository of
// two commits (the tree; a statement added to three functions), with a
// PostgreSQL it starts itself (a private cluster in a temporary
// directory) or the one -store names:
//
//   - runner A, a fresh clone: `cchub index --store URL`, timed; then
//     runner B, a fresh clone at another path, the same into the same
//     database: B's time over A's (target ≤ 0.2). The same for `cchub
//     blast --base HEAD~1` (target ≤ 0.25), and with --tests, each pair
//     on a database of its own. B's answers (`cchub graph callers NAME
//     --json` of a few names, the blast JSON) must equal A's byte for
//     byte, and A's must equal the SQLite engine's (the default).
//   - -runners fresh clones (8) indexing into one new empty database at
//     once, as separate processes: wall time, errors (exit codes and
//     stderr: must be none), the database's size, and each runner's
//     graph, which must equal runner A's.
//   - the first graph query of a new process on an indexed checkout
//     (`cchub graph callers NAME`), the median of 5 processes, for the
//     SQLite engine and for --store (target ≤ 0.3 s).
//
// The figures are printed as a markdown table (or, with -json, as JSON).
//
//	go run ./bench/sharedindex -cchub .tools/bin/cchub [-corpus goroot|pystdlib|both]
//	    [-runners 8] [-store URL] [-json] [-keep] [-timeout 20m]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"cchub/bench/corpus"
)

// Targets of issue 25.
const (
	targetIndexRatio = 0.2
	targetBlastRatio = 0.25
	targetFirstQuery = 0.3 // seconds
	firstQueryRuns   = 5
)

// figures is one corpus's measurements.
type figures struct {
	Corpus  string   `json:"corpus"`
	Version string   `json:"version"`
	Files   int      `json:"files"`   // tracked by git
	Changed []string `json:"changed"` // the functions commit 2 changes
	Names   []string `json:"names"`   // whose callers are compared

	SQLiteIndexS float64 `json:"sqlite_index_seconds"` // a fresh clone, the default engine

	IndexAS float64 `json:"index_a_seconds,omitempty"`
	IndexBS float64 `json:"index_b_seconds,omitempty"`
	BlastAS float64 `json:"blast_a_seconds,omitempty"`
	BlastBS float64 `json:"blast_b_seconds,omitempty"`
	TestsAS float64 `json:"blast_tests_a_seconds,omitempty"`
	TestsBS float64 `json:"blast_tests_b_seconds,omitempty"`
	// TestsSkipped says why blast --tests was not measured.
	TestsSkipped string `json:"blast_tests_skipped,omitempty"`
	StoreBytesA  int64  `json:"database_bytes_after_a,omitempty"`
	// Transactions committed and rows written (inserted or updated) in
	// the database by runner A's index, and by runner B's.
	XactsA int64 `json:"transactions_a,omitempty"`
	RowsA  int64 `json:"rows_written_a,omitempty"`
	XactsB int64 `json:"transactions_b,omitempty"`
	RowsB  int64 `json:"rows_written_b,omitempty"`

	Runners       int      `json:"runners,omitempty"`
	RunnersWallS  float64  `json:"runners_wall_seconds,omitempty"`
	RunnersMaxS   float64  `json:"runners_slowest_seconds,omitempty"`
	RunnersErrors []string `json:"runners_errors,omitempty"`
	RunnersBytes  int64    `json:"runners_database_bytes,omitempty"`

	FirstSQLiteS []float64 `json:"first_query_sqlite_seconds"`
	FirstStoreS  []float64 `json:"first_query_store_seconds,omitempty"`

	// Skipped says why the store's figures are missing.
	Skipped string `json:"store_skipped,omitempty"`
	// Failures are wrong answers and failed cchub runs: any makes the
	// benchmark exit 1.
	Failures []string `json:"failures,omitempty"`
	Seconds  float64  `json:"seconds"`
}

type report struct {
	Cchub   string     `json:"cchub"`
	Store   string     `json:"store"` // which PostgreSQL, or why none
	Corpora []*figures `json:"corpora"`
}

func main() {
	bin := flag.String("cchub", "", "the cchub binary (default: .tools/bin/cchub, else cchub on PATH)")
	which := flag.String("corpus", "both", "goroot, pystdlib or both")
	runners := flag.Int("runners", 8, "how many runners index into one new database at once")
	store := flag.String("store", "", "a PostgreSQL URL to use instead of a private cluster (its role must be allowed to CREATE DATABASE; databases cchub_bench_* are made and dropped)")
	asJSON := flag.Bool("json", false, "print the figures as JSON instead of the table")
	keep := flag.Bool("keep", false, "keep the temporary directory (its path is printed)")
	timeout := flag.Duration("timeout", 20*time.Minute, "bound of one cchub process")
	flag.Parse()

	var specs []corpusSpec
	for _, c := range corpora {
		if *which == "both" || *which == c.Name {
			specs = append(specs, c)
		}
	}
	if len(specs) == 0 || *runners < 1 {
		fmt.Fprintln(os.Stderr, "sharedindex: -corpus is goroot, pystdlib or both, and -runners at least 1")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := mainErr(ctx, *bin, specs, *runners, *store, *keep, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sharedindex:", err)
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		printTable(os.Stdout, rep)
	}
	for _, f := range rep.Corpora {
		if len(f.Failures) > 0 {
			os.Exit(1)
		}
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sharedindex: "+format+"\n", args...)
}

func mainErr(ctx context.Context, bin string, specs []corpusSpec, runners int, storeURL string, keep bool, timeout time.Duration) (*report, error) {
	bin, err := findCchub(bin)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "sharedindex-")
	if err != nil {
		return nil, err
	}
	if keep {
		logf("the checkouts are kept in %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	// A copy of the binary: a rebuild while the benchmark runs does not
	// mix two versions in one table.
	cp := filepath.Join(tmp, "bin", "cchub")
	if err := corpus.CopyTree(bin, cp, corpus.Copy{}); err != nil {
		return nil, fmt.Errorf("copy %s: %w", bin, err)
	}
	if err := os.Chmod(cp, 0o755); err != nil {
		return nil, err
	}
	r := &runner{bin: cp, timeout: timeout, cfgRoot: filepath.Join(tmp, "config")}
	rep := &report{Cchub: bin}

	// The store: -store's, else a private cluster; none when this cchub
	// has no --store or no cluster can be had (then only the SQLite
	// engine's figures are measured, and the table says why).
	var c cluster
	var why string
	switch {
	case !r.supports(ctx, "index", "--store"):
		why = "this cchub has no --store (build one with issue 25's store: make build)"
	case storeURL != "":
		c = given(storeURL)
	default:
		if ok, w := clusterAvailable(); !ok {
			why = "no private PostgreSQL: " + w
			break
		}
		pgDir := filepath.Join(tmp, "pg")
		if err := os.MkdirAll(pgDir, 0o755); err != nil {
			return nil, err
		}
		logf("starting a private PostgreSQL in %s", pgDir)
		if c, err = startCluster(ctx, pgDir); err != nil {
			return nil, fmt.Errorf("start a private PostgreSQL: %w (or give one with -store URL)", err)
		}
		defer func() {
			if err := c.Stop(); err != nil {
				logf("stopping the private PostgreSQL: %v", err)
			}
		}()
	}
	if c != nil {
		rep.Store = serverVersion(ctx, c.URL()) + " at " + redact(c.URL())
	} else {
		rep.Store = "none: " + why
	}

	for _, spec := range specs {
		f, err := measure(ctx, r, c, why, spec, filepath.Join(tmp, spec.Name), runners)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Name, err)
		}
		rep.Corpora = append(rep.Corpora, f)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return rep, nil
}

func findCchub(bin string) (string, error) {
	if bin == "" {
		bin = filepath.Join(".tools", "bin", "cchub")
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("no cchub binary: run `make build` (it writes .tools/bin/cchub) or give -cchub PATH")
		}
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("-cchub %s: %w (run `make build`, or give the path of a cchub binary)", bin, err)
	}
	return filepath.Abs(bin)
}

// measure takes one corpus's figures. An error is a failure to measure
// (the corpus cannot be made, the database cannot be created); wrong
// answers are in the figures' Failures.
func measure(ctx context.Context, r *runner, c cluster, why string, spec corpusSpec, dir string, runners int) (*figures, error) {
	t0 := time.Now()
	m := &measurement{r: r, c: c, spec: spec, dir: dir, f: &figures{Corpus: spec.Name, Names: spec.names}}
	defer func() { m.f.Seconds = time.Since(t0).Seconds() }()
	m.repo = filepath.Join(dir, "repo")
	logf("%s: copying the corpus into a git repository", spec.Name)
	version, changed, err := makeRepo(ctx, spec, m.repo)
	if err != nil {
		return nil, err
	}
	m.f.Version, m.f.Changed = version, changed
	if out, err := corpus.RunOut(ctx, time.Minute, m.repo, nil, "git", "ls-files", "-z"); err == nil {
		m.f.Files = strings.Count(string(out), "\x00")
	}
	if ok, err := m.sqlite(ctx); err != nil {
		return nil, err
	} else if !ok {
		return m.f, nil
	}
	if c == nil {
		m.f.Skipped = why
		return m.f, nil
	}
	defer m.dropAll()
	if ok, err := m.twoRunners(ctx); err != nil {
		return nil, err
	} else if !ok {
		return m.f, nil
	}
	if err := m.blasts(ctx); err != nil {
		return nil, err
	}
	if err := m.manyRunners(ctx, runners); err != nil {
		return nil, err
	}
	return m.f, nil
}

// measurement is one corpus's measure under way.
type measurement struct {
	r         *runner
	c         cluster
	spec      corpusSpec
	dir, repo string
	f         *figures
	sqliteDir string   // the SQLite engine's clone
	ref       answers  // the SQLite engine's answers, which every other checkout's must equal
	refBlast  outcome  // its blast --json
	refTests  outcome  // its blast --tests
	ansA      answers  // runner A's answers through the shared store
	drops     []func() // the databases made, to drop
}

// fresh clones the corpus's repository into a new directory of dir.
func (m *measurement) fresh(ctx context.Context, name string) (string, error) {
	d := filepath.Join(m.dir, name)
	return d, clone(ctx, m.repo, d)
}

// fail notes a wrong answer.
func (m *measurement) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	logf("%s: FAIL: %s", m.spec.Name, msg)
	m.f.Failures = append(m.f.Failures, msg)
}

// db makes a new database of the cluster for what, dropped at the end
// when the cluster was given (a private one goes whole).
func (m *measurement) db(ctx context.Context, what string) (string, error) {
	name := "cchub_bench_" + m.spec.Name + "_" + what
	u, err := newDatabase(ctx, m.c, name)
	m.drops = append(m.drops, func() {
		if _, given := m.c.(given); given {
			dropDatabase(context.WithoutCancel(ctx), m.c, name)
		}
	})
	return u, err
}

func (m *measurement) dropAll() {
	for i := len(m.drops) - 1; i >= 0; i-- {
		m.drops[i]()
	}
}

// sqlite measures the SQLite engine, the default: a fresh clone's index,
// the answers every other checkout's must equal, the first query. It
// says false when a wrong answer ends the corpus's measure.
func (m *measurement) sqlite(ctx context.Context) (bool, error) {
	r, spec, f := m.r, m.spec, m.f
	s, err := m.fresh(ctx, "sqlite")
	if err != nil {
		return false, err
	}
	m.sqliteDir = s
	logf("%s: SQLite engine: cchub index on a fresh clone", spec.Name)
	o := r.run(ctx, s, "index")
	if e := o.failed(); e != "" {
		m.fail("cchub index (SQLite engine): %s", e)
		return false, nil
	}
	f.SQLiteIndexS = o.Sec
	if m.ref, err = r.ask(ctx, s, spec.names); err != nil {
		m.fail("SQLite engine: %v", err)
		return false, nil
	}
	logf("%s: SQLite engine: cchub blast, and with --tests", spec.Name)
	m.refBlast = r.run(ctx, s, "blast", "--base", "HEAD~1", "--json")
	if spec.noTests == "" {
		m.refTests = r.run(ctx, s, "blast", "--base", "HEAD~1", "--tests", "--tests-format", "json")
	}
	for _, o := range []outcome{m.refBlast, m.refTests} {
		if e := o.failed(); e != "" {
			m.fail("cchub blast (SQLite engine): %s", e)
			return false, nil
		}
	}
	logf("%s: SQLite engine: the first query of %d new processes", spec.Name, firstQueryRuns)
	for range firstQueryRuns {
		o := r.run(ctx, s, "graph", "callers", spec.names[0])
		if e := o.failed(); e != "" {
			m.fail("cchub graph callers %s (SQLite engine): %s", spec.names[0], e)
			break
		}
		f.FirstSQLiteS = append(f.FirstSQLiteS, o.Sec)
	}
	return true, nil
}

// twoRunners measures runner A, then runner B, indexing into one
// database, and their answers. It says false when a wrong answer ends the
// corpus's measure.
func (m *measurement) twoRunners(ctx context.Context) (bool, error) {
	r, spec, f := m.r, m.spec, m.f
	u, err := m.db(ctx, "index")
	if err != nil {
		return false, err
	}
	a, err := m.fresh(ctx, "runner-a")
	if err != nil {
		return false, err
	}
	b, err := m.fresh(ctx, "runner-b")
	if err != nil {
		return false, err
	}
	x0, w0, _ := dbActivity(ctx, u)
	logf("%s: runner A: cchub index --store", spec.Name)
	oa := r.run(ctx, a, "index", "--store", u)
	if e := oa.failed(); e != "" {
		m.fail("runner A: cchub index --store: %s", e)
		return false, nil
	}
	f.IndexAS = oa.Sec
	if n, err := dbSize(ctx, u); err == nil {
		f.StoreBytesA = n
	}
	x1, w1, _ := dbActivity(ctx, u)
	logf("%s: runner B: cchub index --store", spec.Name)
	ob := r.run(ctx, b, "index", "--store", u)
	if e := ob.failed(); e != "" {
		m.fail("runner B: cchub index --store: %s", e)
		return false, nil
	}
	f.IndexBS = ob.Sec
	if x2, w2, err := dbActivity(ctx, u); err == nil {
		// Less the transaction of each psql query in between.
		f.XactsA, f.RowsA = x1-x0-2, w1-w0
		f.XactsB, f.RowsB = x2-x1-1, w2-w1
	}
	if m.ansA, err = r.ask(ctx, a, spec.names, "--store", u); err != nil {
		m.fail("runner A: %v", err)
		return false, nil
	}
	ansB, err := r.ask(ctx, b, spec.names, "--store", u)
	if err != nil {
		m.fail("runner B: %v", err)
		return false, nil
	}
	for _, d := range differAnswers("runner A (--store) vs the SQLite engine", m.ref, m.ansA) {
		m.fail("%s", d)
	}
	for _, d := range differAnswers("runner B vs runner A", m.ansA, ansB) {
		m.fail("%s", d)
	}
	logf("%s: --store: the first query of %d new processes", spec.Name, firstQueryRuns)
	for range firstQueryRuns {
		o := r.run(ctx, a, "graph", "callers", spec.names[0], "--store", u)
		if e := o.failed(); e != "" {
			m.fail("cchub graph callers %s --store: %s", spec.names[0], e)
			break
		}
		f.FirstStoreS = append(f.FirstStoreS, o.Sec)
	}
	return true, nil
}

// blasts measures blast end to end, then blast --tests, each on two fresh
// clones and a database of its own.
func (m *measurement) blasts(ctx context.Context) error {
	f := m.f
	for _, p := range []struct {
		what string
		args []string
		ref  outcome
		a, b *float64
	}{
		{"blast", []string{"blast", "--base", "HEAD~1", "--json"}, m.refBlast, &f.BlastAS, &f.BlastBS},
		{"tests", []string{"blast", "--base", "HEAD~1", "--tests", "--tests-format", "json"}, m.refTests, &f.TestsAS, &f.TestsBS},
	} {
		if p.what == "tests" && m.spec.noTests != "" {
			f.TestsSkipped = m.spec.noTests
			continue
		}
		u, err := m.db(ctx, p.what)
		if err != nil {
			return err
		}
		args := append(p.args, "--store", u)
		var outs [2]outcome
		for i, name := range []string{p.what + "-a", p.what + "-b"} {
			d, err := m.fresh(ctx, name)
			if err != nil {
				return err
			}
			logf("%s: %s: cchub %s", m.spec.Name, name, strings.Join(p.args, " "))
			outs[i] = m.r.run(ctx, d, args...)
			outs[i].Stdout = normalize(outs[i].Stdout, d)
			if e := outs[i].failed(); e != "" {
				m.fail("%s: cchub %s --store: %s", name, strings.Join(p.args, " "), e)
			}
		}
		if outs[0].failed() != "" || outs[1].failed() != "" {
			continue
		}
		*p.a, *p.b = outs[0].Sec, outs[1].Sec
		if d := differ(outs[0].Stdout, outs[1].Stdout); d != "" {
			m.fail("cchub %s: runner B's JSON differs from runner A's: %s", strings.Join(p.args, " "), d)
		}
		if d := differ(normalize(p.ref.Stdout, m.sqliteDir), outs[0].Stdout); d != "" {
			m.fail("cchub %s: --store's JSON differs from the SQLite engine's: %s", strings.Join(p.args, " "), d)
		}
	}
	return nil
}

// manyRunners measures many runners at once into one new database.
func (m *measurement) manyRunners(ctx context.Context, runners int) error {
	r, spec, f := m.r, m.spec, m.f
	u8, err := m.db(ctx, "runners")
	if err != nil {
		return err
	}
	var dirs []string
	for i := range runners {
		d, err := m.fresh(ctx, fmt.Sprintf("runner-%d", i+1))
		if err != nil {
			return err
		}
		dirs = append(dirs, d)
	}
	logf("%s: %d runners: cchub index --store at once", spec.Name, runners)
	outs, wall := r.parallel(ctx, dirs, "index", "--store", u8)
	f.Runners, f.RunnersWallS = runners, wall
	for i, o := range outs {
		f.RunnersMaxS = max(f.RunnersMaxS, o.Sec)
		if e := o.failed(); e != "" {
			f.RunnersErrors = append(f.RunnersErrors, fmt.Sprintf("runner %d: %s", i+1, e))
			m.fail("runner %d of %d: cchub index --store: %s", i+1, runners, e)
		}
	}
	if n, err := dbSize(ctx, u8); err == nil {
		f.RunnersBytes = n
	} else {
		logf("%s: the database's size: %v", spec.Name, err)
	}
	for i, d := range dirs {
		if outs[i].failed() != "" {
			continue
		}
		ans, err := r.ask(ctx, d, spec.names, "--store", u8)
		if err != nil {
			m.fail("runner %d of %d: %v", i+1, runners, err)
			continue
		}
		for _, d := range differAnswers(fmt.Sprintf("runner %d of %d vs runner A", i+1, runners), m.ansA, ans) {
			m.fail("%s", d)
		}
	}
	return nil
}

// printTable writes the figures as markdown.
func printTable(w io.Writer, rep *report) {
	fmt.Fprintf(w, "cchub: %s\nstore: %s\n\n", rep.Cchub, rep.Store)
	fmt.Fprintln(w, "| corpus | figure | value | target | result |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, f := range rep.Corpora {
		row := func(figure, value, target, result string) {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", f.Corpus, figure, value, target, result)
		}
		row("corpus", fmt.Sprintf("%s, %d files; changed: %s", f.Version, f.Files, strings.Join(f.Changed, ", ")), "", "")
		if f.SQLiteIndexS > 0 {
			row("SQLite engine: cchub index, fresh clone", secs(f.SQLiteIndexS), "", "")
		}
		if len(f.FirstSQLiteS) > 0 {
			row("first query, SQLite engine (median of "+fmt.Sprint(len(f.FirstSQLiteS))+")", secs(corpus.Median(f.FirstSQLiteS)), fmt.Sprintf("≤ %.1f s", targetFirstQuery), timeResult(corpus.Median(f.FirstSQLiteS) <= targetFirstQuery))
		}
		if f.Skipped != "" {
			row("--store figures", "", "", "skipped: "+f.Skipped)
		}
		if f.IndexAS > 0 {
			row("cchub index --store: runner A, runner B", secs(f.IndexAS)+", "+secs(f.IndexBS), "", "")
			row("index B/A", ratio(f.IndexBS, f.IndexAS), fmt.Sprintf("≤ %.2f", targetIndexRatio), timeResult(f.IndexBS <= targetIndexRatio*f.IndexAS))
		}
		if f.StoreBytesA > 0 {
			row("database size after runner A", mib(f.StoreBytesA), "", "")
		}
		if f.XactsA > 0 {
			row("transactions, rows written: runner A; runner B", fmt.Sprintf("%d, %d; %d, %d", f.XactsA, f.RowsA, f.XactsB, f.RowsB), "", "")
		}
		if f.BlastAS > 0 {
			row("cchub blast --store: A', B'", secs(f.BlastAS)+", "+secs(f.BlastBS), "", "")
			row("blast B'/A'", ratio(f.BlastBS, f.BlastAS), fmt.Sprintf("≤ %.2f", targetBlastRatio), timeResult(f.BlastBS <= targetBlastRatio*f.BlastAS))
		}
		if f.TestsAS > 0 {
			row("cchub blast --tests --store: A'', B''", secs(f.TestsAS)+", "+secs(f.TestsBS), "", "")
			row("blast --tests B''/A''", ratio(f.TestsBS, f.TestsAS), fmt.Sprintf("≤ %.2f", targetBlastRatio), timeResult(f.TestsBS <= targetBlastRatio*f.TestsAS))
		}
		if f.TestsSkipped != "" {
			row("cchub blast --tests --store", "", "", "skipped: "+f.TestsSkipped)
		}
		if len(f.FirstStoreS) > 0 {
			row("first query, --store (median of "+fmt.Sprint(len(f.FirstStoreS))+")", secs(corpus.Median(f.FirstStoreS)), fmt.Sprintf("≤ %.1f s", targetFirstQuery), timeResult(corpus.Median(f.FirstStoreS) <= targetFirstQuery))
		}
		if f.Runners > 0 {
			row(fmt.Sprintf("%d runners at once: wall (slowest)", f.Runners), secs(f.RunnersWallS)+" ("+secs(f.RunnersMaxS)+")", "", "")
			row(fmt.Sprintf("%d runners: errors", f.Runners), fmt.Sprint(len(f.RunnersErrors)), "0", answerResult(len(f.RunnersErrors) == 0))
			row(fmt.Sprintf("%d runners: database size", f.Runners), mib(f.RunnersBytes), "", "")
		}
		row("wrong answers and failed runs (B = A = each runner = SQLite engine)", fmt.Sprint(len(f.Failures)), "0", answerResult(len(f.Failures) == 0))
	}
	for _, f := range rep.Corpora {
		for _, e := range f.Failures {
			fmt.Fprintf(w, "\n- FAIL %s: %s", f.Corpus, e)
		}
	}
	fmt.Fprintln(w)
}

func secs(s float64) string { return fmt.Sprintf("%.2f s", s) }

func ratio(b, a float64) string {
	if a == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f", b/a)
}

func mib(n int64) string {
	if n == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// timeResult: a time target is met or missed, never failed.
func timeResult(ok bool) string {
	if ok {
		return "pass"
	}
	return "missed"
}

func answerResult(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}
