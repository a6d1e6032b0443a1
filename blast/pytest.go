package blast

import (
	"fmt"
	"path"
	"strings"

	"cchub/codegraph"
	"cchub/lang"
	"cchub/unidiff"
)

func init() { register(newPytest) }

// pytest runs the Python tests of the files it collects by default
// (test_*.py, *_test.py): test_* functions and the test methods of
// classes, unittest's TestCase classes among them. One command per test
// file naming its tests as node ids (path::Class::test), a whole file or
// a whole directory by its path, python -m pytest for the whole suite.
// Its packages are the directories holding Python files.
type pytest struct {
	head       files
	dirs       map[string]bool     // directories holding Python files in head
	testFiles  map[string]bool     // the files it collects that hold tests, in head
	subclasses map[string][]string // a class's name → the test files deriving from it; made on first need
	imports    *pyImports          // made on first need
	asked      []importAsk         // the files widened, in order, whose importing test files are still to select
}

// pyConfig are the files that change how pytest runs what is under their
// directory.
var pyConfig = map[string]bool{"conftest.py": true, "pytest.ini": true, "setup.cfg": true, "pyproject.toml": true, "tox.ini": true}

func newPytest(head, _ files, _ func(string) ([]byte, error)) runner {
	py := &pytest{head: head, dirs: map[string]bool{}, testFiles: map[string]bool{}}
	for p, f := range head {
		if f.Language == lang.Python {
			py.dirs[path.Dir(p)] = true
		}
		for _, d := range f.Defs {
			if d.Test && d.Language == lang.Python && py.collects(p) {
				py.testFiles[p] = true
			}
		}
	}
	return py
}

func (py *pytest) name() string   { return "pytest" }
func (py *pytest) family() string { return lang.Python }

// collects says whether pytest collects the file at p by default.
func (py *pytest) collects(p string) bool { return lang.NameOf(p) == lang.Python && lang.IsTestFile(p) }

func (py *pytest) testFile(p string) bool { return py.collects(p) && py.testFiles[p] }

// runs says whether pytest runs test d by its node id.
func (py *pytest) runs(d codegraph.Def) bool {
	return d.Language == lang.Python && d.Test && py.collects(d.Path)
}

func (py *pytest) fileWhole(s *selector, f string, sure bool, why string) {
	s.addWhole(scope{runner: py.name(), target: f}, sure, why)
}

func (py *pytest) dirWhole(s *selector, dir string, sure bool, why string) {
	s.addWhole(scope{runner: py.name(), target: dir, tree: true}, sure, why)
}

func (py *pytest) file(s *selector, at fileStep, f changedFile) bool {
	p, base, dir := f.path, path.Base(f.path), path.Dir(f.path)
	switch at {
	case stepBuild:
		if !pyConfig[base] {
			return false
		}
		if base == "conftest.py" && !f.gone {
			if names, ok := py.fixturesChanged(s, f); ok {
				py.fixtureUsers(s, dir, p, names)
				return true
			}
		}
		if dir == "." {
			s.everything(p + " changed: it configures every test under the root")
		} else {
			py.dirWhole(s, dir, true, p+" changed: it configures the tests under "+dir)
		}
		return true
	case stepTestdata:
		if py.dirs[f.owner] {
			py.dirWhole(s, f.owner, true, p+" changed: the tests under "+f.owner+" may read it")
			return true
		}
	case stepCode:
		if base == "__init__.py" {
			py.dirWhole(s, dir, true, p+" changed: it runs when its package is imported")
			s.wide(p, true, p+" changed")
		}
		switch {
		case f.gone:
			s.wide(p, true, p+" deleted or renamed: what imports it breaks")
		case s.in.head[p] == nil:
			s.wide(p, true, p+" changed and the code graph could not read it")
		}
		return true
	case stepBelow:
		// Data: the tests of a package above may read it.
		if pkg, ok := nearest(dir, py.dirs); ok {
			if pkg == "." {
				s.everything(p + " changed beside Python code at the root: any test may read it")
			} else {
				py.dirWhole(s, pkg, true, p+" changed in a Python package: its tests may read it")
			}
			return true
		}
	}
	return false
}

func (py *pytest) inertLines(st unidiff.Status) func(string) bool { return pyInertLines(st) }

