package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The example of the shared contract (docs: the test selection JSON).
const example = `{
  "version": 1,
  "all": null,
  "groups": [
    {"runner": "go", "dir": "pkg/sub", "package": "./pkg/sub", "tests": ["TestA", "TestB"],
     "whole": false, "cautious": false, "why": "reached: TestA via Foo <- helper",
     "command": "go test ./pkg/sub -run '^(TestA|TestB)$'"},
    {"runner": "go", "dir": "x", "package": "./x", "tests": [], "whole": true, "cautious": false,
     "why": "x/testdata/in.txt changed", "command": "go test ./x"},
    {"runner": "go", "dir": ".", "package": ".", "tests": ["TestRoot"], "whole": false, "cautious": true, "why": "name-only"},
    {"runner": "pytest", "dir": "tests", "file": "tests/test_a.py",
     "tests": ["tests/test_a.py::TestX::test_y", "tests/test_a.py::test_z"],
     "unittest": ["tests.test_a.TestX.test_y"], "whole": false, "cautious": true, "why": "…",
     "command": "python -m pytest 'tests/test_a.py::TestX::test_y' 'tests/test_a.py::test_z'"},
    {"runner": "pytest", "dir": "tests", "file": "tests/test_b.py", "tests": ["tests/test_b.py::TestQ::test_r"], "whole": false, "cautious": false, "why": "exact"},
    {"runner": "vitest", "dir": "web/test", "file": "web/test/a.test.ts", "tests": ["math adds", "parse"], "whole": false, "cautious": false, "why": "import",
     "command": "npx vitest run 'web/test/a.test.ts' -t 'math adds$|parse(?: |$)'"},
    {"runner": "node", "dir": "n", "file": "n/a.test.js", "tests": ["s it's"], "whole": false, "cautious": false, "why": "import",
     "command": "cd n && node --test --test-name-pattern '^(?:s it'\\''s|it'\\''s)$|^(?:suite)$' 'a.test.js'"},
    {"runner": "jest", "dir": "api/test", "file": "api/test/b.test.js", "tests": [], "whole": true, "cautious": true, "why": "dynamic title"},
    {"runner": "mocha", "dir": "lib", "tests": [], "whole": true, "cautious": false, "why": "lib/.mocharc.yml changed"}
  ],
  "counts": {"selected": 3, "cautious": 2, "suite": 140}
}`

