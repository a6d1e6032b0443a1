package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cchub/bench/corpus"
)

// pyRunner runs the named test modules with unittest, one result per
// test function (subtests and class or module fixtures charged to the
// tests they belong to; doctests left out: they are not test
// functions), and writes {"tests": [ids], "failed": [ids], "broken":
// [modules that did not import]} to the file argv[2].
const pyRunner = `
import json, os, sys, unittest, doctest
root, outp, mods = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, root)
os.chdir(root)
tests, failed, broken = [], set(), []

def flat(s):
    if isinstance(s, unittest.TestSuite):
        for t in s:
            yield from flat(t)
    else:
        yield s

class R(unittest.TestResult):
    def mark(self, test):
        if isinstance(test, unittest.case._SubTest):
            test = test.test_case
        if isinstance(test, unittest.suite._ErrorHolder):
            # "setUpClass (mod.Class)", "setUpModule (mod)": every test below.
            d = test.description
            if "(" in d:
                prefix = d[d.index("(") + 1:d.rindex(")")] + "."
                failed.update(t for t in tests if t.startswith(prefix))
            return
        failed.add(test.id())
    def addError(self, test, err): self.mark(test)
    def addFailure(self, test, err): self.mark(test)
    def addUnexpectedSuccess(self, test): self.mark(test)
    def addSubTest(self, test, sub, err):
        if err is not None:
            self.mark(test)

loader = unittest.TestLoader()
for m in mods:
    try:
        suite = loader.loadTestsFromName(m)
    except Exception:
        broken.append(m)
        continue
    ts = [t for t in flat(suite) if not isinstance(t, doctest.DocTestCase)]
    if any(type(t).__name__ == "_FailedTest" for t in ts) or loader.errors:
        broken.append(m)
        loader.errors = []
        continue
    tests.extend(t.id() for t in ts)
    r = R()
    r.buffer = True
    unittest.TestSuite(ts).run(r)
with open(outp, "w") as f:
    json.dump({"tests": tests, "failed": sorted(failed), "broken": broken}, f)
`

// pyFuncs lists the functions and methods (nested ones too) of the
// given files, each with the line its mutant inserts: raise
// RuntimeError("mutant") as the first statement after a docstring,
// indented as the body. One-line bodies are left out, and so is a
// mutant that does not compile.
const pyFuncs = `
import ast, json, os, sys
root, files = sys.argv[1], sys.argv[2:]
out = []
LINE = 'raise RuntimeError("mutant")\n'
for rel in files:
    src = open(os.path.join(root, rel), encoding="utf-8").read()
    lines = src.splitlines(keepends=True)
    tree = ast.parse(src)
    def handle(fn, q):
        body = fn.body
        first = body[0]
        doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
        if doc and len(body) == 1:
            at, col = first.end_lineno + 1, first.col_offset
            if lines[first.end_lineno - 1][first.end_col_offset:].strip() not in ("", ):
                return
        else:
            t = body[1] if doc else first
            at, col = t.lineno, t.col_offset
            if at == fn.lineno or (doc and at == first.end_lineno):
                return
        ref = lines[(first.lineno if doc and len(body) == 1 else at) - 1]
        indent = ref[:col]
        if indent.strip() != "":
            return
        mutated = lines[:at - 1] + [indent + LINE] + lines[at - 1:]
        text = "".join(mutated)
        try:
            compile(text, rel, "exec")
        except SyntaxError:
            return
        out.append({"file": rel, "func": q, "line": fn.lineno, "insert": at, "text": indent + LINE})
    def visit(node, prefix):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)):
                handle(ch, prefix + ch.name)
                visit(ch, prefix + ch.name + ".<locals>.")
            elif isinstance(ch, ast.ClassDef):
                visit(ch, prefix + ch.name + ".")
            else:
                visit(ch, prefix)
    visit(tree, "")
print(json.dumps(out))
`

// pyCorpus is a Python project copied into a git repository: the code
// at the top, the tests under test/, run by unittest.
type pyCorpus struct {
	root    string
	scratch string // the runner scripts, outside the repository
	python  string
	env     []string
	mods    []string // the test modules, dotted
}

func newPyCorpus(root, scratch, python string, env []string) (*pyCorpus, error) {
	c := &pyCorpus{root: root, scratch: scratch, python: python, env: append(slices.Clone(env), "PYTHONDONTWRITEBYTECODE=1")}
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return nil, err
	}
	for name, text := range map[string]string{"runner.py": pyRunner, "funcs.py": pyFuncs} {
		if err := os.WriteFile(filepath.Join(scratch, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "test"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "support" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "test_") && strings.HasSuffix(d.Name(), ".py") {
			rel, _ := filepath.Rel(root, p)
			c.mods = append(c.mods, strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".py"), "/", "."))
		}
		return nil
	})
	slices.Sort(c.mods)
	return c, err
}

type pyResult struct {
	Tests  []string `json:"tests"`
	Failed []string `json:"failed"`
	Broken []string `json:"broken"`
}

