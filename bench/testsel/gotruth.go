package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"cchub/bench/corpus"
)

// goPkg is one package of a Go corpus that has tests.
type goPkg struct {
	ImportPath string
	Name       string // the package's name: its test binary is Name.test
	Dir        string // relative to the module root, "." for the root
	deps       map[string]bool
	tests      []string // top-level tests in the order the binary runs them
	// batch is the build the package's binary comes from: packages whose
	// binaries go test would name alike are built apart.
	batch int
	// secs is each test's time in the unmutated run, from its start to
	// its result as test2json -t stamps them (the -test.v figure has
	// centiseconds only, and most tests take less).
	secs map[string]float64
	// methods are, by top-level test, its suite methods' times (check.v1's
	// "Suite.Method", testify's "Method"), as testID.Sub names them.
	methods map[string]map[string]float64
}

// goCorpus is a Go module copied into a git repository.
type goCorpus struct {
	root string
	bin  string // where the test binaries go, outside the repository
	env  []string
	pkgs []*goPkg
	skip []string // tests failing before any mutation, left out of every run
}

func newGoCorpus(ctx context.Context, root, bin string, env []string) (*goCorpus, error) {
	c := &goCorpus{root: root, bin: bin, env: env}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	out, err := corpus.RunOut(ctx, 5*time.Minute, root, env, "go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}\t{{.Name}}", "./...")
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %v %s: the module's dependencies must resolve (module cache or proxy)", root, err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 || (f[2] == "0" && f[3] == "0") {
			continue
		}
		rel, _ := filepath.Rel(root, f[1])
		p := &goPkg{ImportPath: f[0], Name: f[4], Dir: filepath.ToSlash(rel), deps: map[string]bool{}}
		deps, err := corpus.RunOut(ctx, 5*time.Minute, root, env, "go", "list", "-test", "-deps", "-f", "{{.ImportPath}}", f[0])
		if err != nil {
			return nil, fmt.Errorf("go list -test -deps %s: %v %s", f[0], err, deps)
		}
		for _, d := range strings.Fields(string(deps)) {
			p.deps[strings.Fields(strings.ReplaceAll(d, "[", " "))[0]] = true
		}
		c.pkgs = append(c.pkgs, p)
	}
	// Packages whose binaries would have one name (go-git's config and
	// plumbing/format/config) are built in batches of their own.
	names := map[string]int{}
	for _, p := range c.pkgs {
		b := testBinary(p.ImportPath)
		p.batch = names[b]
		names[b]++
	}
	return c, nil
}

func (c *goCorpus) binary(p *goPkg) string {
	return filepath.Join(c.bin, strconv.Itoa(p.batch), testBinary(p.ImportPath))
}

// testBinary is the name go test -c -o DIR/ gives a package's test
// binary: its import path's last element (the one before a major
// version suffix), then .test.
func testBinary(importPath string) string {
	elem := path.Base(importPath)
	if len(elem) > 1 && elem[0] == 'v' && strings.Trim(elem[1:], "0123456789") == "" {
		if dir := path.Dir(importPath); dir != "." {
			elem = path.Base(dir)
		}
	}
	return elem + ".test"
}

// build compiles the test binary of each package that links pkg (every
// package when pkg is ""), in one go command (the packages' names must
// differ: their binaries share a directory); a compile error is
// returned as such. Without the symbol table and DWARF, the link is
// faster; a panic's trace keeps its names.
func (c *goCorpus) build(ctx context.Context, pkg string) ([]*goPkg, error) {
	var built []*goPkg
	batches := map[int][]string{}
	for _, p := range c.pkgs {
		if pkg != "" && !p.deps[pkg] {
			continue
		}
		built = append(built, p)
		batches[p.batch] = append(batches[p.batch], "./"+p.Dir)
	}
	for b := 0; b < len(c.pkgs); b++ {
		dirs := batches[b]
		if len(dirs) == 0 {
			continue
		}
		out := filepath.Join(c.bin, strconv.Itoa(b))
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
		args := append([]string{"test", "-c", "-ldflags=-s -w", "-o", out + string(filepath.Separator)}, dirs...)
		if out, err := corpus.RunOut(ctx, 5*time.Minute, c.root, c.env, "go", args...); err != nil {
			return nil, &buildError{fmt.Sprintf("go %s: %v\n%s", strings.Join(args, " "), err, firstLines(out, 8))}
		}
	}
	return built, nil
}

type buildError struct{ msg string }

func (e *buildError) Error() string { return e.msg }

