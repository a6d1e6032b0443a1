package blast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// selectOn commits a change on a branch of its own and selects the tests
// of the diff from base, both with the change checked out and with --head
// read from git: the two must agree.
func (r *repo) selectOn(branch string, change func()) *Selection {
	r.t.Helper()
	r.git("checkout", "-q", "-b", branch, "base")
	change()
	r.commit(branch)
	checkedOut := r.run(Options{Base: "base", Tests: true}).Selection
	r.git("checkout", "-q", "base")
	fromGit := r.run(Options{Base: "base", Head: branch, Tests: true}).Selection
	if a, b := selJSON(r.t, checkedOut), selJSON(r.t, fromGit); a != b {
		r.t.Errorf("%s: --head without a checkout selects otherwise:\nchecked out: %s\nfrom git:    %s", branch, a, b)
	}
	return checkedOut
}

func selJSON(t *testing.T, s *Selection) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// commandsOf is the selection's commands, one a line.
func commandsOf(t *testing.T, s *Selection) string {
	t.Helper()
	var b strings.Builder
	if err := s.WriteCommands(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// testsFiles add to the blast fixture what test selection needs: tests
// in a package that imports store, a chain deeper than blast's default
// depth, a package variable set by a call, test data, an embedded file, a
// file with a build constraint, a Python module whose body calls, a test
// in another directory, a unittest class, and a call on an unknown value.
var testsFiles = map[string]string{
	"report/report_test.go": `package report_test

import (
	"testing"

	"example.com/shop/report"
	"example.com/shop/store"
)

func TestSummary(t *testing.T) {
	if report.Summary(store.New()) == "" {
		t.Fatal("empty")
	}
}
`,
	"store/chain.go": `package store

func d1() int { return d2() }

func d2() int { return d3() }

func d3() int { return d4() }

func d4() int { return 1 }
`,
	"store/chain_test.go": `package store

import "testing"

func deepHelper() int { return d1() }

func TestDeep(t *testing.T) {
	if deepHelper() != 1 {
		t.Fatal("deep")
	}
}
`,
	"store/limits.go": `package store

// Max is the most of an item.
const Max = 10

var limit = compute()

func compute() int { return 3 }
`,
	"store/extra.go": `//go:build !windows

package store

func Extra() int { return 1 }
`,
	"store/testdata/in.txt": "a 1\n",
	"store/schema.sql":      "create table items (name text);\n",
	"tools/config.py": `def base_value():
    return 2


DEFAULT = base_value()
`,
	"tests/__init__.py": "",
	"tests/test_config.py": `from tools.config import DEFAULT


def test_default():
    assert DEFAULT == 2
`,
	"tools/test_unit.py": `import unittest

from tools.stats import spread


class TestSpread(unittest.TestCase):
    def test_one(self):
        self.assertEqual(spread([1]), 0)
`,
	"tools/shape.py": `class Shape:
    sides = 0

    def area(self):
        return 0
`,
	"tools/test_shape.py": `import pytest

from tools.shape import Shape


@pytest.fixture
def make():
    return Shape


def test_area(make):
    assert make().area() == 0
`,
	"docs/guide.md": "# guide\n",
}

func newTestsRepo(t *testing.T) *repo {
	r := newRepo(t)
	r.write(testsFiles)
	r.commit("tests fixture")
	r.git("tag", "-f", "base")
	return r
}

func TestSelectTests(t *testing.T) {
	r := newTestsRepo(t)
	for _, tc := range []struct {
		branch string
		change func()
		want   []string // the commands, one a line
		why    string   // in every group's why, or all's
		all    bool
	}{
		{"body", func() {
			r.edit("store/store.go", "t += n", "t += n * 1")
			r.edit("tools/stats.py", "return sum(xs) / len(xs)", "return sum(xs) / max(len(xs), 1)")
		}, []string{
			"go test ./report -run '^(TestSummary)$'",
			"go test ./store -run '^(TestTotal)$'",
			"python -m pytest 'tools/test_stats.py::test_spread'",
			"python -m pytest 'tools/test_unit.py::TestSpread::test_one'",
		}, "reached via", false},
		// Farther than blast's depth: the selection has none.
		{"deep", func() { r.edit("store/chain.go", "return 1", "return 2 - 1") },
			[]string{"go test ./store -run '^(TestDeep)$'"}, "d4 <- d3 <- d2 <- d1 <- deepHelper <- TestDeep [exact]", false},
		{"test-only", func() { r.edit("store/store_test.go", `t.Fatal("count")`, `t.Fatal("count", 1)`) },
			[]string{"go test ./store -run '^(TestAdd)$'"}, "modified", false},
		{"test-helper", func() { r.edit("store/chain_test.go", "return d1()", "return d1() + 0") },
			[]string{"go test ./store"}, "a helper of the package's tests", false},
		{"test-top-level", func() { r.edit("store/chain_test.go", "import \"testing\"\n", "import \"testing\"\n\nvar seed = 1\n") },
			[]string{"go test ./store"}, "changed outside every function", false},
		// A constant: whatever imports its package, directly or not.
		{"const", func() { r.edit("store/limits.go", "const Max = 10", "const Max = 11") },
			[]string{"go test ./report", "go test ./store"}, "store/limits.go:4 changed outside every function (const Max = 10)", false},
		// A package variable's initialiser calls what changed.
		{"var-init", func() { r.edit("store/limits.go", "return 3", "return 4") },
			[]string{"go test ./report", "go test ./store"}, "calls compute at the top level", false},
		{"testdata", func() { r.edit("store/testdata/in.txt", "a 1", "a 2") },
			[]string{"go test ./store"}, "store/testdata/in.txt changed", false},
		{"embedded", func() { r.edit("store/schema.sql", "text", "varchar") },
			[]string{"go test ./store"}, "store/schema.sql changed in the directory of a Go package", false},
		{"build-constraint", func() { r.edit("store/extra.go", "return 1", "return 2") },
			[]string{"go test ./store"}, "build constraints", false},
		{"rename", func() { r.git("mv", "store/chain.go", "store/links.go") },
			[]string{"go test ./report", "go test ./store"}, "store/chain.go deleted or renamed", false},
		{"delete", func() { r.git("rm", "-q", "report/format.go") },
			[]string{"go test ./report"}, "report/format.go deleted or renamed", false},
		{"go.mod", func() { r.edit("go.mod", "go 1.22", "go 1.23") },
			[]string{"go test ./...", "python -m pytest"}, "go.mod changed", true},
		{"conftest-dir", func() { r.write(map[string]string{"tools/conftest.py": "import pytest\n"}) },
			[]string{"python -m pytest 'tools'"}, "tools/conftest.py changed", false},
		{"conftest-root", func() { r.write(map[string]string{"conftest.py": "import pytest\n"}) },
			[]string{"go test ./...", "python -m pytest"}, "conftest.py changed", true},
		{"init", func() { r.write(map[string]string{"tools/__init__.py": "VERSION = 1\n"}) },
			[]string{"python -m pytest 'tests/test_config.py'", "python -m pytest 'tools'"}, "tools/__init__.py", false},
		// A module's body calls what changed: its directory's tests and
		// every test importing it.
		{"module-body", func() { r.edit("tools/config.py", "return 2", "return 1 + 1") },
			[]string{"python -m pytest 'tests/test_config.py'", "python -m pytest 'tools'"}, "calls base_value at the top level", false},
		{"py-delete", func() { r.git("rm", "-q", "tools/config.py") },
			[]string{"python -m pytest 'tests/test_config.py'", "python -m pytest 'tools'"}, "tools/config.py deleted or renamed", false},
		{"unread-language", func() { r.write(map[string]string{"tools/run.sh": "echo hi\n"}) },
			[]string{"go test ./...", "python -m pytest"}, "tools/run.sh changed", true},
		// A struct's field: whatever imports the package.
		{"type", func() { r.edit("store/store.go", "items map[string]int\n", "items map[string]int\n\tname  string\n") },
			[]string{"go test ./report", "go test ./store"}, "modified Store (store/store.go:4-7): the code graph does not follow its uses", false},
		{"goos-file", func() {
			r.write(map[string]string{"store/store_windows.go": "package store\n\nfunc sep() string { return `\\` }\n"})
		},
			[]string{"go test ./store"}, "build constraints", false},
		{"go.sum", func() { r.write(map[string]string{"go.sum": "example.com/x v1.0.0 h1:abc=\n"}) },
			[]string{"go test ./...", "python -m pytest"}, "go.sum changed", true},
		{"pyproject", func() { r.write(map[string]string{"pyproject.toml": "[tool.pytest.ini_options]\n"}) },
			[]string{"go test ./...", "python -m pytest"}, "pyproject.toml changed: it configures every test under the root", true},
		{"py-test-helper", func() { r.edit("tools/test_shape.py", "return Shape\n", "return Shape  # the class\n") },
			[]string{"python -m pytest 'tools/test_shape.py'"}, "a helper of the file's tests", false},
		{"py-test-top-level", func() {
			r.edit("tests/test_config.py", "from tools.config import DEFAULT\n", "from tools.config import DEFAULT\n\nEXPECTED = 2\n")
		},
			[]string{"python -m pytest 'tests/test_config.py'"}, "tests/test_config.py:3 changed outside every function (EXPECTED = 2)", false},
		{"class-attribute", func() { r.edit("tools/shape.py", "sides = 0", "sides = 3") },
			[]string{"python -m pytest 'tools'"}, "modified Shape", false},
		// A new file: its package clause and imports change nothing by
		// themselves, its function is new.
		{"new-file", func() {
			r.write(map[string]string{"store/fmt.go": "package store\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc show(s *Store) string { return strings.TrimSpace(fmt.Sprint(Total(s))) }\n"})
		}, nil, "", false},
		{"docs", func() { r.edit("docs/guide.md", "guide", "the guide") }, nil, "", false},
		// A sure whole package holds the package's tests one by one.
		{"subsume", func() {
			r.edit("store/store.go", "t += n", "t += n * 1")
			r.edit("store/testdata/in.txt", "a 1", "a 2")
		}, []string{"go test ./report -run '^(TestSummary)$'", "go test ./store"}, "", false},
	} {
		t.Run(tc.branch, func(t *testing.T) {
			s := r.selectOn(tc.branch, tc.change)
			// Python's import rule (a changed module's importing test files,
			// cautious and whole) has a test of its own.
			kept := s.Groups[:0:0]
			for _, g := range s.Groups {
				if !(g.Cautious && strings.Contains(g.Why, "Python may reach")) {
					kept = append(kept, g)
				}
			}
			s.Groups = kept
			got := strings.Fields(strings.ReplaceAll(commandsOf(t, s), " ", "\x00"))
			for i := range got {
				got[i] = strings.ReplaceAll(got[i], "\x00", " ")
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("commands:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), selJSON(t, s))
			}
			if (s.All != nil) != tc.all {
				t.Errorf("all = %+v, want set: %v", s.All, tc.all)
			}
			if s.All != nil && !strings.Contains(s.All.Why, tc.why) {
				t.Errorf("all's why %q has no %q", s.All.Why, tc.why)
			}
			found := tc.why == ""
			for _, g := range s.Groups {
				found = found || strings.Contains(g.Why, tc.why)
				if g.Why == "" {
					t.Errorf("group %s says no why", g.Command)
				}
			}
			if s.All == nil && !found {
				t.Errorf("no group's why has %q:\n%s", tc.why, selJSON(t, s))
			}
			for _, g := range s.Groups {
				if g.Cautious {
					t.Errorf("group %s is cautious; every reason here is sure", g.Command)
				}
			}
			if s.Counts.Suite != 8 {
				t.Errorf("suite = %d, want the 8 tests of the fixture", s.Counts.Suite)
			}
		})
	}
}

// TestSelectCautious: a test reached only through a call on a value of
// unknown type is cautious, listed after the sure ones even when it sorts
// before them, and counted apart; unittest ids name the class's tests.
func TestSelectCautious(t *testing.T) {
	r := newTestsRepo(t)
	s := r.selectOn("cautious", func() {
		r.edit("tools/shape.py", "return 0", "return 0 * 1")
		r.edit("tools/stats.py", "return sum(xs) / len(xs)", "return sum(xs) / max(len(xs), 1)")
	})
	// The sure tests first; then, cautious, the test files that import the
	// changed modules (Python may reach a function by names the graph does
	// not follow), which hold the test reached by a name-only call.
	want := "python -m pytest 'tools/test_stats.py::test_spread'\n" +
		"python -m pytest 'tools/test_unit.py::TestSpread::test_one'\n" +
		"python -m pytest 'tools/test_shape.py'\n" +
		"python -m pytest 'tools/test_stats.py'\n" +
		"python -m pytest 'tools/test_unit.py'\n"
	if got := commandsOf(t, s); got != want {
		t.Errorf("commands:\n%swant:\n%s", got, want)
	}
	if len(s.Groups) != 5 {
		t.Fatalf("groups: %s", selJSON(t, s))
	}
	shape, unit := s.Groups[2], s.Groups[1]
	if !shape.Cautious || !shape.Whole || !strings.Contains(shape.Why, "Python may reach") || shape.File != "tools/test_shape.py" || shape.Dir != "tools" {
		t.Errorf("the shape test's group: %+v; want cautious, the whole file importing the changed module", shape)
	}
	if unit.Cautious || !slices.Equal(unit.Unittest, []string{"tools.test_unit.TestSpread.test_one"}) || !slices.Equal(unit.Tests, []string{"tools/test_unit.py::TestSpread::test_one"}) {
		t.Errorf("the unittest group: %+v", unit)
	}
	if s.Counts != (SelectionCounts{Selected: 3, Cautious: 1, Suite: 8}) {
		t.Errorf("counts = %+v", s.Counts)
	}
	var b strings.Builder
	if err := s.WriteText(&b, "base → head"); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"tests to run for base → head\n",
		"sure:\n  python -m pytest 'tools/test_stats.py::test_spread'\n    why: test_spread: reached via mean <- spread <- test_spread [import]\n",
		"cautious (reached only through name-only or possible calls, or by what Python may reach through an import):\n  python -m pytest 'tools/test_shape.py'\n",
		"summary: 3 of 8 known tests selected (1 cautious)\n",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("text has no %q:\n%s", line, b.String())
		}
	}
}

// TestSelectJSONShape decodes the JSON form strictly into the schema
// docs/blast.md gives: a field missing, renamed or undocumented fails.
func TestSelectJSONShape(t *testing.T) {
	type group struct {
		Runner   string   `json:"runner"`
		Dir      string   `json:"dir"`
		Package  string   `json:"package"`
		File     string   `json:"file"`
		Tests    []string `json:"tests"`
		Unittest []string `json:"unittest"`
		Whole    *bool    `json:"whole"`
		Cautious *bool    `json:"cautious"`
		Why      string   `json:"why"`
		Command  string   `json:"command"`
	}
	type shape struct {
		Version int                   `json:"version"`
		All     *struct{ Why string } `json:"all"`
		Groups  []group               `json:"groups"`
		Counts  struct {
			Selected, Cautious, Suite *int
		} `json:"counts"`
	}
	r := newTestsRepo(t)
	for _, branch := range []string{"some", "everything"} {
		s := r.selectOn(branch, func() {
			r.edit("store/store.go", "t += n", "t += n * 1")
			r.edit("tools/shape.py", "return 0", "return 0 * 1")
			r.edit("store/testdata/in.txt", "a 1", "a 2")
			if branch == "everything" {
				r.edit("go.mod", "go 1.22", "go 1.23")
			}
		})
		raw := selJSON(t, s)
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.DisallowUnknownFields()
		var got shape
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%s: %v\n%s", branch, err, raw)
		}
		if got.Version != 1 || got.Counts.Selected == nil || got.Counts.Suite == nil || got.Groups == nil {
			t.Errorf("%s: %s", branch, raw)
		}
		if branch == "everything" {
			if got.All == nil || got.All.Why != "go.mod changed: every package may build differently" || len(got.Groups) != 0 || *got.Counts.Selected != 8 {
				t.Errorf("everything: %s", raw)
			}
			continue
		}
		if !strings.Contains(raw, `"all": null`) || len(got.Groups) != 3 {
			t.Fatalf("some: %s", raw)
		}
		for _, g := range got.Groups {
			if g.Whole == nil || g.Cautious == nil || g.Tests == nil || g.Why == "" || g.Command == "" || g.Dir == "" {
				t.Errorf("group %+v lacks a field", g)
			}
			if g.Runner == "go" && (g.Package == "" || g.File != "") || g.Runner == "pytest" && g.Package != "" {
				t.Errorf("group %+v: package is Go's, file pytest's", g)
			}
		}
		if g := got.Groups[1]; g.Dir != "store" || !*g.Whole || g.Command != "go test ./store" || len(g.Tests) != 0 {
			t.Errorf("store: %+v; want the whole package (test data changed), holding TestTotal", g)
		}
	}
}

