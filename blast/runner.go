package blast

import (
	"slices"
	"strings"

	"cchub/codegraph"
	"cchub/lang"
	"cchub/unidiff"
)

// runner is one test framework, as test selection sees it: the layout it
// learnt of the workspace (which directories are packages, which files
// hold its tests), what a change the code graph cannot follow means for
// its tests, and the groups and commands that run them. The selector
// (tests.go) knows no language: it asks the runners of a file's or a
// definition's language family, and every runner for the rest.
//
// A runner selects through the selector it is given: s.addTest for a
// test by itself, s.addWhole for a scope of its own (a scope's runner is
// its name), s.wide for a file whose users the graph cannot see,
// s.everything for the whole suite. Each runner lives in a file of its
// own that registers it (register); adding one is adding a file.
type runner interface {
	// name names the runner in its groups and scopes ("go", "pytest").
	name() string
	// family is the language family of the code it tests (lang.Go).
	family() string
	// testFile says whether the file at p holds tests it runs.
	testFile(p string) bool
	// file selects what a changed file means for its tests at one step
	// of the file rules, and says whether the file is accounted for.
	file(s *selector, at fileStep, f changedFile) bool
	// inertLines reads the lines of one side of a hunk, in order, of a
	// file of its family: true for a line outside every definition that
	// changes nothing by itself (blank, a comment, a plain import).
	inertLines(st unidiff.Status) func(line string) bool
	// changed selects for a changed definition of its family: the test
	// itself, or what the graph does not follow (a test file's helper, a
	// type, code that runs on load). why names the change.
	changed(s *selector, c Change, why string)
	// reached selects a test of its family the change reaches (sure or
	// not, why), and says whether it runs it.
	reached(s *selector, d codegraph.Def, sure bool, why string) bool
	// wide selects, for a change to the file p of its family whose effect
	// the graph cannot follow, the scopes that can see it: its package
	// and whatever imports it.
	wide(s *selector, p string, sure bool, why string)
	// groups makes its groups from what was selected (s.wholes, s.units).
	groups(s *selector) []built
	// suite is the commands that run every test it knows of.
	suite() []string
}

// namer is a framework that runs the tests of another runner's groups
// of its family too, and names them in the group its own way (unittest:
// the ids python -m unittest takes). It selects nothing.
type namer interface {
	family() string
	annotate(g *TestGroup, tests []codegraph.Def)
}

// fileStep is one step of the rules for a changed file, in the order the
// selector takes them; the first runner that accounts for the file at a
// step ends its rules.
type fileStep int

const (
	// stepBuild: a file that configures how the runner builds or runs
	// (go.mod, conftest.py).
	stepBuild fileStep = iota
	// stepTestdata: a file under a testdata directory (f.owner holds the
	// directory above it); no runner owning it selects everything.
	stepTestdata
	// stepCode: a source file of the runner's family; every runner of the
	// family is asked, and the file's rules end there.
	stepCode
	// stepBeside: a file of no runner's family in a directory: built,
	// embedded or read beside a package (Go's cgo, assembly, embeds).
	// Code of other languages and documents come after.
	stepBeside
	// stepBelow: a data file below a package, which it may embed or its
	// tests read.
	stepBelow
)

// changedFile is one path of a changed file, as its file rules see it.
type changedFile struct {
	path  string
	diff  unidiff.File
	gone  bool   // deleted, or renamed away
	owner string // stepTestdata: the directory holding its testdata directory
}

// built is a group a runner made, with the count of the tests the graph
// knows it runs (every test of a whole scope) and its tests one by one,
// in the group's order.
type built struct {
	TestGroup
	known int
	tests []codegraph.Def
}

// makers and namers are what the runners' files register; newRunners
// makes a selection's runners from them.
var (
	makers []func(head, base files, read func(string) ([]byte, error)) runner
	namers []namer
)

// register adds a runner to every selection: newRunner makes it from the head
// and base graphs of the files and a reader of any file of head (a
// package.json, a config file). Runners are asked in the order of their
// families in the language table (lang.All), then in the order they were
// registered (their files' init order).
func register(newRunner func(head, base files, read func(string) ([]byte, error)) runner) {
	makers = append(makers, newRunner)
}

// registerNamer adds a namer to every selection.
func registerNamer(n namer) { namers = append(namers, n) }

func newRunners(head, base files, read func(string) ([]byte, error)) []runner {
	rs := make([]runner, len(makers))
	for i, m := range makers {
		rs[i] = m(head, base, read)
	}
	slices.SortStableFunc(rs, func(a, b runner) int { return familyRank(a.family()) - familyRank(b.family()) })
	return rs
}

// familyRank is the place of a family in the language table.
func familyRank(family string) int {
	for i, l := range lang.All() {
		if l.Name == family {
			return i
		}
	}
	return len(lang.All())
}

// languages names the families the runners test, joined as a list with
// last ("and", "or"): "Go and Python".
func languages(rs []runner, last string) string {
	var ts []string
	for _, r := range rs {
		t := r.family()
		if l := lang.ByName(t); l != nil {
			t = l.Title
		}
		if !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	if len(ts) < 2 {
		return strings.Join(ts, "")
	}
	return strings.Join(ts[:len(ts)-1], ", ") + " " + last + " " + ts[len(ts)-1]
}