// baseline lists each package's tests and runs them unmutated: the
// suite is what passes; what fails is left out of every later run.
func (c *goCorpus) baseline(ctx context.Context, timeout time.Duration) (suite []testID, failing []testID, err error) {
	if _, err := c.build(ctx, ""); err != nil {
		return nil, nil, fmt.Errorf("the unmutated corpus does not build: %v", err)
	}
	for _, p := range c.pkgs {
		out, err := corpus.RunOut(ctx, timeout, filepath.Join(c.root, p.Dir), c.env, c.binary(p), "-test.list", ".")
		if err != nil {
			return nil, nil, fmt.Errorf("%s -test.list: %v %s", p.ImportPath, err, out)
		}
		for _, n := range strings.Fields(string(out)) {
			if !strings.HasPrefix(n, "Benchmark") {
				p.tests = append(p.tests, n)
			}
		}
		failed, err := runGoTests(ctx, c.binary(p), filepath.Join(c.root, p.Dir), c.env, p.tests, nil, timeout)
		if err != nil {
			return nil, nil, err
		}
		if p.secs, p.methods, err = timeGoTests(ctx, c.binary(p), filepath.Join(c.root, p.Dir), c.env, p.tests, p.deps["gopkg.in/check.v1"], timeout); err != nil {
			return nil, nil, err
		}
		var keep []string
		for _, n := range p.tests {
			if failed[n] {
				failing = append(failing, testID{Pkg: p.Dir, Name: n})
				c.skip = append(c.skip, n)
			} else {
				keep = append(keep, n)
				suite = append(suite, testID{Pkg: p.Dir, Name: n})
			}
		}
		p.tests = keep
	}
	return suite, failing, nil
}

// truth runs the tests of every package that links pkg against the
// mutated tree: the failing ones.
func (c *goCorpus) truth(ctx context.Context, pkg string, timeout time.Duration) ([]testID, error) {
	built, err := c.build(ctx, pkg)
	if err != nil {
		return nil, err
	}
	var failing []testID
	for _, p := range built {
		failed, subs, err := runGoSuites(ctx, c.binary(p), filepath.Join(c.root, p.Dir), c.env, p.tests, c.skip, timeout)
		if err != nil {
			return nil, err
		}
		for _, n := range p.tests {
			if failed[n] {
				failing = append(failing, testID{Pkg: p.Dir, Name: n})
				// A suite's failing methods, each of which the selection
				// must run too (its filter must name it).
				for _, sub := range dedupeSorted(subs[n]) {
					failing = append(failing, testID{Pkg: p.Dir, Name: n, Sub: sub})
				}
			}
		}
	}
	return failing, nil
}

// clean runs tests on the unmutated tree, twice, and returns those
// that fail in either run.
func (c *goCorpus) clean(ctx context.Context, tests []testID, timeout time.Duration) (map[testID]bool, error) {
	if _, err := c.build(ctx, ""); err != nil {
		return nil, fmt.Errorf("the unmutated corpus does not build: %v", err)
	}
	bad := map[testID]bool{}
	for range 2 {
		for _, p := range c.pkgs {
			var names []string
			for _, t := range tests {
				if t.Pkg == p.Dir {
					names = append(names, t.Name)
				}
			}
			if len(names) == 0 {
				continue
			}
			failed, err := runGoTests(ctx, c.binary(p), filepath.Join(c.root, p.Dir), c.env, names, c.skip, timeout)
			if err != nil {
				return nil, err
			}
			for n := range failed {
				bad[testID{Pkg: p.Dir, Name: n}] = true
			}
		}
	}
	return bad, nil
}

// alone runs each of tests by itself, with the tree as it is built now
// (the mutant), and returns those that pass.
func (c *goCorpus) alone(ctx context.Context, tests []testID, timeout time.Duration) (map[testID]bool, error) {
	if _, err := c.build(ctx, ""); err != nil {
		return nil, fmt.Errorf("the mutated corpus does not build: %v", err)
	}
	passed := map[testID]bool{}
	for _, p := range c.pkgs {
		for _, t := range tests {
			if t.Pkg != p.Dir {
				continue
			}
			failed, err := runGoTests(ctx, c.binary(p), filepath.Join(c.root, p.Dir), c.env, []string{t.Name}, c.skip, timeout)
			if err != nil {
				return nil, err
			}
			if !failed[t.Name] {
				passed[t] = true
			}
		}
	}
	return passed, nil
}