func (c *pyCorpus) run(ctx context.Context, timeout time.Duration) (*pyResult, error) {
	outp := filepath.Join(c.scratch, "result.json")
	os.Remove(outp)
	args := append([]string{filepath.Join(c.scratch, "runner.py"), c.root, outp}, c.mods...)
	out, err := corpus.RunOut(ctx, timeout, c.root, c.env, c.python, args...)
	b, rerr := os.ReadFile(outp)
	if rerr != nil {
		return nil, fmt.Errorf("the unittest run wrote no result (%v, %v): %s", err, rerr, firstLines(out, 12))
	}
	var r pyResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func pyFile(id string, mods []string) string {
	best := ""
	for _, m := range mods {
		if strings.HasPrefix(id, m+".") && len(m) > len(best) {
			best = m
		}
	}
	return strings.ReplaceAll(best, ".", "/") + ".py"
}

// baseline runs the unmutated suite: what passes is the suite.
func (c *pyCorpus) baseline(ctx context.Context, timeout time.Duration) (suite, failing []testID, err error) {
	r, err := c.run(ctx, timeout)
	if err != nil {
		return nil, nil, err
	}
	if len(r.Broken) > 0 {
		return nil, nil, fmt.Errorf("test modules %v do not import before any mutation: the corpus's tests do not match its interpreter (-python)", r.Broken)
	}
	bad := map[string]bool{}
	for _, f := range r.Failed {
		bad[f] = true
	}
	for _, t := range r.Tests {
		id := testID{File: pyFile(t, c.mods), Name: t}
		if bad[t] {
			failing = append(failing, id)
		} else {
			suite = append(suite, id)
		}
	}
	return suite, failing, nil
}

// truth runs the whole suite on the mutated tree: the failing tests of
// the suite (a test module that no longer imports fails all its tests).
func (c *pyCorpus) truth(ctx context.Context, suite []testID, timeout time.Duration) ([]testID, error) {
	r, err := c.run(ctx, timeout)
	if err != nil {
		return nil, err
	}
	bad := map[string]bool{}
	for _, f := range r.Failed {
		bad[f] = true
	}
	var failing []testID
	for _, t := range suite {
		mod := strings.ReplaceAll(strings.TrimSuffix(t.File, ".py"), "/", ".")
		if bad[t.Name] || slices.Contains(r.Broken, mod) {
			failing = append(failing, t)
		}
	}
	return failing, nil
}

// clean runs the suite on the unmutated tree, twice, and returns which
// of tests fail in either run.
func (c *pyCorpus) clean(ctx context.Context, tests []testID, timeout time.Duration) (map[testID]bool, error) {
	return failingTwice(ctx, tests, timeout, c.truth)
}

// funcs lists the mutants of the code files (every .py outside test/).
func (c *pyCorpus) funcs(ctx context.Context) ([]*mutant, error) {
	var files []string
	filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(c.root, p)
		if d.IsDir() && (rel == "test" || d.Name() == ".git" || d.Name() == "__pycache__") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".py") {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return c.mutantsOf(ctx, files)
}

// mutantsOf lists the mutants of the given files (relative to the
// root): each function with the line that makes it fail.
func (c *pyCorpus) mutantsOf(ctx context.Context, files []string) ([]*mutant, error) {
	if err := os.MkdirAll(c.scratch, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(c.scratch, "funcs.py"), []byte(pyFuncs), 0o644); err != nil {
		return nil, err
	}
	out, err := corpus.RunOut(ctx, 5*time.Minute, c.root, c.env, c.python, append([]string{filepath.Join(c.scratch, "funcs.py"), c.root}, files...)...)
	if err != nil {
		return nil, fmt.Errorf("list the Python functions: %v %s", err, firstLines(out, 8))
	}
	var fs []struct {
		File, Func, Text string
		Line, Insert     int
	}
	if err := json.Unmarshal(out, &fs); err != nil {
		return nil, fmt.Errorf("list the Python functions: %v", err)
	}
	var ms []*mutant
	for _, f := range fs {
		src, err := os.ReadFile(filepath.Join(c.root, f.File))
		if err != nil {
			return nil, err
		}
		lines := strings.SplitAfter(string(src), "\n")
		mutated := strings.Join(lines[:f.Insert-1], "") + f.Text + strings.Join(lines[f.Insert-1:], "")
		ms = append(ms, &mutant{File: f.File, Func: f.Func, Line: f.Line, mutated: []byte(mutated)})
	}
	return ms, nil
}

// failingTwice runs truth on the unmutated tree twice and returns which
// of tests fail in either run (flaky, or broken by the machine).
func failingTwice(ctx context.Context, tests []testID, timeout time.Duration, truth func(context.Context, []testID, time.Duration) ([]testID, error)) (map[testID]bool, error) {
	bad := map[testID]bool{}
	for range 2 {
		failing, err := truth(ctx, tests, timeout)
		if err != nil {
			return nil, err
		}
		for _, t := range failing {
			bad[t] = true
		}
	}
	return bad, nil
}
