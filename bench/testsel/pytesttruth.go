package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"cchub/bench/corpus"
)

// The pytest corpus: networkx, as Debian packages it (its tests ship
// inside the package: test classes with setup_class and setup_method,
// parametrised tests, fixtures in test files, a conftest.py of autouse
// fixtures and hooks), run by Debian's pytest (make test unpacks it
// into .tools/pytest).
const (
	nxCorpus  = "networkx"
	nxPackage = "python3-networkx=2.8.8-1"
)

// pytestCorpus is a pytest project in a git repository: each test is
// its node id, parameters and all.
type pytestCorpus struct {
	root   string
	python string // a python that imports pytest
	env    []string
	secs   map[string]float64 // each test's time in the unmutated run (setup, call, teardown)
	total  float64
}

// makeNxCorpus unpacks Debian's networkx into dir (the package under
// dir/networkx) and commits it.
func makeNxCorpus(ctx context.Context, tools, dir string, env []string) error {
	pkg, version, _ := strings.Cut(nxPackage, "=")
	debs := filepath.Join(tools, "debs")
	if err := os.MkdirAll(debs, 0o755); err != nil {
		return err
	}
	find := func() string {
		m, _ := filepath.Glob(filepath.Join(debs, pkg+"_"+version+"_*.deb"))
		return strings.Join(m, "")
	}
	if find() == "" {
		if corpus.RunOut(ctx, 5*time.Minute, debs, env, "apt-get", "download", nxPackage); find() == "" {
			corpus.RunOut(ctx, 5*time.Minute, debs, env, "apt-get", "update", "-qq")
			corpus.RunOut(ctx, 5*time.Minute, debs, env, "apt-get", "download", nxPackage)
		}
	}
	deb := find()
	if deb == "" {
		return fmt.Errorf("apt-get download %s failed: the networkx corpus needs Debian's package", nxPackage)
	}
	unpacked := dir + ".deb"
	if out, err := corpus.RunOut(ctx, 5*time.Minute, debs, env, "dpkg", "-x", deb, unpacked); err != nil {
		return fmt.Errorf("dpkg -x %s: %v %s", deb, err, out)
	}
	if err := corpus.CopyTree(filepath.Join(unpacked, "usr", "lib", "python3", "dist-packages", "networkx"), filepath.Join(dir, "networkx"), corpus.Copy{Skip: skipCache}); err != nil {
		return err
	}
	os.RemoveAll(unpacked)
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("__pycache__/\n"), 0o644); err != nil {
		return err
	}
	return gitInit(ctx, dir)
}

// pytestLine is a -rA summary line (the outcome, the node id), and
// pytestTime a --durations line.
var (
	pytestLine = regexp.MustCompile(`(?m)^(PASSED|FAILED|ERROR) (\S+)`)
	pytestTime = regexp.MustCompile(`(?m)^([0-9.]+)s (?:setup|call|teardown)\s+(\S+)`)
)

// run runs pytest on ids (every test when none) and returns each test's
// outcome; a file that does not import fails its tests ("" node: the
// file's path stands for them).
func (c *pytestCorpus) run(ctx context.Context, timeout time.Duration, ids []string, durations bool) (map[string]string, map[string]float64, error) {
	args := []string{"-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "--continue-on-collection-errors", "-o", "addopts="}
	if durations {
		args = append(args, "--durations=0", "--durations-min=0")
	}
	if len(ids) == 0 {
		args = append(args, "networkx")
	}
	args = append(args, ids...)
	out, err := corpus.RunOut(ctx, timeout, c.root, c.env, c.python, args...)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	got := map[string]string{}
	for _, m := range pytestLine.FindAllStringSubmatch(string(out), -1) {
		if got[m[2]] != "FAILED" && got[m[2]] != "ERROR" {
			got[m[2]] = m[1]
		}
	}
	if len(got) == 0 {
		return nil, nil, fmt.Errorf("pytest ran no test (%v): %s", err, firstLines(out, 12))
	}
	secs := map[string]float64{}
	for _, m := range pytestTime.FindAllStringSubmatch(string(out), -1) {
		if s, err := strconv.ParseFloat(m[1], 64); err == nil {
			secs[m[2]] += s
		}
	}
	return got, secs, nil
}

func nodeFile(id string) string { f, _, _ := strings.Cut(id, "::"); return f }

// baseline runs the unmutated suite: what passes is the suite.
func (c *pytestCorpus) baseline(ctx context.Context, timeout time.Duration) (suite, failing []testID, err error) {
	got, secs, err := c.run(ctx, timeout, nil, true)
	if err != nil {
		return nil, nil, err
	}
	c.secs = secs
	var ids []string
	for id := range got {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if !strings.Contains(id, "::") {
			continue // a file that did not import: none of its tests is in the suite
		}
		t := testID{File: nodeFile(id), Name: id}
		if got[id] == "PASSED" {
			suite = append(suite, t)
			c.total += secs[id]
		} else {
			failing = append(failing, t)
		}
	}
	return suite, failing, nil
}

// truth runs the tests on the mutated tree (all of them, or those
// given) and returns those of them that fail.
func (c *pytestCorpus) truth(ctx context.Context, suite []testID, timeout time.Duration, only bool) ([]testID, error) {
	var ids []string
	if only {
		for _, t := range suite {
			ids = append(ids, t.Name)
		}
	}
	got, _, err := c.run(ctx, timeout, ids, false)
	if err != nil {
		return nil, err
	}
	var failing []testID
	for _, t := range suite {
		v, ok := got[t.Name]
		if !ok {
			v = got[t.File] // its file did not import
		}
		if v == "FAILED" || v == "ERROR" {
			failing = append(failing, t)
		}
	}
	return failing, nil
}

// seconds is the selection's time and the suite's, from --durations.
func (c *pytestCorpus) seconds(sel *selection, suite []testID) (selected, total float64) {
	for _, t := range suite {
		if sel.covers(t, false) {
			selected += c.secs[t.Name]
		}
	}
	return selected, c.total
}

// funcs lists the mutants of networkx's code: every function outside
// its tests directories and conftest.py.
func (c *pytestCorpus) funcs(ctx context.Context, scratch string) ([]*mutant, error) {
	var files []string
	filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "tests" || d.Name() == ".git" || d.Name() == "__pycache__") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(c.root, p)
		if !d.IsDir() && strings.HasSuffix(p, ".py") && d.Name() != "conftest.py" && !strings.HasPrefix(d.Name(), "test_") {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	py := &pyCorpus{root: c.root, scratch: scratch, python: c.python, env: c.env}
	return py.mutantsOf(ctx, files)
}