func TestCovers(t *testing.T) {
	s, err := parseSelection([]byte(example))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		t              testID
		sure, cautious bool
	}{
		{testID{Pkg: "pkg/sub", Name: "TestA"}, true, true},
		{testID{Pkg: "pkg/sub", Name: "TestC"}, false, false},
		{testID{Pkg: "x", Name: "TestAnything"}, true, true},
		{testID{Pkg: "y", Name: "TestA"}, false, false},
		{testID{Pkg: ".", Name: "TestRoot"}, false, true},
		{testID{File: "tests/test_a.py", Name: "tests.test_a.TestX.test_y"}, false, true},
		{testID{File: "tests/test_a.py", Name: "tests.test_a.test_z"}, false, true}, // by its node id
		{testID{File: "tests/test_a.py", Name: "tests.test_a.TestX.test_other"}, false, false},
		{testID{File: "tests/test_b.py", Name: "tests.test_b.TestQ.test_r"}, true, true}, // node id only
		{testID{File: "tests/test_c.py", Name: "tests.test_c.TestQ.test_r"}, false, false},
		{testID{File: "web/test/a.test.ts", Name: "math adds"}, true, true},
		{testID{File: "web/test/a.test.ts", Name: "parse nested reads"}, true, true}, // a suite holds it
		{testID{File: "web/test/a.test.ts", Name: "parser"}, false, false},
		{testID{File: "web/test/a.test.ts", Name: "math adds more"}, false, false},
		{testID{File: "n/a.test.js", Name: "s it's"}, true, true},
		{testID{File: "n/a.test.js", Name: "suite inner"}, true, true}, // node runs a matching suite's tests
		{testID{File: "n/a.test.js", Name: "s its"}, false, false},
		{testID{File: "api/test/b.test.js", Name: "anything"}, false, true},
		{testID{File: "lib/test/c.js", Name: "anything"}, true, true},
		{testID{File: "library/test/c.js", Name: "anything"}, false, false},
	} {
		if got := s.covers(c.t, true); got != c.sure {
			t.Errorf("covers(%v, sure only) = %v, want %v", c.t, got, c.sure)
		}
		if got := s.covers(c.t, false); got != c.cautious {
			t.Errorf("covers(%v) = %v, want %v", c.t, got, c.cautious)
		}
	}
	all, err := parseSelection([]byte(`{"version":1,"all":{"why":"go.mod changed"},"groups":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !all.covers(testID{Pkg: "z", Name: "TestZ"}, true) {
		t.Error("a whole-suite answer does not cover a test")
	}
	if _, err := parseSelection([]byte(`{"version":2}`)); err == nil {
		t.Error("version 2 was read as version 1")
	}
}

func TestNodeID(t *testing.T) {
	id := testID{File: "test/test_json/test_decode.py", Name: "test.test_json.test_decode.TestPyDecode.test_float"}
	if got, want := id.nodeID(), "test/test_json/test_decode.py::TestPyDecode::test_float"; got != want {
		t.Errorf("nodeID = %q, want %q", got, want)
	}
}

// A test binary that panics in the middle of its tests: every test gets
// its result, by running it again past each panic.
func TestRunGoTestsPastPanics(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	dir := t.TempDir()
	write(t, dir, "go.mod", "module m\n\ngo 1.21\n")
	write(t, dir, "m.go", "package m\n\nfunc Boom() { panic(\"mutant\") }\n")
	write(t, dir, "m_test.go", `package m

import "testing"

func TestA(t *testing.T) {}
func TestB(t *testing.T) { Boom() }
func TestC(t *testing.T) { t.Fatal("fails") }
func TestD(t *testing.T) { t.Run("sub", func(t *testing.T) { Boom() }) }
func TestE(t *testing.T) {}
func TestSkipped(t *testing.T) { Boom() }
`)
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "m.test")
	if out, err := exec.Command("go", "-C", dir, "test", "-c", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v %s", err, out)
	}
	failed, err := runGoTests(ctx, bin, dir, nil, []string{"TestA", "TestB", "TestC", "TestD", "TestE"}, []string{"TestSkipped"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for n := range failed {
		got = append(got, n)
	}
	slices.Sort(got)
	if want := []string{"TestB", "TestC", "TestD"}; !slices.Equal(got, want) {
		t.Errorf("failing = %v, want %v", got, want)
	}

	// A panic before any test (a package initialiser) fails them all.
	write(t, dir, "init.go", "package m\n\nvar _ = func() int { Boom(); return 0 }()\n")
	if out, err := exec.Command("go", "-C", dir, "test", "-c", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v %s", err, out)
	}
	failed, err = runGoTests(ctx, bin, dir, nil, []string{"TestA", "TestE"}, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !failed["TestA"] || !failed["TestE"] {
		t.Errorf("after a panic in an initialiser, failing = %v, want TestA and TestE", failed)
	}
}

// The unittest runner: a failure, an error, a failing subtest, a class
// fixture's error and a module that no longer imports, each charged to
// its test functions; doctests left out.
func TestPythonRunner(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	root := t.TempDir()
	write(t, root, "lib.py", "def f():\n    return 1\n")
	write(t, root, "test/__init__.py", "")
	write(t, root, "test/test_ok.py", `import unittest, doctest, lib

class T(unittest.TestCase):
    def test_pass(self): self.assertEqual(lib.f(), 1)
    def test_fail(self): self.assertEqual(lib.f(), 2)
    def test_error(self): raise RuntimeError("mutant")
    def test_sub(self):
        for i in range(2):
            with self.subTest(i=i):
                self.assertEqual(i, 0)

class Fixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls): raise RuntimeError("mutant")
    def test_one(self): pass
    def test_two(self): pass

def load_tests(loader, tests, pattern):
    tests.addTest(doctest.DocTestSuite(lib))
    return tests
`)
	write(t, root, "test/test_broken.py", "import unittest\nraise RuntimeError('mutant')\n")
	c, err := newPyCorpus(root, t.TempDir(), python, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.mods, []string{"test.test_broken", "test.test_ok"}) {
		t.Fatalf("test modules = %v", c.mods)
	}
	r, err := c.run(context.Background(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Broken, []string{"test.test_broken"}) {
		t.Errorf("broken = %v, want test.test_broken", r.Broken)
	}
	if len(r.Tests) != 6 {
		t.Errorf("tests = %v, want the six test methods", r.Tests)
	}
	want := []string{"test.test_ok.Fixture.test_one", "test.test_ok.Fixture.test_two", "test.test_ok.T.test_error", "test.test_ok.T.test_fail", "test.test_ok.T.test_sub"}
	if !slices.Equal(r.Failed, want) {
		t.Errorf("failed = %v, want %v", r.Failed, want)
	}
	if f := pyFile("test.test_ok.T.test_sub", c.mods); f != "test/test_ok.py" {
		t.Errorf("pyFile = %q", f)
	}
}

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A suite's failing methods are read from check.v1's and testify's
// output, and a group runs one only when its filter matches it.
func TestSuiteMethodsAreJudgedByTheFilter(t *testing.T) {
	out := []byte("=== RUN   Test\n\n----------------------------------------------------------------------\nPANIC: conf_test.go:17: ConfigSuite.TestValidate\n\nFAIL: conf_test.go:21: URLSuite.TestNormalize\n\nOOPS: 1 passed, 1 FAILED, 1 PANICKED\n--- FAIL: Test (0.00s)\n=== RUN   TestRepoSuite\n=== RUN   TestRepoSuite/TestBranch\n    --- FAIL: TestRepoSuite/TestBranch (0.00s)\n--- FAIL: TestRepoSuite (0.00s)\n")
	r := parseGoV(out)
	if got := strings.Join(r.subFails["Test"], ","); got != "ConfigSuite.TestValidate,URLSuite.TestNormalize" {
		t.Errorf("check.v1 methods: %q", got)
	}
	if got := strings.Join(r.subFails["TestRepoSuite"], ","); got != "TestBranch" {
		t.Errorf("testify methods: %q", got)
	}
	check := group{Runner: "go", Dir: "conf", Tests: []string{"Test"}, Command: `go test ./conf -run '^(Test)$' -check.f '^(ConfigSuite\.TestValidate|URLSuite)$'`}
	testify := group{Runner: "go", Dir: "repo", Tests: []string{"TestRepoSuite"}, Command: `go test ./repo -run '^(TestRepoSuite)$' -testify.m '^(TestEmpty)$'`}
	for _, c := range []struct {
		g    group
		t    testID
		want bool
	}{
		{check, testID{Pkg: "conf", Name: "Test", Sub: "ConfigSuite.TestValidate"}, true},
		{check, testID{Pkg: "conf", Name: "Test", Sub: "URLSuite.TestNormalize"}, true}, // its suite, whole
		{check, testID{Pkg: "conf", Name: "Test", Sub: "ConfigSuite.TestOther"}, false},
		{check, testID{Pkg: "conf", Name: "Test"}, true},
		{testify, testID{Pkg: "repo", Name: "TestRepoSuite", Sub: "TestBranch"}, false},
		{testify, testID{Pkg: "repo", Name: "TestRepoSuite", Sub: "TestEmpty"}, true},
	} {
		if got := c.g.matches(c.t); got != c.want {
			t.Errorf("%s runs %s: %v, want %v", c.g.Command, c.t, got, c.want)
		}
	}
}

// A selection's time counts the suite methods its filter runs, not the
// whole suite test, from test2json -t's stamps and check.v1's lines.
func TestSelectionTimeCountsTheMethodsRun(t *testing.T) {
	out := []byte(`{"Time":"2026-01-01T00:00:00Z","Action":"run","Test":"Test"}
{"Time":"2026-01-01T00:00:00.1Z","Action":"output","Test":"Test","Output":"PASS: conf_test.go:17: ConfigSuite.TestValidate\t0.600s\n"}
{"Time":"2026-01-01T00:00:00.2Z","Action":"output","Test":"Test","Output":"PASS: conf_test.go:21: URLSuite.TestNormalize\t0.300s\n"}
{"Time":"2026-01-01T00:00:01Z","Action":"pass","Test":"Test"}
{"Time":"2026-01-01T00:00:01Z","Action":"run","Test":"TestRepoSuite"}
{"Time":"2026-01-01T00:00:01Z","Action":"run","Test":"TestRepoSuite/TestBranch"}
{"Time":"2026-01-01T00:00:01.5Z","Action":"pass","Test":"TestRepoSuite/TestBranch"}
{"Time":"2026-01-01T00:00:01.5Z","Action":"run","Test":"TestRepoSuite/TestEmpty"}
{"Time":"2026-01-01T00:00:03Z","Action":"pass","Test":"TestRepoSuite/TestEmpty"}
{"Time":"2026-01-01T00:00:03Z","Action":"pass","Test":"TestRepoSuite"}
{"Time":"2026-01-01T00:00:03Z","Action":"run","Test":"TestPlain"}
{"Time":"2026-01-01T00:00:03.25Z","Action":"pass","Test":"TestPlain"}
`)
	secs, methods := parseTimes(out)
	if secs["Test"] != 1 || secs["TestRepoSuite"] != 2 || secs["TestPlain"] != 0.25 {
		t.Fatalf("tests' times: %v", secs)
	}
	if methods["Test"]["ConfigSuite.TestValidate"] != 0.6 || methods["TestRepoSuite"]["TestEmpty"] != 1.5 {
		t.Fatalf("methods' times: %v", methods)
	}
	c := &goCorpus{pkgs: []*goPkg{{Dir: ".", tests: []string{"Test", "TestRepoSuite", "TestPlain"}, secs: secs, methods: methods}}}
	sel := &selection{Groups: []group{
		{Runner: "go", Dir: ".", Tests: []string{"Test"}, Command: `go test . -run '^(Test)$' -check.f '^(ConfigSuite\.TestValidate)$'`},
		{Runner: "go", Dir: ".", Tests: []string{"TestRepoSuite"}, Command: `go test . -run '^(TestRepoSuite)$' -testify.m '^(TestBranch)$'`},
	}}
	selected, total := c.seconds(sel)
	// Test: 0.6 of its method and 0.1 besides its methods; TestRepoSuite:
	// TestBranch's 0.5 and nothing besides.
	if total != 3.25 || selected < 1.199 || selected > 1.201 {
		t.Errorf("selected %.3fs of %.3fs, want 1.2s of 3.25s", selected, total)
	}
}