// TestSelectNestedModule: a module below the workspace root runs with
// go test -C, its package relative to the module.
func TestSelectNestedModule(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		"svc/go.mod":          "module example.com/svc\n\ngo 1.22\n",
		"svc/api/api.go":      "package api\n\nfunc Ping() string { return \"pong\" }\n",
		"svc/api/api_test.go": "package api\n\nimport \"testing\"\n\nfunc TestPing(t *testing.T) {\n\tif Ping() == \"\" {\n\t\tt.Fatal(\"ping\")\n\t}\n}\n",
	})
	r.commit("svc")
	r.git("tag", "-f", "base")
	s := r.selectOn("ping", func() { r.edit("svc/api/api.go", `"pong"`, `"pong!"`) })
	if got, want := commandsOf(t, s), "go test -C svc ./api -run '^(TestPing)$'\n"; got != want {
		t.Errorf("commands = %q, want %q", got, want)
	}
	if len(s.Groups) != 1 || s.Groups[0].Package != "./api" || s.Groups[0].Dir != "svc/api" {
		t.Errorf("groups: %s", selJSON(t, s))
	}
	s = r.selectOn("svc-mod", func() { r.edit("svc/go.mod", "go 1.22", "go 1.23") })
	if got, want := commandsOf(t, s), "go test ./...\ngo test -C svc ./...\npython -m pytest\n"; got != want {
		t.Errorf("the whole suite: %q, want %q", got, want)
	}
}

