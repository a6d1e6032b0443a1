package blast

import (
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"cchub/codegraph"
	"cchub/lang"
)

// Go test suites: frameworks whose tests are methods of a suite type,
// run by reflection from one entry test of the package — check.v1
// (gocheck: `var _ = Suite(&S{})`, run by a test calling TestingT) and
// testify (`suite.Run(t, new(S))` in a test). No code calls a suite
// method, so the radius ends there: a reached suite method selects its
// suite's entry tests, with the framework's filter naming the methods.

// A suite framework.
const (
	frameworkCheck   = "check.v1"
	frameworkTestify = "testify"
	frameworkGinkgo  = "ginkgo"
)

var (
	checkImport   = regexp.MustCompile(`"(gopkg\.in/check\.v1|github\.com/go-check/check)"`)
	testifyImport = regexp.MustCompile(`"github\.com/stretchr/testify/suite"`)
	// checkSuite registers a gocheck suite: Suite(&S{}), check.Suite(new(S)).
	checkSuite = regexp.MustCompile(`\bSuite\(\s*(?:&\s*|new\(\s*)([A-Za-z_][A-Za-z0-9_]*)`)
	// checkEntry runs the registered suites: TestingT(t), check.TestingT(t).
	checkEntry = regexp.MustCompile(`\bTestingT\(`)
	// testifyRun runs one testify suite: suite.Run(t, new(S)), suite.Run(t, &S{…}).
	testifyRun = regexp.MustCompile(`\bRun\(\s*[A-Za-z_][A-Za-z0-9_]*\s*,\s*(?:&\s*|new\(\s*)([A-Za-z_][A-Za-z0-9_]*)`)
	// testifyAnyRun is any suite.Run, whatever names the suite.
	testifyAnyRun = regexp.MustCompile(`\bsuite\.Run\(`)
)

// goSuites is what one package's test files say of their suites.
type goSuites struct {
	frameworks map[string]bool     // the suite frameworks its test files import
	types      map[string]string   // suite type → its framework
	entries    map[string][]string // suite type → the tests that run it
	checkRuns  []string            // the tests that run every gocheck suite (TestingT)
	opaque     []string            // tests that run a testify suite not named at the call
	ginkgoRuns []string            // the tests that run the package's Ginkgo specs (RunSpecs)
	// suiteLike are the test files' types that look like suites: a
	// method named Test… or a framework's fixture. Another type's methods
	// are helpers, called as such (the radius follows their callers).
	suiteLike map[string]bool
}

// suiteFixtures are the methods check.v1 and testify call on a suite
// besides its tests.
var suiteFixtures = map[string]bool{
	"SetUpSuite": true, "SetUpTest": true, "TearDownTest": true, "TearDownSuite": true, // check.v1
	"SetupSuite": true, "SetupTest": true, "BeforeTest": true, "AfterTest": true, // testify
	"SetupSubTest": true, "TearDownSubTest": true, "HandleStats": true,
}

// suitesOf reads the suites of the package in dir (made once).
func (g *goTest) suitesOf(dir string) *goSuites {
	if st, ok := g.suites[dir]; ok {
		return st
	}
	st := &goSuites{frameworks: map[string]bool{}, types: map[string]string{}, entries: map[string][]string{}, suiteLike: map[string]bool{}}
	g.suites[dir] = st
	if g.read == nil {
		return st
	}
	var files []string
	for p := range g.head {
		if path.Dir(p) == dir && g.testFile(p) {
			files = append(files, p)
			for _, d := range g.head[p].Defs {
				if d.Type != "" && (codegraph.RunsAsTest(d) || suiteFixtures[d.Name]) {
					st.suiteLike[d.Type] = true
				}
			}
		}
	}
	sort.Strings(files)
	for _, p := range files {
		src, err := g.read(p)
		if err != nil {
			continue
		}
		text := string(src)
		check, testify, ginkgo := checkImport.MatchString(text), testifyImport.MatchString(text), ginkgoImport.MatchString(text)
		if !check && !testify && !ginkgo {
			continue
		}
		lines := strings.Split(text, "\n")
		// enclosing names the test function holding line i (1-based).
		enclosing := func(i int) string {
			for _, d := range g.head[p].Defs {
				if d.Start <= i && i <= d.End && g.runs(d) {
					return d.Name
				}
			}
			return ""
		}
		// runners are the tests holding a line entry matches.
		runners := func(entry *regexp.Regexp) []string {
			var out []string
			for i, line := range lines {
				if entry.MatchString(line) {
					if name := enclosing(i + 1); name != "" {
						out = append(out, name)
					}
				}
			}
			return out
		}
		if check {
			st.frameworks[frameworkCheck] = true
			for _, m := range checkSuite.FindAllStringSubmatch(text, -1) {
				st.types[m[1]] = frameworkCheck
			}
			st.checkRuns = append(st.checkRuns, runners(checkEntry)...)
		}
		if ginkgo {
			st.frameworks[frameworkGinkgo] = true
			st.ginkgoRuns = append(st.ginkgoRuns, runners(ginkgoEntry)...)
		}
		if testify {
			st.frameworks[frameworkTestify] = true
			for i, line := range lines {
				if !testifyAnyRun.MatchString(line) {
					continue
				}
				name := enclosing(i + 1)
				if name == "" {
					continue
				}
				if m := testifyRun.FindStringSubmatch(line); m != nil {
					st.types[m[1]] = frameworkTestify
					st.entries[m[1]] = append(st.entries[m[1]], name)
				} else {
					st.opaque = append(st.opaque, name)
				}
			}
		}
	}
	return st
}

