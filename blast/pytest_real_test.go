package blast

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"testing"

	"cchub/workspace/wstest"
)

// pytestPython is the python make test puts Debian's pinned pytest
// beside (.tools/pytest/bin/python): the test is skipped without it, or
// fails under CCHUB_REQUIRE_PEERS=1.
func pytestPython(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", ".tools", "pytest", "bin", "python"))
	if err == nil {
		_, err = os.Stat(p)
	}
	wstest.RequirePeer(t, "pytest (make test unpacks Debian's python3-pytest into .tools/pytest)", err == nil)
	wstest.RequireProgram(t, "python3")
	return p
}

// pytestOutcome is a -rA summary line: the outcome and the node id.
var pytestOutcome = regexp.MustCompile(`(?m)^(PASSED|FAILED|ERROR) (\S+)`)

// TestPytestSelectionRunsWithPytest makes mutants of a pytest project
// (fixtures in conftest.py, parametrised tests, a unittest class with
// setUpClass) and runs, with the real pytest, the whole suite and the
// commands the selection gives: every test that fails in the suite
// fails in the selection's run too, and the selection runs less than
// the suite where the change says so.
func TestPytestSelectionRunsWithPytest(t *testing.T) {
	python := pytestPython(t)
	r := newRepoOf(t, map[string]string{
		"pyproject.toml": "[project]\nname = \"bank\"\n\n[tool.pytest.ini_options]\naddopts = \"-p no:cacheprovider\"\n",
		"bank.py": `class Account:
    def __init__(self, balance):
        self.balance = balance

    def deposit(self, n):
        self.balance += n
        return self.balance


def fee(n):
    return n // 10


def double(x):
    return x * 2
`,
		"tests/__init__.py": "",
		"tests/conftest.py": `import pytest

from bank import Account


@pytest.fixture
def account():
    return Account(100)


@pytest.fixture(params=[10, 20])
def amount(request):
    return request.param


@pytest.fixture
def rich(account):
    account.deposit(1000)
    return account
`,
		"tests/test_account.py": `def test_deposit(account, amount):
    assert account.deposit(amount) == 100 + amount


def test_rich(rich):
    assert rich.balance == 1100
`,
		"tests/test_fee.py": `import pytest

from bank import fee


@pytest.mark.parametrize("n,want", [(100, 10), pytest.param(55, 5, id="odd")])
def test_fee(n, want):
    assert fee(n) == want


def test_plain():
    assert 1 + 1 == 2
`,
		"tests/test_unit.py": `import unittest

from bank import double


class TestDouble(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = double(1)

    def test_base(self):
        self.assertEqual(self.base, 2)


class TestOther(unittest.TestCase):
    def test_other(self):
        self.assertTrue(True)
`,
	})
	home := t.TempDir()
	bin := filepath.Dir(python)
	run := func(command string) map[string]string {
		t.Helper()
		cmd := exec.Command("sh", "-c", command+" -rA -q -p no:cacheprovider")
		cmd.Dir = r.dir
		cmd.Env = append(os.Environ(), "HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1")
		out, err := cmd.CombinedOutput()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("%s: %v\n%s", command, err, out)
		}
		got := map[string]string{}
		for _, m := range pytestOutcome.FindAllStringSubmatch(string(out), -1) {
			if got[m[2]] != "FAILED" && got[m[2]] != "ERROR" {
				got[m[2]] = m[1]
			}
		}
		if len(got) == 0 {
			t.Fatalf("%s ran no test:\n%s", command, out)
		}
		return got
	}
	if whole := run("python -m pytest"); len(whole) != 8 || slices.ContainsFunc(slices.Collect(maps.Values(whole)), func(v string) bool { return v != "PASSED" }) {
		t.Fatalf("the unchanged suite: %v", whole)
	}
	for _, m := range []struct {
		name      string
		file, old string
		new       string
		// mostRun bounds how many of the suite's 8 tests the selection
		// runs: it must not run everything when the change says less.
		mostRun int
	}{
		// A fixture selects the files using it (test_account.py's 3).
		{"fixture", "tests/conftest.py", "return Account(100)", "return Account(99)", 3},
		{"param-fixture", "tests/conftest.py", "params=[10, 20]", `params=[10, "20"]`, 3},
		{"case", "tests/test_fee.py", `pytest.param(55, 5, id="odd")`, `pytest.param(55, 6, id="odd")`, 2},
		// A reached function: its tests, sure, and cautiously the files
		// importing bank.py (Python may reach it by a name the graph
		// does not follow), not test_account.py, which does not.
		{"reached", "bank.py", "return n // 10", "return n // 11", 5},
		{"setupclass", "tests/test_unit.py", "cls.base = double(1)", "cls.base = double(2)", 1},
		{"reached-setupclass", "bank.py", "return x * 2", "return x * 3", 5},
	} {
		s := r.selectOn(m.name, func() { r.edit(m.file, m.old, m.new) })
		r.git("checkout", "-q", m.name)
		whole := run("python -m pytest")
		var failing []string
		for id, v := range whole {
			if v != "PASSED" {
				failing = append(failing, id)
			}
		}
		sort.Strings(failing)
		if len(failing) == 0 {
			t.Fatalf("%s: the mutant fails no test", m.name)
		}
		ran := map[string]string{}
		for _, c := range s.Commands() {
			for id, v := range run(c) {
				if ran[id] != "FAILED" && ran[id] != "ERROR" {
					ran[id] = v
				}
			}
		}
		for _, id := range failing {
			if v := ran[id]; v != "FAILED" && v != "ERROR" {
				t.Errorf("%s: %s fails in the suite, but the selection's run says %q\n%s", m.name, id, v, selJSON(t, s))
			}
		}
		if len(ran) > m.mostRun {
			t.Errorf("%s: the selection ran %d tests (%v), more than %d", m.name, len(ran), slices.Sorted(maps.Keys(ran)), m.mostRun)
		}
		r.git("checkout", "-q", "base")
	}
}