// Two tests of one package may share a name (files for different
// platforms): the selection lists them in one order, run after run.
func TestSelectSameNamedTestsInOneOrder(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		"go.mod":             "module example.com/m\n\ngo 1.22\n",
		"p/p.go":             "package p\n\nfunc Limit() int { return 1 }\n\nfunc viaA() int { return Limit() }\n\nfunc viaB() int { return Limit() + 1 }\n",
		"p/l_linux_test.go":  "package p\n\nimport \"testing\"\n\nfunc TestLimit(t *testing.T) { _ = viaA() }\n",
		"p/l_darwin_test.go": "package p\n\nimport \"testing\"\n\nfunc TestLimit(t *testing.T) { _ = viaB() }\n",
	})
	r.commit("base")
	r.git("tag", "-f", "base")
	var first string
	for i := range 8 {
		s := r.selectOn(fmt.Sprintf("limit%d", i), func() { r.edit("p/p.go", "return 1", "return 2") })
		got := selJSON(t, s)
		if i == 0 {
			first = got
			if !strings.Contains(got, "viaA") || !strings.Contains(got, "viaB") {
				t.Fatalf("both tests' reasons: %s", got)
			}
		} else if got != first {
			t.Fatalf("run %d differs:\n%s\nfirst:\n%s", i, got, first)
		}
		r.git("checkout", "-q", "--", "p/p.go")
	}
}