func (py *pytest) changed(s *selector, c Change, why string) {
	d := c.Def
	switch {
	case py.runs(d):
		if c.Status != StatusRemoved {
			py.add(s, d, true, c.Status)
		}
		return
	case d.Test:
		return
	}
	p := c.file()
	switch {
	case c.Status == StatusModified && py.classFixture(s, d, why):
	case (s.isTestFile(d.Path) || c.Status == StatusRemoved && s.isTestFile(c.placeIn)) && py.head[p] != nil:
		py.fileWhole(s, p, true, why+": a helper of the file's tests")
	}
	if isFunc(d) && !s.isTestFile(d.Path) {
		// Python is dynamic: a function can be reached through names the
		// graph does not follow (an attribute set to it, getattr, a
		// mixin's self.method). Every test file that imports its module,
		// directly or not, may run it: cautious, whole.
		for _, f := range py.importGraph().importers(p) {
			why := fmt.Sprintf("imports %s, directly or not, and Python may reach %s by a name the graph does not follow", p, d.Qual())
			switch {
			case py.testFiles[f]:
				py.fileWhole(s, f, false, why)
			case path.Base(f) == "__init__.py" && py.hasTestsUnder(path.Dir(f)):
				// Importing a test module imports its package first (a
				// test that runs the module in a subprocess imports
				// nothing of it itself).
				py.dirWhole(s, path.Dir(f), false, path.Dir(f)+"/__init__.py "+why)
			}
		}
	}
	if !isFunc(d) {
		s.wide(p, true, why+": the code graph does not follow its uses")
	}
}

// pyClassFixtures are the methods a test class runs around its own
// tests: unittest's and pytest's.
var pyClassFixtures = map[string]bool{
	"setUp": true, "tearDown": true, "setUpClass": true, "tearDownClass": true,
	"setup_method": true, "teardown_method": true, "setup_class": true, "teardown_class": true,
	"setup": true, "teardown": true, "asyncSetUp": true, "asyncTearDown": true,
}

// classFixture selects, for a modified set-up or tear-down method d of a
// test class, that class's tests (the node id path::Class) and the test
// files of classes deriving from it, whole; false when d is no such
// method.
func (py *pytest) classFixture(s *selector, d codegraph.Def, why string) bool {
	if d.Type == "" || !pyClassFixtures[d.Name] || !py.testFile(d.Path) {
		return false
	}
	outer, class := "", d.Type
	if i := strings.LastIndex(d.Type, "."); i >= 0 {
		outer, class = d.Type[:i], d.Type[i+1:]
	}
	why += ": it sets up or tears down the tests of " + d.Type
	s.addTest(py, codegraph.Def{Name: class, Type: outer, Kind: "class", Path: d.Path, Start: d.Start, End: d.End, Test: true, Language: d.Language}, true, why)
	for _, f := range py.subclassFiles(class) {
		if f != d.Path {
			py.fileWhole(s, f, true, fmt.Sprintf("a test class here derives from %s (%s)", d.Type, why))
		}
	}
	return true
}

func (py *pytest) reached(s *selector, d codegraph.Def, sure bool, why string) bool {
	if !py.runs(d) {
		return false
	}
	py.add(s, d, sure, why)
	return true
}

// add selects test d; a mixin's test methods run as its subclasses'
// (class TestPyDecode(TestDecode, PyTest)): their files, whole, name
// them.
func (py *pytest) add(s *selector, d codegraph.Def, sure bool, why string) {
	if d.Type != "" {
		if files := py.subclassFiles(d.Type); len(files) > 0 {
			for _, f := range files {
				py.fileWhole(s, f, sure, fmt.Sprintf("%s is inherited by a test class here (%s)", d.Type, why))
			}
			return
		}
	}
	s.addTest(py, d, sure, why)
}

// subclassFiles is the test files defining a class that derives from a
// class named class (by its last name: the graph reads bases as
// written).
func (py *pytest) subclassFiles(class string) []string {
	if py.subclasses == nil {
		py.subclasses = map[string][]string{}
		for p, f := range py.head {
			if f.Language != lang.Python || !py.testFiles[p] {
				continue
			}
			for _, b := range f.Binds {
				if b.Kind != 'e' {
					continue
				}
				base := strings.TrimPrefix(b.Expr, ":")
				if i := strings.LastIndexByte(base, '.'); i >= 0 {
					base = base[i+1:]
				}
				if fs := py.subclasses[base]; len(fs) == 0 || fs[len(fs)-1] != p {
					py.subclasses[base] = append(py.subclasses[base], p)
				}
			}
		}
	}
	return py.subclasses[class]
}

