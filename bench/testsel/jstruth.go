package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"cchub/bench/corpus"
)

// The JavaScript corpus, pinned: zod 3's own sources and vitest suite
// (src/v3 and src/v3/tests, as npm pack ships them), run by the vitest
// make test installs into .tools/jsrunners.
const (
	jsPackage = "zod@3.25.76"
	jsCorpus  = "zod-v3"
)

// jsVitestConfig points the tests' import of "zod/v3" at the sources
// (the package's exports would give them the built files).
const jsVitestConfig = `export default {
  resolve: { alias: { "zod/v3": new URL("./src/v3/index.ts", import.meta.url).pathname } },
  test: { include: ["src/v3/**/*.test.ts"] },
}
`

// vitestCorpus is a vitest project copied into a git repository.
type vitestCorpus struct {
	root    string
	scratch string
	env     []string
	vitest  string
}

// makeJSCorpus unpacks zod's package (npm pack, once, under tools) and
// copies its v3 sources, tests and package.json into dir, with a vitest
// config and the runners' node_modules linked (ignored by git).
func makeJSCorpus(ctx context.Context, tools, dir string, env []string) (*vitestCorpus, error) {
	modules := filepath.Join(tools, "jsrunners", "node_modules")
	vitest := filepath.Join(modules, ".bin", "vitest")
	if !fileExists(vitest) {
		return nil, fmt.Errorf("no vitest in %s: run make test (it installs the pinned runners of scripts/js-runners) or npm ci there", filepath.Dir(modules))
	}
	pkgDir := filepath.Join(tools, "corpus", "zod-3.25.76")
	if !fileExists(filepath.Join(pkgDir, "src", "v3", "tests")) {
		cache := filepath.Join(tools, "corpus")
		os.MkdirAll(cache, 0o755)
		if out, err := corpus.RunOut(ctx, 5*time.Minute, cache, env, "npm", "pack", "--silent", jsPackage); err != nil {
			return nil, fmt.Errorf("npm pack %s: %v %s", jsPackage, err, out)
		}
		os.MkdirAll(pkgDir, 0o755)
		if out, err := corpus.RunOut(ctx, time.Minute, pkgDir, env, "tar", "-xzf", filepath.Join(cache, "zod-3.25.76.tgz"), "--strip-components=1"); err != nil {
			return nil, fmt.Errorf("unpack %s: %v %s", jsPackage, err, out)
		}
	}
	if err := corpus.CopyTree(filepath.Join(pkgDir, "src", "v3"), filepath.Join(dir, "src", "v3"), corpus.Copy{}); err != nil {
		return nil, err
	}
	if err := corpus.CopyTree(filepath.Join(pkgDir, "package.json"), filepath.Join(dir, "package.json"), corpus.Copy{}); err != nil {
		return nil, err
	}
	for name, text := range map[string]string{"vitest.config.ts": jsVitestConfig, ".gitignore": "node_modules\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		return nil, err
	}
	c := &vitestCorpus{root: dir, scratch: dir + ".scratch", env: append(slices.Clone(env), "CI=1", "NO_COLOR=1"), vitest: vitest}
	if err := os.MkdirAll(c.scratch, 0o755); err != nil {
		return nil, err
	}
	return c, gitInit(ctx, dir)
}