// TestSelectGoRunSelects runs go test -list with the -run of the
// selection, in a real module: it must list exactly the tests reached (an
// example, a fuzz target through a helper and a test of an external test
// package among them), not one whose name starts the same.
func TestSelectGoRunSelects(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	// The user's build cache, asked before newRepo moves HOME: a fresh
	// one would build the standard library again.
	env, err := exec.Command(goBin, "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	caches := strings.Fields(string(env))
	r := newRepo(t)
	r.write(map[string]string{
		"calc/calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n",
		"calc/calc_test.go": `package calc

import (
	"fmt"
	"testing"
)

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("add")
	}
}

func TestAddMore(t *testing.T) {
	if Sub(3, 2) != 1 {
		t.Fatal("sub")
	}
}

func ExampleAdd() {
	fmt.Println(Add(1, 1))
	// Output: 2
}

func FuzzSub(f *testing.F) {
	f.Fuzz(func(t *testing.T, a int) { _ = Sub(a, a) })
}

func FuzzAdd(f *testing.F) {
	f.Fuzz(func(t *testing.T, a int) { _ = Testable(a) })
}

// Testable is a helper, not a test: go test does not run it.
func Testable(a int) int { return Add(a, a) }
`,
		"calc/ext_test.go": `package calc_test

import (
	"testing"

	"example.com/shop/calc"
)

func TestExternal(t *testing.T) {
	if calc.Add(0, 0) != 0 {
		t.Fatal("ext")
	}
}
`,
	})
	r.commit("calc")
	r.git("tag", "-f", "base")
	s := r.selectOn("add", func() { r.edit("calc/calc.go", "return a + b", "return b + a") })
	want := "go test ./calc -run '^(ExampleAdd|FuzzAdd|TestAdd|TestExternal)$'\n"
	if got := commandsOf(t, s); got != want {
		t.Fatalf("commands = %q, want %q", got, want)
	}
	run := s.Groups[0].Command[strings.Index(s.Groups[0].Command, "'")+1 : len(s.Groups[0].Command)-1]
	r.git("checkout", "-q", "add")
	cmd := exec.Command(goBin, "test", "-list", run, "./calc")
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if len(caches) == 2 {
		cmd.Env = append(cmd.Env, "GOCACHE="+caches[0], "GOMODCACHE="+caches[1])
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -list: %v\n%s", err, out)
	}
	var listed []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && !strings.HasPrefix(l, "ok ") {
			listed = append(listed, l)
		}
	}
	slices.Sort(listed)
	if want := []string{"ExampleAdd", "FuzzAdd", "TestAdd", "TestExternal"}; !slices.Equal(listed, want) {
		t.Errorf("go test -list %q ./calc lists %q, want %q", run, listed, want)
	}
}

