// Command testsel measures whether the tests cchub selects for a change
// are safe: whether every test the change breaks is among them (issue
// 24). It is a benchmark, run by `make bench`; it asserts nothing.
//
// It copies real projects into git repositories of their own (cobra,
// pflag, yaml.v3 (check.v1 suites) and testify from the module cache,
// and on request (-corpora) go-git (check.v1, a suite of minutes) and
// networkx (Debian's package, run by pytest); json, html, fractions, shlex, graphlib,
// configparser and colorsys of Python's standard library with their
// unittest suites; zod 3's v3 TypeScript sources with their vitest
// suite, from npm pack) and makes mutants: one function or method at a
// time gets panic("mutant") (Go), raise RuntimeError("mutant") (Python)
// or throw new Error("mutant") (TypeScript) as its first statement. For
// each mutant the whole suite is the ground truth (Go: each test binary,
// run again past a panic until every test has a result; Python:
// unittest, a result per test function; TypeScript: vitest, a result per
// test by its file and full name), and the
// selector (`cchub blast --tests --tests-format json --base HEAD`) is
// run on the mutated working tree. A failing test that the selection
// does not run (sure and cautious groups, whole packages, or all) is a
// miss; there must be none. Tests that fail before any mutation are
// left out of the suite.
//
// Besides counts, it reports the share of the suite's time selected
// (Go: test2json's stamps; pytest: --durations).
//
//	go run ./bench/testsel [-lang go,py,js] [-corpora a,b] [-n N] [-seed S] [-json] [-v]
//	    [-selector CMD] [-cchub PATH] [-python PY] [-keep] [-from FILE]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"cchub/bench/corpus"
)

// mutant is one function made to fail, and what came of it.
type mutant struct {
	Corpus string `json:"corpus"`
	File   string `json:"file"`
	Func   string `json:"func"`
	Line   int    `json:"line"`
	Pkg    string `json:"pkg,omitempty"` // go: the package's import path

	// Status: ok; "no build" (the mutant does not compile); "selector
	// failed"; "truth failed" (the suite could not be run).
	Status     string   `json:"status"`
	Error      string   `json:"error,omitempty"`
	Failing    []testID `json:"failing,omitempty"`
	Missed     []miss   `json:"missed,omitempty"`
	MissedSure []testID `json:"missed_sure,omitempty"`
	Flaky      []testID `json:"flaky,omitempty"` // missed, but failing on the unmutated tree too
	// AfterPanic are missed tests that pass when run alone on the mutated
	// tree: they failed only after an earlier test's panic left the
	// package's state broken (the run of the selected tests fails anyway).
	AfterPanic   []testID `json:"after_panic,omitempty"`
	All          bool     `json:"all,omitempty"`
	SelectedSure int      `json:"selected_sure"`
	SelectedAll  int      `json:"selected"`
	Suite        int      `json:"suite"`
	TruthSec     float64  `json:"truth_seconds"`
	// SelectedTime and SuiteTime: what the selection's tests and the
	// whole suite took in the unmutated run (Go corpora).
	SelectedTime float64 `json:"selected_test_seconds,omitempty"`
	SuiteTime    float64 `json:"suite_test_seconds,omitempty"`
	SelectSec    float64 `json:"select_seconds"`

	mutated []byte
}

type miss struct {
	Test testID `json:"test"`
	Has  string `json:"selection_has"`
}

