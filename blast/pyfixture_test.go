package blast

import (
	"strings"
	"testing"
)

// A conftest.py change confined to fixtures selects the test files that
// use them, directly or through another fixture; anything else in it
// (a helper, an autouse fixture, a decorator's arguments) still selects
// every test under its directory.
func TestSelectPytestFixtureUsers(t *testing.T) {
	r := newRepoOf(t, map[string]string{
		"pyproject.toml": "[project]\nname = \"shop\"\n",
		"tests/conftest.py": `import pytest


def helper():
    return 1


@pytest.fixture
def db():
    return {"rows": 1}


@pytest.fixture(
    scope="module",
)
def cfg(db):
    return {"db": db}


@pytest.fixture(name="clock")
def _clock():
    return 0


@pytest.fixture(autouse=True)
def env():
    return helper()
`,
		"tests/test_a.py":     "def test_rows(db):\n    assert db[\"rows\"] == 1\n",
		"tests/test_b.py":     "def test_cfg(cfg):\n    assert cfg\n",
		"tests/test_c.py":     "def test_plain():\n    assert True\n",
		"tests/test_d.py":     "import pytest\n\n\n@pytest.mark.usefixtures(\"clock\")\ndef test_time():\n    assert True\n",
		"tests/sub/test_e.py": "def test_sub(cfg):\n    assert cfg\n",
		"other/test_f.py":     "def test_other(db):\n    assert True\n",
	})
	files := func(s *Selection) string {
		var got []string
		for _, g := range s.Groups {
			got = append(got, g.Command)
		}
		return strings.Join(got, "\n")
	}
	s := r.selectOn("db", func() { r.edit("tests/conftest.py", `return {"rows": 1}`, `return {"rows": 2}`) })
	if got, want := files(s), "python -m pytest 'tests/test_a.py'\npython -m pytest 'tests/test_b.py'\npython -m pytest 'tests/sub/test_e.py'"; got != want {
		t.Errorf("a changed fixture: %q, want %q\n%s", got, want, selJSON(t, s))
	}
	if !strings.Contains(s.Groups[0].Why, "changed fixture db") {
		t.Errorf("why: %q", s.Groups[0].Why)
	}
	s = r.selectOn("clock", func() { r.edit("tests/conftest.py", "return 0", "return 1") })
	if got, want := files(s), "python -m pytest 'tests/test_d.py'"; got != want {
		t.Errorf("a fixture named by name=: %q, want %q", got, want)
	}
	// A fixture's decorator is the fixture's: its users.
	s = r.selectOn("scope", func() { r.edit("tests/conftest.py", `scope="module"`, `scope="session"`) })
	if got, want := files(s), "python -m pytest 'tests/test_b.py'\npython -m pytest 'tests/sub/test_e.py'"; got != want {
		t.Errorf("a fixture's scope: %q, want %q", got, want)
	}
	for branch, edit := range map[string][2]string{
		"helper":      {"return 1\n\n\n@pytest.fixture\ndef db", "return 2\n\n\n@pytest.fixture\ndef db"},
		"autouse":     {"return helper()", "return helper() + 1"},
		"autouse-off": {"@pytest.fixture(autouse=True)", "@pytest.fixture"},
		"autouse-on":  {"@pytest.fixture\ndef db", "@pytest.fixture(autouse=True)\ndef db"},
		"renamed":     {`name="clock"`, `name="timer"`},
	} {
		s := r.selectOn(branch, func() { r.edit("tests/conftest.py", edit[0], edit[1]) })
		if got, want := files(s), "python -m pytest 'tests'"; got != want {
			t.Errorf("%s: %q, want the whole directory", branch, got)
		}
	}
}