// runGoTests runs tests (top-level names, in the binary's order) with
// the test binary in dir and returns the failing ones. A panic ends a
// test binary: the test that panicked is reported failing and the rest
// never run, so the binary is run again on the tests after it until
// every test has a result. A binary that dies before any test (a panic
// in an init or TestMain) fails all the tests it was given.
func runGoTests(ctx context.Context, bin, dir string, env []string, tests, skip []string, timeout time.Duration) (map[string]bool, error) {
	failed, _, err := runGoSuites(ctx, bin, dir, env, tests, skip, timeout)
	return failed, err
}

// timeGoTests runs tests once more under test2json -t and returns each
// top-level test's time, from its run event to its result, and the
// suite methods' times: testify's subtests the same way, check.v1's
// from its -check.v lines (checkV: the binary links check.v1).
func timeGoTests(ctx context.Context, bin, dir string, env []string, tests []string, checkV bool, timeout time.Duration) (map[string]float64, map[string]map[string]float64, error) {
	secs := map[string]float64{}
	methods := map[string]map[string]float64{}
	if len(tests) == 0 {
		return secs, methods, nil
	}
	args := []string{"tool", "test2json", "-t", bin, "-test.v", "-test.count=1", "-test.timeout=" + timeout.String(), "-test.run", anchored(tests)}
	if checkV {
		args = append(args, "-check.v")
	}
	out, _ := corpus.RunOut(ctx, timeout+30*time.Second, dir, env, "go", args...)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	secs, methods = parseTimes(out)
	return secs, methods, nil
}

// parseTimes reads test2json -t output: each top-level test's time, and
// its suite methods'.
func parseTimes(out []byte) (secs map[string]float64, methods map[string]map[string]float64) {
	secs = map[string]float64{}
	methods = map[string]map[string]float64{}
	method := func(top, sub string, s float64) {
		if methods[top] == nil {
			methods[top] = map[string]float64{}
		}
		methods[top][sub] += s
	}
	started := map[string]time.Time{}
	for _, line := range bytes.Split(out, []byte("\n")) {
		var ev struct {
			Time   time.Time
			Action string
			Test   string
			Output string
		}
		if json.Unmarshal(line, &ev) != nil || ev.Test == "" {
			continue
		}
		top, sub, isSub := strings.Cut(ev.Test, "/")
		if isSub && strings.Contains(sub, "/") {
			continue
		}
		switch ev.Action {
		case "run":
			started[ev.Test] = ev.Time
		case "pass", "fail", "skip":
			if t0, ok := started[ev.Test]; ok {
				if isSub {
					method(top, sub, ev.Time.Sub(t0).Seconds())
				} else {
					secs[ev.Test] = ev.Time.Sub(t0).Seconds()
				}
			}
		case "output":
			if m := checkPass.FindStringSubmatch(ev.Output); m != nil && !isSub {
				if s, err := strconv.ParseFloat(m[2], 64); err == nil {
					method(top, m[1], s)
				}
			}
		}
	}
	return secs, methods
}

// checkPass is check.v1's -check.v line for a method that ran.
var checkPass = regexp.MustCompile(`^(?:PASS|FAIL|SKIP|PANIC):\s+\S+:\d+:\s+(\w+\.\w+)\s+([0-9.]+)s`)

// runGoSuites is runGoTests with, for each failing top-level test that
// runs a suite, the suite's methods that failed (check.v1's
// "Suite.Method", testify's "Method").
func runGoSuites(ctx context.Context, bin, dir string, env []string, tests, skip []string, timeout time.Duration) (map[string]bool, map[string][]string, error) {
	failed := map[string]bool{}
	subs := map[string][]string{}
	remaining := slices.Clone(tests)
	for len(remaining) > 0 {
		args := []string{"-test.v", "-test.count=1", "-test.timeout=" + timeout.String(), "-test.run", anchored(remaining)}
		if len(skip) > 0 {
			args = append(args, "-test.skip", anchored(skip))
		}
		out, _ := corpus.RunOut(ctx, timeout+30*time.Second, dir, env, bin, args...)
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		r := parseGoV(out)
		for top, ms := range r.subFails {
			subs[top] = append(subs[top], ms...)
		}
		progress := false
		var next []string
		for _, n := range remaining {
			switch {
			case r.result[n] == "FAIL":
				failed[n], progress = true, true
			case r.result[n] != "":
				progress = true
			case r.timedOut && r.started[n]:
				failed[n], progress = true, true
			default:
				next = append(next, n)
			}
		}
		if !progress {
			for _, n := range next {
				failed[n] = true
			}
			break
		}
		remaining = next
	}
	return failed, subs, nil
}

