package blast

import (
	"bytes"
	"encoding/json"
	"runtime"
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
		// A file only another platform builds selects nothing here
		// (TestSelectionForAPlatform selects for that platform).
		{"goos-file", func() {
			r.write(map[string]string{"store/store_" + otherGOOS() + ".go": "package store\n\nfunc sep() string { return `\\` }\n"})
		}, nil, "", false},
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
	if c := s.Counts; c.Selected != 3 || c.Cautious != 1 || c.Suite != 8 || c.Whole != 3 || c.WholeBy["unseen"] != 3 {
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
		"summary: 3 of 8 known tests selected (1 cautious); 3 group(s) whole (3 for what calls do not show)\n",
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
			Whole                     int            `json:"whole"`
			WholeBy                   map[string]int `json:"whole_by"`
		} `json:"counts"`
		Platform string   `json:"platform"`
		NotBuilt []string `json:"not_built"`
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

// TestSelectOtherFiles pins what files the code graph cannot follow
// select, and that a JavaScript or TypeScript test no package.json says
// how to run, reached or changed, selects everything.
func TestSelectOtherFiles(t *testing.T) {
	r := newTestsRepo(t)
	r.write(map[string]string{
		"web/app.js":      "export function add(a, b) { return a + b }\n",
		"web/app.test.js": "import { add } from './app'\n\ntest('adds', () => {\n  add(1, 2)\n})\n",
		"ui/calc.ts":      "export function twice(n: number): number { return n * 2 }\n",
		"ui/calc.spec.ts": "import { twice } from './calc'\n\nit('doubles', () => {\n  twice(2)\n})\n",
	})
	r.commit("javascript and typescript")
	r.git("tag", "-f", "base")
	for _, tc := range []struct {
		branch string
		change func()
		want   []string // the commands, one a line
		whys   []string // in all's why, or in the groups'
	}{
		{"js-changed", func() { r.edit("web/app.js", "a + b", "b + a") },
			[]string{"go test ./...", "python -m pytest"},
			[]string{`test("adds") (web/app.test.js) is a JavaScript test to run, and no package.json above it says what runs it`}},
		{"js-test-changed", func() { r.edit("web/app.test.js", "add(1, 2)", "add(2, 1)") },
			[]string{"go test ./...", "python -m pytest"},
			[]string{`test("adds") (web/app.test.js) is a JavaScript test to run, and no package.json`}},
		{"ts-changed", func() { r.edit("ui/calc.ts", "n * 2", "2 * n") },
			[]string{"go test ./...", "python -m pytest"},
			[]string{`it("doubles") (ui/calc.spec.ts) is a JavaScript test to run, and no package.json`}},
		{"js-beside-go", func() { r.write(map[string]string{"store/widget.js": "export const w = 1\n"}) },
			[]string{"go test ./store"}, []string{"store/widget.js changed in the directory of a Go package"}},
		{"doc-beside-go", func() { r.write(map[string]string{"store/README.md": "# store\n"}) },
			[]string{"go test ./store"}, []string{"store/README.md changed in the directory of a Go package"}},
		{"proto", func() { r.write(map[string]string{"api/shop.proto": "syntax = \"proto3\";\n"}) },
			[]string{"go test ./...", "python -m pytest"}, []string{"api/shop.proto changed: cchub selects Go, Python and JavaScript tests, and cannot follow what a proto file breaks"}},
		{"license", func() { r.write(map[string]string{"LICENSE.txt": "MIT\n", "docs/LICENSE": "MIT\n"}) }, nil, nil},
		{"data-below-go", func() { r.write(map[string]string{"store/assets/seed.json": "{}\n"}) },
			[]string{"go test ./store"}, []string{"store/assets/seed.json changed below a Go package"}},
		// The nearest package above is Go's, at the root, which has no test.
		{"data-in-python", func() { r.write(map[string]string{"tools/data/table.csv": "a,1\n"}) }, nil, nil},
		{"testdata-of-none", func() { r.write(map[string]string{"fixtures/testdata/x.txt": "x\n"}) },
			[]string{"go test ./...", "python -m pytest"}, []string{"no Go, Python or JavaScript package owns its testdata directory"}},
		{"testdata-of-python", func() { r.write(map[string]string{"tools/testdata/x.txt": "x\n"}) },
			[]string{"python -m pytest 'tools'"}, []string{"the tests under tools may read it"}},
		{"pyi", func() { r.write(map[string]string{"tools/stats.pyi": "def mean(xs: list) -> float: ...\n"}) },
			[]string{"python -m pytest 'tools/test_stats.py'", "python -m pytest 'tools/test_unit.py'"}, []string{"Python may reach mean by a name the graph does not follow"}},
	} {
		t.Run(tc.branch, func(t *testing.T) {
			s := r.selectOn(tc.branch, tc.change)
			got := strings.Split(strings.TrimSuffix(commandsOf(t, s), "\n"), "\n")
			if len(tc.want) == 0 {
				got = nil
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("commands:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), selJSON(t, s))
			}
			why := ""
			if s.All != nil {
				why = s.All.Why
			}
			for _, g := range s.Groups {
				why += "\n" + g.Why
			}
			for _, w := range tc.whys {
				if !strings.Contains(why, w) {
					t.Errorf("no why has %q:\n%s", w, selJSON(t, s))
				}
			}
		})
	}
}

// otherGOOS is a GOOS the tests do not run on.
func otherGOOS() string {
	if runtime.GOOS == "windows" {
		return "linux"
	}
	return "windows"
}