// hasTestsUnder says whether a directory holds test files.
func (py *pytest) hasTestsUnder(dir string) bool {
	for f := range py.testFiles {
		if strings.HasPrefix(f, dir+"/") {
			return true
		}
	}
	return false
}

func (py *pytest) importGraph() *pyImports {
	if py.imports == nil {
		py.imports = newPyImports(py.head)
	}
	return py.imports
}

func (py *pytest) wide(s *selector, p string, sure bool, why string) {
	if py.collects(p) && s.in.head[p] != nil {
		py.fileWhole(s, p, sure, why)
		return
	}
	dir := path.Dir(p)
	if dir != "." {
		py.dirWhole(s, dir, sure, why)
	}
	// Its importers are found for all such files at once, when the groups
	// are made (selectImporters): a radius widens thousands.
	py.asked = append(py.asked, importAsk{p, sure, why})
	if dir == "." {
		// A module at the root: the tests in the root's directory.
		for f := range py.testFiles {
			if path.Dir(f) == "." {
				py.fileWhole(s, f, sure, why)
			}
		}
	}
}

// selectImporters selects the test files importing, directly or not, the
// files wide was asked about.
func (py *pytest) selectImporters(s *selector) {
	if len(py.asked) == 0 {
		return
	}
	py.importGraph().walk(py.asked, func(f string, a importAsk) {
		if py.testFiles[f] {
			py.fileWhole(s, f, a.sure, fmt.Sprintf("imports %s, directly or not (%s)", a.p, a.why))
		}
	})
	py.asked = nil
}

func (py *pytest) groups(s *selector) []built {
	py.selectImporters(s)
	var out []built
	for sc, w := range s.wholes(py) {
		if s.held(dirsAbove(py.name(), sc.target), w.sure) {
			continue
		}
		g := TestGroup{Runner: py.name(), Dir: sc.target, Tests: []string{}, Whole: true, Cautious: !w.sure, Why: w.why, Command: "python -m pytest"}
		var known int
		if sc.tree {
			if known = py.knownUnder(sc.target); known == 0 {
				continue
			}
			if sc.target != "." {
				g.Command += " " + quoteAlways(sc.target)
			}
		} else {
			if !py.testFiles[sc.target] {
				continue
			}
			g.Dir, g.File = path.Dir(sc.target), sc.target
			g.Command += " " + quoteAlways(sc.target)
			known = py.known(func(p string) bool { return p == sc.target })
		}
		out = append(out, built{TestGroup: g, known: known})
	}
	// Tests one by one: a group per file, and per sureness.
	in := func(d codegraph.Def) scope { return scope{runner: py.name(), target: d.Path} }
	above := func(sc scope) []scope { return dirsAbove(py.name(), sc.target) }
	for _, u := range s.units(py, in, above) {
		g := TestGroup{Runner: py.name(), Dir: path.Dir(u.target), File: u.target, Tests: []string{}, Cautious: !u.sure, Why: u.why}
		var quoted []string
		for _, d := range u.tests {
			id := u.target + "::" + d.Name
			if d.Type != "" {
				id = u.target + "::" + strings.ReplaceAll(d.Type, ".", "::") + "::" + d.Name
			}
			g.Tests = append(g.Tests, id)
			quoted = append(quoted, quoteAlways(id))
		}
		g.Command = "python -m pytest " + strings.Join(quoted, " ")
		out = append(out, built{TestGroup: g, known: len(g.Tests), tests: u.tests})
	}
	return out
}

// known counts the tests it runs in the files keep keeps.
func (py *pytest) known(keep func(string) bool) int {
	n := 0
	for p, f := range py.head {
		if !keep(p) {
			continue
		}
		for _, d := range f.Defs {
			if py.runs(d) {
				n++
			}
		}
	}
	return n
}

// knownUnder counts the tests under dir.
func (py *pytest) knownUnder(dir string) int {
	return py.known(func(p string) bool {
		return py.testFiles[p] && (dir == "." || strings.HasPrefix(p, dir+"/"))
	})
}

func (py *pytest) suite() []string {
	if len(py.testFiles) > 0 {
		return []string{"python -m pytest"}
	}
	return nil
}