// goV is what a test binary's -test.v output says of its top-level tests.
type goV struct {
	started  map[string]bool
	result   map[string]string // PASS, FAIL, SKIP
	timedOut bool
	// subFails are, by top-level test, the suite methods that failed:
	// check.v1's "Suite.Method" (its FAIL:/PANIC:/MISS: lines), testify's
	// "Method" (the failing subtest).
	subFails map[string][]string
}

var (
	goResult = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+) \(`)
	// checkFail is check.v1's line for a method that did not pass.
	checkFail = regexp.MustCompile(`^(?:FAIL|PANIC|MISS|FIXTURE-PANIC|FIXTURE-FAIL):\s+\S+:\d+:\s+(\w+\.\w+)`)
)

func parseGoV(out []byte) goV {
	r := goV{started: map[string]bool{}, result: map[string]string{}, subFails: map[string][]string{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	current := ""
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "=== RUN   "); ok && !strings.Contains(name, "/") {
			current = strings.TrimSpace(name)
			r.started[current] = true
		}
		if m := checkFail.FindStringSubmatch(line); m != nil && current != "" {
			r.subFails[current] = append(r.subFails[current], m[1])
		}
		if i := strings.Index(line, "--- FAIL: "); i >= 0 {
			if m := goResult.FindStringSubmatch(line[i:]); m != nil {
				if top, sub, ok := strings.Cut(m[2], "/"); ok {
					sub, _, _ = strings.Cut(sub, "/")
					r.subFails[top] = append(r.subFails[top], sub)
				}
			}
		}
		// Top-level results; with -test.v a result line may follow other
		// output on the same line when a test wrote no newline.
		if i := strings.Index(line, "--- "); i >= 0 {
			if m := goResult.FindStringSubmatch(line[i:]); m != nil && !strings.Contains(m[2], "/") {
				if r.result[m[2]] != "FAIL" {
					r.result[m[2]] = m[1]
				}
			}
		}
		if strings.HasPrefix(line, "panic: test timed out after") {
			r.timedOut = true
		}
	}
	return r
}

// anchored is a -test.run pattern matching exactly these top-level names.
func anchored(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(q, "|") + ")$"
}

// goFuncs lists the functions and methods with a body in the non-test
// files of the module that this platform builds, each with its mutant:
// panic("mutant") as the first statement.
func goFuncs(root, module string) ([]*mutant, error) {
	var ms []*mutant
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || n == ".git" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if ok, err := build.Default.MatchFile(filepath.Dir(p), d.Name()); err != nil || !ok {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		pkg := module
		if dir := dirOf(rel); dir != "." {
			pkg += "/" + dir
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				name = recvName(fd.Recv.List[0].Type) + "." + name
			}
			at := fset.Position(fd.Body.Lbrace).Offset + 1
			mutated := string(src[:at]) + "\n\tpanic(\"mutant\")\n" + string(src[at:])
			ms = append(ms, &mutant{File: rel, Func: name, Line: fset.Position(fd.Pos()).Line, Pkg: pkg, mutated: []byte(mutated)})
		}
		return nil
	})
	return ms, err
}

func dirOf(rel string) string {
	d := filepath.ToSlash(filepath.Dir(rel))
	return d
}

func recvName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// goModule reads the module path of root's go.mod.
func goModule(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`), nil
		}
	}
	return "", errors.New("go.mod of " + root + " names no module")
}

func dedupeSorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// seconds is the time the selection's tests took in the unmutated run,
// and the whole suite's, as a go test -json record tells them (what
// cchub blast --durations reads): the tests' own times, not the
// packages' builds and start-ups. Of a suite's test, the methods its
// filter runs count, and what the test spends besides them.
func (c *goCorpus) seconds(sel *selection) (selected, total float64) {
	for _, p := range c.pkgs {
		for _, n := range p.tests {
			total += p.secs[n]
			t := testID{Pkg: p.Dir, Name: n}
			if !sel.covers(t, false) {
				continue
			}
			ms := p.methods[n]
			if len(ms) == 0 {
				selected += p.secs[n]
				continue
			}
			// At most the test's own time: output a parallel test
			// interleaves may be told of the wrong test.
			rest, chosen := p.secs[n], 0.0
			for m, s := range ms {
				rest -= s
				t.Sub = m
				if sel.covers(t, false) {
					chosen += s
				}
			}
			selected += min(p.secs[n], chosen+max(0, rest))
		}
	}
	return selected, total
}