// summary is one corpus's figures.
type summary struct {
	Corpus        string  `json:"corpus"`
	Lang          string  `json:"lang"`
	Version       string  `json:"version,omitempty"`
	Functions     int     `json:"functions"`
	Suite         int     `json:"suite"`
	BaselineFail  int     `json:"baseline_failing"`
	Mutants       int     `json:"mutants"`
	NoBuild       int     `json:"no_build"`
	SelectorFail  int     `json:"selector_failed"`
	TruthFail     int     `json:"truth_failed"`
	Killed        int     `json:"mutants_with_failing_tests"`
	FailingTests  int     `json:"failing_tests"`
	Missed        int     `json:"missed"`
	MissedSure    int     `json:"missed_if_only_sure"`
	Flaky         int     `json:"flaky"`
	AfterPanic    int     `json:"after_panic"`
	AllAnswers    int     `json:"whole_suite_answers"`
	ShareSureMean float64 `json:"share_sure_mean"`
	ShareSureMed  float64 `json:"share_sure_median"`
	ShareMean     float64 `json:"share_mean"`
	ShareMed      float64 `json:"share_median"`
	TimeMean      float64 `json:"time_share_mean,omitempty"`
	TimeMed       float64 `json:"time_share_median,omitempty"`
	SuiteTime     float64 `json:"suite_test_seconds,omitempty"`
	FirstSelSec   float64 `json:"first_selection_seconds"`
	SelectP50     float64 `json:"select_p50_seconds"`
	TruthP50      float64 `json:"truth_p50_seconds"`
	Seconds       float64 `json:"seconds"`
}

type report struct {
	Selector string     `json:"selector"`
	Seed     int64      `json:"seed"`
	Corpora  []*summary `json:"corpora"`
	Mutants  []*mutant  `json:"mutants"`
}