// A test class's set-up or tear-down selects that class (its node id),
// and the files of classes deriving from it; not its whole file.
func TestSelectPytestClassFixture(t *testing.T) {
	r := newRepoOf(t, map[string]string{
		"pyproject.toml": "[project]\nname = \"shop\"\n",
		"tests/test_a.py": `import unittest


class TestA(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.n = 1

    def test_one(self):
        self.assertEqual(self.n, 1)


class TestB(unittest.TestCase):
    def test_two(self):
        pass
`,
		"tests/test_c.py": "from tests.test_a import TestA\n\n\nclass TestC(TestA):\n    def test_three(self):\n        pass\n",
	})
	s := r.selectOn("setup", func() { r.edit("tests/test_a.py", "cls.n = 1", "cls.n = 2") })
	var got []string
	for _, g := range s.Groups {
		got = append(got, g.Command)
	}
	want := []string{"python -m pytest 'tests/test_a.py::TestA'", "python -m pytest 'tests/test_c.py'"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("a changed setUpClass: %q, want %q\n%s", got, want, selJSON(t, s))
	}
}

// A parametrised test is one test to the selection: a changed case list
// (its decorator) or a reached body selects the function's node id,
// which runs every case; a case list kept in a module-level name is a
// top-level line (the file whole).
func TestSelectPytestParametrised(t *testing.T) {
	r := newRepoOf(t, map[string]string{
		"pyproject.toml": "[project]\nname = \"calc\"\n",
		"calc.py":        "def double(x):\n    return x * 2\n\n\ndef half(x):\n    return x / 2\n",
		"tests/test_calc.py": `import pytest

from calc import double, half

CASES = [(2, 1), (4, 2)]


@pytest.mark.parametrize("x,want", [(1, 2), pytest.param(2, 4, id="two")])
def test_double(x, want):
    assert double(x) == want


@pytest.mark.parametrize("x,want", CASES)
def test_half(x, want):
    assert half(x) == want


class TestMore:
    @pytest.mark.parametrize("x", [1, 2])
    def test_positive(self, x):
        assert double(x) > 0


def test_plain():
    assert True
`,
	})
	commands := func(s *Selection) string {
		var got []string
		for _, g := range s.Groups {
			got = append(got, g.Command)
		}
		return strings.Join(got, "\n")
	}
	s := r.selectOn("case", func() { r.edit("tests/test_calc.py", `id="two")]`, `id="two"), (3, 6)]`) })
	if got, want := commands(s), "python -m pytest 'tests/test_calc.py::test_double'"; got != want {
		t.Errorf("a case added to a decorator's list: %q, want %q\n%s", got, want, selJSON(t, s))
	}
	// (What imports calc.py is also run cautiously, as for any reached
	// Python function.)
	s = r.selectOn("body", func() { r.edit("calc.py", "return x * 2", "return x + x") })
	if got, want := commands(s), "python -m pytest 'tests/test_calc.py::TestMore::test_positive' 'tests/test_calc.py::test_double'\npython -m pytest 'tests/test_calc.py'"; got != want || s.Groups[0].Cautious {
		t.Errorf("a reached function: %q, want %q\n%s", got, want, selJSON(t, s))
	}
	s = r.selectOn("list", func() { r.edit("tests/test_calc.py", "CASES = [(2, 1), (4, 2)]", "CASES = [(2, 1), (4, 2), (8, 4)]") })
	if got, want := commands(s), "python -m pytest 'tests/test_calc.py'"; got != want {
		t.Errorf("a module-level case list: %q, want %q\n%s", got, want, selJSON(t, s))
	}
}

// A function a package re-exports with from m import * is reached by a
// test importing the package: the star import is an import (networkx's
// GEXFWriter.add_parents, reached through nx.write_gexf, selected
// nothing before).
func TestSelectThroughStarReexports(t *testing.T) {
	r := newRepoOf(t, map[string]string{
		"pyproject.toml":          "[project]\nname = \"pkg\"\n",
		"pkg/__init__.py":         "from pkg.io import *\n",
		"pkg/io/__init__.py":      "from pkg.io.gexf import *\n",
		"pkg/io/gexf.py":          "def write(g):\n    return str(g)\n",
		"pkg/tests/test_write.py": "import pkg as p\n\n\ndef test_write():\n    assert p.write(1) == '1'\n",
		"other/test_other.py":     "def test_other():\n    assert True\n",
	})
	s := r.selectOn("write", func() { r.edit("pkg/io/gexf.py", "return str(g)", "return repr(g)") })
	got := commandsOf(t, s)
	if !strings.Contains(got, "pkg") || strings.Contains(got, "other") {
		t.Errorf("a function re-exported by star imports: %q\n%s", got, selJSON(t, s))
	}
}