// vitestReport is what the json reporter writes that the truth reads.
type vitestReport struct {
	TestResults []struct {
		Name             string `json:"name"`
		Status           string `json:"status"`
		AssertionResults []struct {
			AncestorTitles []string `json:"ancestorTitles"`
			Title          string   `json:"title"`
			Status         string   `json:"status"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

// run runs the whole suite: each test's outcome by its file and full
// name, and the files that failed with no test run (they did not load).
func (c *vitestCorpus) run(ctx context.Context, timeout time.Duration) (passed, failed []testID, broken []string, err error) {
	outp := filepath.Join(c.scratch, "result.json")
	os.Remove(outp)
	out, runErr := corpus.RunOut(ctx, timeout, c.root, c.env, c.vitest, "run", "--reporter=json", "--outputFile="+outp)
	b, err := os.ReadFile(outp)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("vitest wrote no result (%v, %v): %s", runErr, err, firstLines(out, 12))
	}
	var r vitestReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, nil, nil, err
	}
	for _, f := range r.TestResults {
		rel, _ := filepath.Rel(c.root, f.Name)
		rel = filepath.ToSlash(rel)
		if f.Status != "passed" && len(f.AssertionResults) == 0 {
			broken = append(broken, rel)
		}
		for _, a := range f.AssertionResults {
			id := testID{File: rel, Name: strings.Join(append(slices.Clone(a.AncestorTitles), a.Title), " ")}
			switch a.Status {
			case "passed":
				passed = append(passed, id)
			case "failed":
				failed = append(failed, id)
			}
		}
	}
	return passed, failed, broken, nil
}

// baseline: what passes unmutated is the suite.
func (c *vitestCorpus) baseline(ctx context.Context, timeout time.Duration) (suite, failing []testID, err error) {
	passed, failed, broken, err := c.run(ctx, timeout)
	if err != nil {
		return nil, nil, err
	}
	if len(broken) > 0 {
		return nil, nil, fmt.Errorf("test files %v do not load before any mutation", broken)
	}
	return passed, failed, nil
}

// truth is the tests of the suite failing on the mutated tree; a file
// that no longer loads fails all its tests.
func (c *vitestCorpus) truth(ctx context.Context, suite []testID, timeout time.Duration) ([]testID, error) {
	passed, _, broken, err := c.run(ctx, timeout)
	if err != nil {
		return nil, err
	}
	ok := map[testID]bool{}
	for _, t := range passed {
		ok[t] = true
	}
	var failing []testID
	for _, t := range suite {
		if !ok[t] || slices.Contains(broken, t.File) {
			failing = append(failing, t)
		}
	}
	return failing, nil
}

func (c *vitestCorpus) clean(ctx context.Context, tests []testID, timeout time.Duration) (map[testID]bool, error) {
	return failingTwice(ctx, tests, timeout, c.truth)
}

// jsFuncHead is a function's or method's first line when it ends with
// the body's {: function f(…) {, a method m(…): T {, a getter, a
// constructor. Control statements are left out (jsNotFunc).
var (
	jsFuncHead = regexp.MustCompile(`^(\s*)(export\s+)?(default\s+)?(public\s+|private\s+|protected\s+|static\s+|async\s+|override\s+|get\s+|set\s+)*(function\s*\*?\s*)?([A-Za-z_$][\w$]*)\s*(<[^>]*>)?\(.*\)\s*(:\s*[^={]+)?\{\s*$`)
	jsNotFunc  = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "with": true, "return": true, "function": true}
)

// funcs lists the mutants of the code files (src/v3 outside tests/ and
// benchmarks/): throw new Error("mutant") as a body's first statement.
func (c *vitestCorpus) funcs() ([]*mutant, error) {
	var ms []*mutant
	err := filepath.WalkDir(filepath.Join(c.root, "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "tests" || d.Name() == "benchmarks") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".ts") || strings.HasSuffix(p, ".d.ts") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(c.root, p)
		lines := strings.SplitAfter(string(src), "\n")
		for i, l := range lines {
			m := jsFuncHead.FindStringSubmatch(l)
			if m == nil || jsNotFunc[m[6]] || i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) == "}" {
				continue
			}
			mutated := strings.Join(lines[:i+1], "") + m[1] + "  throw new Error(\"mutant\");\n" + strings.Join(lines[i+1:], "")
			ms = append(ms, &mutant{File: filepath.ToSlash(rel), Func: m[6], Line: i + 1, mutated: []byte(mutated)})
		}
		return nil
	})
	return ms, err
}

func setupJS(ctx context.Context, tools, dir string, env []string, timeout time.Duration) (*runner, error) {
	start := time.Now()
	fmt.Fprintf(os.Stderr, "testsel: js: copying %s's v3 sources and tests, running them once…\n", jsPackage)
	c, err := makeJSCorpus(ctx, tools, dir, env)
	if err != nil {
		return nil, err
	}
	suite, failing, err := c.baseline(ctx, timeout)
	if err != nil {
		return nil, err
	}
	funcs, err := c.funcs()
	if err != nil {
		return nil, err
	}
	for _, f := range funcs {
		f.Corpus = jsCorpus
	}
	return &runner{
		sum:   &summary{Corpus: jsCorpus, Lang: "js", Version: jsPackage + " (vitest)", Functions: len(funcs), Suite: len(suite), BaselineFail: len(failing)},
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