// suiteHolder is a runner whose tests can be methods of a suite type
// (goTest).
type suiteHolder interface{ suiteMethod(codegraph.Def) bool }

// suiteMethod says whether d is a method of a suite type (registered, or
// with a test or fixture method) in a test file of a package whose tests
// are suites: reached, it is run (or set up) by the suite's entry tests.
func (g *goTest) suiteMethod(d codegraph.Def) bool {
	if d.Language != lang.Go || d.Type == "" || d.Type == ginkgoType || !g.testFile(d.Path) {
		return false
	}
	st := g.suitesOf(path.Dir(d.Path))
	return (st.frameworks[frameworkCheck] || st.frameworks[frameworkTestify]) && (st.types[d.Type] != "" || st.suiteLike[d.Type])
}

// entriesOf are the tests that run suite type typ, with its framework;
// none when the package's tests do not say (the caller selects the
// package whole).
func (st *goSuites) entriesOf(typ string) (framework string, entries []string) {
	switch framework = st.types[typ]; framework {
	case frameworkCheck:
		entries = st.checkRuns
	case frameworkTestify:
		entries = append(append([]string(nil), st.entries[typ]...), st.opaque...)
	}
	return framework, entries
}

// suiteFilters is what a group's suite methods add to its command: the
// entry tests to -run, and each framework's filter (nil: none, the
// suites run whole).
type suiteFilters struct {
	entries      []string
	check        []string // -check.f alternatives: Suite.TestMethod, or Suite for all of it
	testify      []string // -testify.m method names
	testifyWhole bool     // some testify suite runs whole: no -testify.m
	ginkgo       []string // -ginkgo.focus alternatives
}

func (f *suiteFilters) add(st *goSuites, d codegraph.Def) {
	if d.Type == ginkgoType {
		f.entries = append(f.entries, st.ginkgoRuns...)
		f.ginkgo = append(f.ginkgo, d.Name)
		return
	}
	framework, entries := st.entriesOf(d.Type)
	f.entries = append(f.entries, entries...)
	switch framework {
	case frameworkCheck:
		if codegraph.RunsAsTest(d) {
			f.check = append(f.check, regexp.QuoteMeta(d.Type)+`\.`+regexp.QuoteMeta(d.Name))
		} else {
			f.check = append(f.check, regexp.QuoteMeta(d.Type)) // its fixture or helper: the whole suite
		}
	case frameworkTestify:
		if codegraph.RunsAsTest(d) && len(st.opaque) == 0 {
			f.testify = append(f.testify, regexp.QuoteMeta(d.Name))
		} else {
			f.testifyWhole = true
		}
	}
}

// flags are the framework filters for the command line, quoted.
func (f *suiteFilters) flags() string {
	out := ""
	if len(f.check) > 0 {
		out += " -check.f " + quoteAlways("^("+strings.Join(dedupe(slices.Sorted(slices.Values(f.check))), "|")+")$")
	}
	if len(f.testify) > 0 && !f.testifyWhole {
		out += " -testify.m " + quoteAlways("^("+strings.Join(dedupe(slices.Sorted(slices.Values(f.testify))), "|")+")$")
	}
	if len(f.ginkgo) > 0 {
		out += " -ginkgo.focus " + quoteAlways(strings.Join(dedupe(slices.Sorted(slices.Values(f.ginkgo))), "|"))
	}
	return out
}