// TestSelectPythonMixinsAndImports: a test method of a mixin runs as its
// subclasses' tests, so their file is selected whole; a test file that
// imports the changed module, even through a package, is selected
// (cautious) although no call the graph follows reaches it.
func TestSelectPythonMixinsAndImports(t *testing.T) {
	r := newTestsRepo(t)
	r.write(map[string]string{
		"codec/__init__.py": "from codec.decoder import decode\n",
		"codec/decoder.py":  "def decode(s):\n    return s\n",
		"tests/__init__.py": "",
		"tests/base.py":     "import codec\n\nclass PyTest:\n    loads = staticmethod(codec.decode)\n",
		"tests/test_decode.py": "import unittest\nfrom codec.decoder import decode\nfrom tests.base import PyTest\n\n" +
			"class TestDecode:\n    def test_direct(self):\n        decode('x')\n\n    def test_through_attribute(self):\n        self.loads('x')\n\n" +
			"class TestPyDecode(TestDecode, PyTest, unittest.TestCase):\n    pass\n",
		"tests/test_other.py": "import unittest\nfrom tests.base import PyTest\n\nclass TestOther(PyTest, unittest.TestCase):\n    def test_loads(self):\n        self.loads('y')\n",
		// A test that runs the module in a subprocess imports nothing of it;
		// its package does.
		"tests/cli/__init__.py": "import codec\n",
		"tests/cli/test_cli.py": "import subprocess\n\ndef test_cli():\n    subprocess.run(['python', '-m', 'codec'])\n",
	})
	r.commit("mixins")
	r.git("tag", "-f", "base")
	s := r.selectOn("mixins", func() { r.edit("codec/decoder.py", "return s", "return s + ''") })
	var sure, cautious []string
	for _, g := range s.Groups {
		if g.Cautious {
			cautious = append(cautious, g.Command)
		} else {
			sure = append(sure, g.Command)
		}
	}
	if !slices.Contains(sure, "python -m pytest 'tests/test_decode.py'") {
		t.Errorf("the mixin's test reached by a call: want its subclass's file whole and sure; sure %q\n%s", sure, selJSON(t, s))
	}
	cli := false
	for _, g := range s.Groups {
		cli = cli || g.Cautious && g.Whole && g.Dir == "tests/cli"
	}
	if !cli {
		t.Errorf("a test package whose __init__ imports the changed module: want its directory cautious and whole\n%s", selJSON(t, s))
	}
	if !slices.Contains(cautious, "python -m pytest 'tests/test_other.py'") {
		t.Errorf("a test file importing the changed module through tests.base: want it cautious and whole; cautious %q\n%s", cautious, selJSON(t, s))
	}
}