func main() {
	langs := flag.String("lang", "go,py", "languages, comma-separated: go (cobra, pflag), py (Python standard library modules), js (zod 3's v3 sources and vitest suite)")
	n := flag.Int("n", 0, "mutants per language (default 120 for Go, 100 for Python, 30 for JavaScript)")
	seed := flag.Int64("seed", 1, "seed of the choice of mutants")
	asJSON := flag.Bool("json", false, "print every mutant's record and the summaries as JSON instead of the tables")
	verbose := flag.Bool("v", false, "print each mutant's outcome to stderr")
	selector := flag.String("selector", "cchub blast --tests --tests-format json --base HEAD", "the command (run by sh in the mutated repository) that prints the test selection JSON; a leading cchub is the -cchub binary")
	cchub := flag.String("cchub", "", "the cchub binary (default: .tools/bin/cchub, else cchub on PATH)")
	tools := flag.String("tools", ".tools", "the tools directory: bin/ first on the selector's PATH (gopls, pyright), debs/ for Debian's Python test suite when the interpreter has none")
	python := flag.String("python", "python3", "the Python that runs the Python suite (its own standard library is copied)")
	timeout := flag.Duration("timeout", 3*time.Minute, "bound of one run of a test suite and of one selection")
	keep := flag.Bool("keep", false, "keep the temporary repositories (their path is printed)")
	corpora := flag.String("corpora", "", "the corpora, comma-separated (default: every one of the languages but go-git and networkx, whose suites take minutes a mutant): cobra, pflag, yaml.v3, testify, go-git, pystdlib, networkx (pytest), zod-v3")
	from := flag.String("from", "", "print the tables of a run saved with -json (FILE) instead of running")
	flag.Parse()

	if *from != "" {
		var r report
		b, err := os.ReadFile(*from)
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsel: -from:", err, "(give a file written by testsel -json)")
			os.Exit(1)
		}
		printTables(os.Stdout, &r)
		return
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := mainErr(ctx, split(*langs), split(*corpora), *n, *seed, *verbose, *selector, *cchub, *tools, *python, *timeout, *keep)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsel:", err)
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(r)
		return
	}
	printTables(os.Stdout, r)
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func mainErr(ctx context.Context, langs, corpora []string, n int, seed int64, verbose bool, selector, cchub, tools, python string, timeout time.Duration, keep bool) (*report, error) {
	tools, err := filepath.Abs(tools)
	if err != nil {
		return nil, err
	}
	if first, rest, _ := strings.Cut(strings.TrimSpace(selector), " "); first == "cchub" {
		if cchub == "" {
			if cchub = filepath.Join(tools, "bin", "cchub"); !fileExists(cchub) {
				if cchub, err = exec.LookPath("cchub"); err != nil {
					return nil, fmt.Errorf("no cchub binary: run `make build` (it writes .tools/bin/cchub) or give -cchub PATH")
				}
			}
		}
		if cchub, err = filepath.Abs(cchub); err != nil {
			return nil, err
		}
		selector = shellQuote(cchub) + " " + rest
	}
	tmp, err := os.MkdirTemp("", "testsel-")
	if err != nil {
		return nil, err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "testsel: the repositories are kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	// The corpora's tests write temporary files (go-git's leave
	// hundreds): under the run's own directory, removed with it.
	testTmp := filepath.Join(tmp, "tmp")
	if err := os.MkdirAll(testTmp, 0o755); err != nil {
		return nil, err
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "TMPDIR="+testTmp)
	selEnv := append(os.Environ(),
		"PATH="+filepath.Join(tools, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CCHUB_CONFIG_DIR="+filepath.Join(tmp, "config"),
		"CCHUB_STATE_HOME="+filepath.Join(tmp, "state"),
	)
	rep := &report{Selector: selector, Seed: seed}
	for _, lang := range langs {
		var cs []*runner
		switch lang {
		case "go":
			for _, m := range goModules {
				if len(corpora) == 0 && goOnRequest[m.Name] || len(corpora) > 0 && !slices.Contains(corpora, m.Name) {
					continue
				}
				c, err := setupGo(ctx, m.Name, m.Module, filepath.Join(tmp, m.Name), env, timeout)
				if err != nil {
					return nil, err
				}
				cs = append(cs, c)
			}
		case "py":
			if len(corpora) == 0 || slices.Contains(corpora, "pystdlib") {
				c, err := setupPy(ctx, python, tools, filepath.Join(tmp, "pystdlib"), env, timeout)
				if err != nil {
					return nil, err
				}
				cs = append(cs, c)
			}
			if slices.Contains(corpora, nxCorpus) {
				c, err := setupPytest(ctx, tools, filepath.Join(tmp, nxCorpus), env, max(timeout, 10*time.Minute))
				if err != nil {
					return nil, err
				}
				cs = append(cs, c)
			}
		case "js":
			if len(corpora) > 0 && !slices.Contains(corpora, jsCorpus) {
				continue
			}
			c, err := setupJS(ctx, tools, filepath.Join(tmp, jsCorpus), env, timeout)
			if err != nil {
				return nil, err
			}
			cs = append(cs, c)
		default:
			return nil, fmt.Errorf("-lang %s: one of go, py, js", lang)
		}
		limit := n
		if limit <= 0 {
			limit = map[string]int{"go": 120, "py": 100, "js": 30}[lang]
		}
		// The mutants: a seeded sample of each corpus's functions, taken
		// in turn from each corpus so that they share the limit.
		rng := rand.New(rand.NewSource(seed))
		var pools [][]*mutant
		for _, c := range cs {
			p := slices.Clone(c.funcs)
			rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
			pools = append(pools, p)
		}
		var all []*mutant
		for len(all) < limit {
			took := false
			for i, p := range pools {
				if len(p) > 0 && len(all) < limit {
					all, pools[i], took = append(all, p[0]), p[1:], true
				}
			}
			if !took {
				break
			}
		}
		for _, c := range cs {
			if err := c.run(ctx, all, selector, selEnv, timeout, verbose); err != nil {
				return nil, err
			}
			rep.Corpora = append(rep.Corpora, c.sum)
			rep.Mutants = append(rep.Mutants, c.done...)
		}
	}
	return rep, nil
}

// runner is one corpus ready for mutants.
type runner struct {
	sum   *summary
	root  string
	suite []testID
	funcs []*mutant
	truth func(ctx context.Context, m *mutant) ([]testID, error)
	// clean runs these tests on the unmutated tree twice and returns
	// those that fail there: flaky, not missed.
	clean func(ctx context.Context, tests []testID) (map[testID]bool, error)
	// alone runs each of these tests by itself on the tree as it is (the
	// mutant) and returns those that pass so; nil: not told.
	alone func(ctx context.Context, tests []testID) (map[testID]bool, error)
	// seconds is the selection's time and the suite's, in the unmutated
	// run; nil: not told.
	seconds func(sel *selection) (selected, total float64)
	done    []*mutant
	start   time.Time
}

func setupGo(ctx context.Context, name, modVersion, dir string, env []string, timeout time.Duration) (*runner, error) {
	start := time.Now()
	fmt.Fprintf(os.Stderr, "testsel: %s: copying %s, building and running its tests once…\n", name, modVersion)
	if err := makeGoCorpus(ctx, modVersion, dir, env); err != nil {
		return nil, err
	}
	c, err := newGoCorpus(ctx, dir, dir+".bin", env)
	if err != nil {
		return nil, err
	}
	suite, failing, err := c.baseline(ctx, timeout)
	if err != nil {
		return nil, err
	}
	// What the build wrote (go.sum lines of test dependencies) is part
	// of the unmutated tree, not of every mutant's diff.
	if err := gitCommitAll(ctx, dir, "what the build wrote"); err != nil {
		return nil, err
	}
	module, err := goModule(dir)
	if err != nil {
		return nil, err
	}
	funcs, err := goFuncs(dir, module)
	if err != nil {
		return nil, err
	}
	r := &runner{
		sum:   &summary{Corpus: name, Lang: "go", Version: modVersion, Functions: len(funcs), Suite: len(suite), BaselineFail: len(failing)},
		root:  dir,
		suite: suite,
		funcs: funcs,
		start: start,
		truth: func(ctx context.Context, m *mutant) ([]testID, error) { return c.truth(ctx, m.Pkg, timeout) },
		clean: func(ctx context.Context, tests []testID) (map[testID]bool, error) {
			return c.clean(ctx, tests, timeout)
		},
		alone: func(ctx context.Context, tests []testID) (map[testID]bool, error) {
			return c.alone(ctx, tests, timeout)
		},
		seconds: c.seconds,
	}
	for _, f := range funcs {
		f.Corpus = name
	}
	return r, nil
}

func setupPy(ctx context.Context, python, tools, dir string, env []string, timeout time.Duration) (*runner, error) {
	start := time.Now()
	fmt.Fprintf(os.Stderr, "testsel: py: copying standard library modules and their tests, running them once…\n")
	version, err := makePyCorpus(ctx, python, tools, dir, env)
	if err != nil {
		return nil, err
	}
	c, err := newPyCorpus(dir, dir+".scratch", python, env)
	if err != nil {
		return nil, err
	}
	suite, failing, err := c.baseline(ctx, timeout)
	if err != nil {
		return nil, err
	}
	funcs, err := c.funcs(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range funcs {
		f.Corpus = "pystdlib"
	}
	return &runner{
		sum:   &summary{Corpus: "pystdlib", Lang: "py", Version: "python " + version, Functions: len(funcs), Suite: len(suite), BaselineFail: len(failing)},
		root:  dir,
		suite: suite,
		funcs: funcs,
		start: start,
		truth: func(ctx context.Context, m *mutant) ([]testID, error) { return c.truth(ctx, suite, timeout) },
		clean: func(ctx context.Context, tests []testID) (map[testID]bool, error) {
			return c.clean(ctx, tests, timeout)
		},
	}, nil
}

// setupPytest makes the networkx corpus, run by Debian's pytest.
func setupPytest(ctx context.Context, tools, dir string, env []string, timeout time.Duration) (*runner, error) {
	start := time.Now()
	python := filepath.Join(tools, "pytest", "bin", "python")
	if !fileExists(python) {
		return nil, fmt.Errorf("%s is missing: make test (or make bench) unpacks Debian's pytest there", python)
	}
	fmt.Fprintf(os.Stderr, "testsel: %s: unpacking %s, running its tests once…\n", nxCorpus, nxPackage)
	if err := makeNxCorpus(ctx, tools, dir, env); err != nil {
		return nil, err
	}
	c := &pytestCorpus{root: dir, python: python, env: append(slices.Clone(env), "PYTHONDONTWRITEBYTECODE=1")}
	suite, failing, err := c.baseline(ctx, timeout)
	if err != nil {
		return nil, err
	}
	funcs, err := c.funcs(ctx, dir+".scratch")
	if err != nil {
		return nil, err
	}
	for _, f := range funcs {
		f.Corpus = nxCorpus
	}
	return &runner{
		sum:   &summary{Corpus: nxCorpus, Lang: "py", Version: nxPackage + " (pytest 7.2.1)", Functions: len(funcs), Suite: len(suite), BaselineFail: len(failing)},
		root:  dir,
		suite: suite,
		funcs: funcs,
		start: start,
		truth: func(ctx context.Context, m *mutant) ([]testID, error) { return c.truth(ctx, suite, timeout, false) },
		clean: func(ctx context.Context, tests []testID) (map[testID]bool, error) {
			return failingTwice(ctx, tests, timeout, func(ctx context.Context, ts []testID, timeout time.Duration) ([]testID, error) {
				return c.truth(ctx, ts, timeout, true)
			})
		},
		seconds: func(sel *selection) (float64, float64) { return c.seconds(sel, suite) },
	}, nil
}

// run makes each of the chosen mutants that belong to this corpus, with
// the suite and the selector on it, and fills the summary.
func (r *runner) run(ctx context.Context, chosen []*mutant, selector string, env []string, timeout time.Duration, verbose bool) error {
	name := r.sum.Corpus
	// The first selection, on the clean tree, builds the index.
	t0 := time.Now()
	if _, err := selectTests(ctx, r.root, selector, env, timeout); err != nil {
		fmt.Fprintf(os.Stderr, "testsel: %s: the selector on the unchanged tree: %v\n", name, err)
	}
	r.sum.FirstSelSec = time.Since(t0).Seconds()
	var mine []*mutant
	for _, m := range chosen {
		if m.Corpus == name {
			mine = append(mine, m)
		}
	}
	fmt.Fprintf(os.Stderr, "testsel: %s: %d mutants of %d functions, suite of %d tests (%d failing before any mutation, left out)…\n", name, len(mine), len(r.funcs), len(r.suite), r.sum.BaselineFail)
	var shareSure, share, timeShare, selSec, truthSec []float64
	defer func() { r.sum.Seconds = time.Since(r.start).Seconds() }()
	for i, m := range mine {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.one(ctx, m, selector, env, timeout)
		if err := r.recheck(ctx, m); err != nil {
			return err
		}
		r.done = append(r.done, m)
		s := r.sum
		s.Mutants++
		switch m.Status {
		case "no build":
			s.NoBuild++
			continue
		case "truth failed":
			s.TruthFail++
			continue
		case "selector failed":
			s.SelectorFail++
		}
		if len(m.Failing) > 0 {
			s.Killed++
		}
		s.FailingTests += len(m.Failing)
		s.Missed += len(m.Missed)
		s.MissedSure += len(m.MissedSure)
		s.Flaky += len(m.Flaky)
		s.AfterPanic += len(m.AfterPanic)
		truthSec = append(truthSec, m.TruthSec)
		if m.Status == "ok" {
			if m.All {
				s.AllAnswers++
			}
			shareSure = append(shareSure, float64(m.SelectedSure)/float64(max(1, m.Suite)))
			share = append(share, float64(m.SelectedAll)/float64(max(1, m.Suite)))
			if m.SuiteTime > 0 {
				timeShare = append(timeShare, m.SelectedTime/m.SuiteTime)
				s.SuiteTime = m.SuiteTime
			}
			selSec = append(selSec, m.SelectSec)
		}
		if verbose {
			fmt.Fprintf(os.Stderr, "  [%d/%d] %s %s:%d %s: %s, %d failing, %d missed (%d if sure only), selected %d/%d (sure %d), %.2fs of %.2fs\n",
				i+1, len(mine), name, m.File, m.Line, m.Func, m.Status, len(m.Failing), len(m.Missed), len(m.MissedSure), m.SelectedAll, m.Suite, m.SelectedSure, m.SelectedTime, m.SuiteTime)
			for _, x := range m.Missed {
				fmt.Fprintf(os.Stderr, "      MISSED %s: %s\n", x.Test, x.Has)
			}
		}
	}
	s := r.sum
	s.ShareSureMean, s.ShareSureMed = mean(shareSure), corpus.Median(shareSure)
	s.ShareMean, s.ShareMed = mean(share), corpus.Median(share)
	s.TimeMean, s.TimeMed = mean(timeShare), corpus.Median(timeShare)
	s.SelectP50, s.TruthP50 = corpus.Median(selSec), corpus.Median(truthSec)
	return nil
}

// recheck runs m's missed tests on the unmutated tree: those failing
// there too are flaky (or broken by the machine), not missed.
func (r *runner) recheck(ctx context.Context, m *mutant) error {
	if len(m.Missed) == 0 {
		return nil
	}
	var tests []testID
	for _, x := range m.Missed {
		tests = append(tests, x.Test)
	}
	bad, err := r.clean(ctx, tests)
	if err != nil {
		return fmt.Errorf("%s: rerun the missed tests of %s on the unmutated tree: %w", r.sum.Corpus, m.Func, err)
	}
	if len(bad) == 0 {
		return nil
	}
	m.Missed = slices.DeleteFunc(m.Missed, func(x miss) bool { return bad[x.Test] })
	m.MissedSure = slices.DeleteFunc(m.MissedSure, func(t testID) bool { return bad[t] })
	m.Failing = slices.DeleteFunc(m.Failing, func(t testID) bool { return bad[t] })
	for t := range bad {
		m.Flaky = append(m.Flaky, t)
	}
	return nil
}

// one makes mutant m, runs the suite and the selector on it, compares,
// and restores the file.
func (r *runner) one(ctx context.Context, m *mutant, selector string, env []string, timeout time.Duration) {
	p := filepath.Join(r.root, filepath.FromSlash(m.File))
	defer func() {
		if out, err := corpus.RunOut(context.WithoutCancel(ctx), time.Minute, r.root, nil, "git", "checkout", "-q", "--", m.File); err != nil {
			fmt.Fprintf(os.Stderr, "testsel: git checkout %s: %v %s\n", m.File, err, out)
		}
	}()
	m.Suite = len(r.suite)
	if err := os.WriteFile(p, m.mutated, 0o644); err != nil {
		m.Status, m.Error = "truth failed", err.Error()
		return
	}
	t0 := time.Now()
	failing, err := r.truth(ctx, m)
	m.TruthSec = time.Since(t0).Seconds()
	if err != nil {
		m.Status, m.Error = "truth failed", err.Error()
		if _, ok := err.(*buildError); ok {
			m.Status = "no build"
		}
		return
	}
	m.Failing = failing
	t0 = time.Now()
	sel, err := selectTests(ctx, r.root, selector, env, timeout)
	m.SelectSec = time.Since(t0).Seconds()
	if err != nil {
		// Nothing was selected: every failing test is missed.
		m.Status, m.Error = "selector failed", err.Error()
		for _, t := range failing {
			m.Missed = append(m.Missed, miss{Test: t, Has: "the selector failed"})
			m.MissedSure = append(m.MissedSure, t)
		}
		return
	}
	m.Status = "ok"
	m.All = sel.All != nil
	if r.seconds != nil {
		m.SelectedTime, m.SuiteTime = r.seconds(sel)
	}
	for _, t := range r.suite {
		if sel.covers(t, true) {
			m.SelectedSure++
		}
		if sel.covers(t, false) {
			m.SelectedAll++
		}
	}
	for _, t := range failing {
		if t.Sub != "" {
			// A suite's failing method: its test stands for it when the
			// selection leaves the test out (a miss, or one the checks
			// below excuse); with the test in, the filter must name it.
			if !sel.covers(testID{Pkg: t.Pkg, Name: t.Name}, false) {
				continue
			}
		}
		if !sel.covers(t, false) {
			m.Missed = append(m.Missed, miss{Test: t, Has: sel.describe(t)})
		}
		if !sel.covers(t, true) {
			m.MissedSure = append(m.MissedSure, t)
		}
	}
	if len(m.Missed) > 0 && r.alone != nil {
		var tests []testID
		for _, x := range m.Missed {
			tests = append(tests, x.Test)
		}
		passed, err := r.alone(ctx, tests)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testsel: %s: the missed tests of %s, alone: %v\n", r.sum.Corpus, m.Func, err)
			return
		}
		m.Missed = slices.DeleteFunc(m.Missed, func(x miss) bool { return passed[x.Test] })
		m.Failing = slices.DeleteFunc(m.Failing, func(t testID) bool { return passed[t] })
		m.MissedSure = slices.DeleteFunc(m.MissedSure, func(t testID) bool { return passed[t] })
		for t := range passed {
			m.AfterPanic = append(m.AfterPanic, t)
		}
	}
}

// selectTests runs the selector in root and parses its answer.
func selectTests(ctx context.Context, root, selector string, env []string, timeout time.Duration) (*selection, error) {
	out, errOut, err := runSplit(ctx, timeout, root, env, "sh", "-c", selector)
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %s", selector, err, firstLines(errOut, 6))
	}
	return parseSelection(out)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pct and secs print a figure, or "-" for a corpus that has no times.
func pct(x, has float64) string {
	if has == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

func secs(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fs", x)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

func printTables(w *os.File, r *report) {
	fmt.Fprintf(w, "Test selection against the whole suite, per mutant (selector: %s, seed %d)\n\n", r.Selector, r.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "corpus\tfuncs\tsuite\tmutants\tno build\tkilled\tfailing tests\tMISSED\tmissed if sure only\tflaky\tafter panic\tsel. failed\tall\tsure mean\tsure median\tsure+caut. mean\tsure+caut. median\ttime mean\ttime median\tsuite time\tselect p50\ttruth p50\ttime\t")
	for _, s := range r.Corpora {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%s\t%s\t%s\t%.2fs\t%.2fs\t%.0fs\t\n",
			s.Corpus, s.Functions, s.Suite, s.Mutants, s.NoBuild, s.Killed, s.FailingTests, s.Missed, s.MissedSure, s.Flaky, s.AfterPanic, s.SelectorFail, s.AllAnswers,
			100*s.ShareSureMean, 100*s.ShareSureMed, 100*s.ShareMean, 100*s.ShareMed, pct(s.TimeMean, s.SuiteTime), pct(s.TimeMed, s.SuiteTime), secs(s.SuiteTime), s.SelectP50, s.TruthP50, s.Seconds)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nkilled: mutants with at least one failing test; MISSED: failing tests the selection (sure, cautious, whole packages or all) does not run, must be 0;")
	fmt.Fprintln(w, "flaky: missed tests that fail on the unmutated tree too (run twice), left out of the misses;")
	fmt.Fprintln(w, "after panic: tests that failed in the whole run but pass alone on the mutated tree (an earlier test's panic broke the package's state), left out of the misses and of the failing tests;")
	fmt.Fprintln(w, "shares: the part of the suite selected, per mutant; all: answers that ran the whole suite; suites leave out tests failing before any mutation;")
	fmt.Fprintln(w, "time: the share of the suite's time selected, per mutant (Go: each test's own time in the unmutated run as test2json stamps it, builds and start-ups not counted; a suite's test whole even when a filter runs some of its methods); suite time: the unmutated suite's.")
	for _, s := range r.Corpora {
		if s.Version != "" {
			fmt.Fprintf(w, "%s: %s\n", s.Corpus, s.Version)
		}
	}
	var misses []string
	for _, m := range r.Mutants {
		for _, x := range m.Missed {
			misses = append(misses, fmt.Sprintf("  %s %s:%d %s -> %s (selection: %s)", m.Corpus, m.File, m.Line, m.Func, x.Test, x.Has))
		}
		if m.Status == "selector failed" {
			misses = append(misses, fmt.Sprintf("  %s %s:%d %s: the selector failed: %s", m.Corpus, m.File, m.Line, m.Func, firstLines([]byte(m.Error), 2)))
		}
	}
	if len(misses) > 0 {
		const most = 200
		fmt.Fprintf(w, "\nMisses (mutant -> failing test not selected), %d:\n", len(misses))
		if len(misses) > most {
			misses = append(misses[:most], fmt.Sprintf("  … and %d more (-json lists all)", len(misses)-most))
		}
		fmt.Fprintln(w, strings.Join(misses, "\n"))
	}
}