// TestSelectionCoversFailingTests mutates each function of the fixture's
// Go packages in turn (it panics), runs the whole suite with go test, and
// requires every failing test to be selected: the selection is safe.
func TestSelectionCoversFailingTests(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	// newRepo points HOME into the repository: go keeps its caches where
	// they were.
	goEnv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Fields(string(goEnv))
	r := newTestsRepo(t)
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTELEMETRY=off", "GOCACHE="+caches[0], "GOMODCACHE="+caches[1], "HOME="+t.TempDir())
	mutants := []struct{ file, at string }{
		{"store/store.go", "func Total(s *Store) int {"},
		{"store/store.go", "func (s *Store) Add(name string, n int) {"},
		{"store/store.go", "func (s *Store) Count(name string) int {"},
		{"report/format.go", "func Format(n int) string {"},
		{"report/report.go", "func Summary(s *store.Store) string {"},
	}
	for i, m := range mutants {
		branch := fmt.Sprintf("mutant%d", i)
		s := r.selectOn(branch, func() { r.edit(m.file, m.at, m.at+"\n\tpanic(\"mutant\")") })
		r.git("checkout", "-q", branch) // selectOn leaves base checked out
		failing := failingGoTests(t, r.dir, env)
		if len(failing) == 0 {
			t.Fatalf("%s %s: no test fails; the mutant measures nothing", m.file, m.at)
		}
		for _, f := range failing {
			if !selects(s, f[0], f[1]) {
				t.Errorf("%s %s: failing test %s in %s is not selected:\n%s", m.file, m.at, f[1], f[0], selJSON(t, s))
			}
		}
		r.git("checkout", "-q", "base")
	}
}

// failingGoTests runs every Go test of the module at dir and returns the
// failing top-level tests as {dir, name}.
func failingGoTests(t *testing.T, dir string, env []string) [][2]string {
	t.Helper()
	cmd := exec.Command("go", "test", "-count=1", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = env
	out, _ := cmd.Output() // failing tests exit 1; a build failure leaves no failing test, which the caller refuses
	var failing [][2]string
	for _, line := range bytes.Split(out, []byte("\n")) {
		var ev struct{ Action, Package, Test string }
		if json.Unmarshal(line, &ev) != nil || ev.Action != "fail" || ev.Test == "" || strings.Contains(ev.Test, "/") {
			continue
		}
		failing = append(failing, [2]string{strings.TrimPrefix(strings.TrimPrefix(ev.Package, "example.com/shop"), "/"), ev.Test})
	}
	return failing
}

// selects says whether s runs Go test name of the package in dir.
func selects(s *Selection, dir, name string) bool {
	if dir == "" {
		dir = "."
	}
	if s.All != nil {
		return true
	}
	for _, g := range s.Groups {
		if g.Runner == "go" && g.Dir == dir && (g.Whole || slices.Contains(g.Tests, name)) {
			return true
		}
	}
	return false
}
