package blast

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"cchub/codegraph"
	"cchub/lang"
	"cchub/unidiff"
)

func init() { register(newGoTest) }

// goTest is Go's testing package, run by go test: the TestXxx, ExampleXxx
// and FuzzXxx functions of a package's _test.go files (the external test
// package's with its directory's), one command per package naming them
// in -run, go test ./... per module for the whole suite. Its packages are
// the directories holding Go files.
type goTest struct {
	head     files
	read     func(string) ([]byte, error) // a head file's content
	pkgs     map[string]bool              // directories holding Go files, in head or (deleted ones) base
	testDirs map[string]bool              // directories holding _test.go files in head
	imports  *goImports                   // made on first need
	suites   map[string]*goSuites         // each package's test suites, read on first need (gosuite.go)
	ginkgo   map[string][]ginkgoNode      // each Ginkgo test file's nodes, scanned on first need (ginkgo.go)
	linked   map[string]bool              // the packages whose test binaries link a changed file's package (links)
	linkAll  bool                         // the imports cannot tell which do: all of them
}

// links says whether the test binary of the package in dir links the
// changed code: dir is the directory of a changed file (any file: a
// deleted one, cgo's C, an embedded one), or its package or tests
// import one such package, directly or not. Only such a binary can run
// what changed; a call the graph links by name alone (name-only,
// possible) from a package that links none of it cannot. When the
// imports cannot say (a change under vendor/, whose packages go by
// other import paths; a package no go.mod names), every package links.
func (g *goTest) links(s *selector, dir string) bool {
	if g.linked == nil {
		if g.imports == nil {
			g.imports = newGoImports(g.head)
		}
		g.linked = map[string]bool{}
		// The files changed: the diff's, and the definitions' (a selection
		// for named definitions has no diff).
		var changed []string
		for _, d := range s.in.diffs {
			changed = append(changed, d.OldPath, d.NewPath)
		}
		for _, c := range s.in.cs {
			changed = append(changed, c.Def.Path, c.file())
		}
		if len(changed) == 0 {
			g.linkAll = true
		}
		for _, p := range changed {
			if p == "" {
				continue
			}
			root := path.Dir(p)
			if g.linked[root] {
				continue
			}
			if g.pkgs[root] && g.imports.pathOf(root) == "" || slices.Contains(strings.Split(root, "/"), "vendor") {
				g.linkAll = true
			}
			g.linked[root] = true
			for _, im := range g.imports.importers(root) {
				g.linked[im] = true
			}
		}
	}
	return g.linkAll || g.linked[dir]
}

func newGoTest(head, base files, read func(string) ([]byte, error)) runner {
	g := &goTest{head: head, read: read, pkgs: map[string]bool{}, testDirs: map[string]bool{}, suites: map[string]*goSuites{}, ginkgo: map[string][]ginkgoNode{}}
	for p, f := range head {
		if f.Language == lang.Go {
			g.pkgs[path.Dir(p)] = true
			if g.testFile(p) {
				g.testDirs[path.Dir(p)] = true
			}
		}
	}
	for p, f := range base {
		if f.Language == lang.Go {
			g.pkgs[path.Dir(p)] = true
		}
	}
	return g
}

func (g *goTest) name() string   { return "go" }
func (g *goTest) family() string { return lang.Go }

func (g *goTest) testFile(p string) bool { return lang.NameOf(p) == lang.Go && lang.IsTestFile(p) }

// runs says whether go test runs d by its name: a test function, not
// TestMain (which runs the others).
func (g *goTest) runs(d codegraph.Def) bool {
	return d.Language == lang.Go && d.Test && d.Type == "" && d.Name != "TestMain"
}

// runsOnLoad says whether d is an init function, which runs when its
// package loads.
func (g *goTest) runsOnLoad(d codegraph.Def) bool {
	return d.Language == lang.Go && d.Name == "init" && d.Type == "" && isFunc(d)
}

// testMain says whether d is a package's TestMain, which runs every test
// of the package.
func (g *goTest) testMain(d codegraph.Def) bool {
	return d.Language == lang.Go && d.Test && d.Name == "TestMain"
}

// whole selects the tests of the package in dir, all of them.
func (g *goTest) whole(s *selector, dir string, sure bool, why string) {
	s.addWhole(scope{runner: g.name(), target: dir}, sure, why)
}

func (g *goTest) file(s *selector, at fileStep, f changedFile) bool {
	p, dir := f.path, path.Dir(f.path)
	switch at {
	case stepBuild:
		if goModFiles[path.Base(p)] {
			s.everything(p + " changed: every package may build differently")
			return true
		}
	case stepTestdata:
		if g.pkgs[f.owner] {
			g.whole(s, f.owner, true, p+" changed: the package's tests may read it")
			return true
		}
	case stepCode:
		switch {
		case f.gone:
			g.whole(s, dir, true, p+" deleted or renamed: its package builds without it")
			s.wide(p, true, p+" deleted or renamed")
		case s.in.head[p] == nil:
			g.whole(s, dir, true, p+" changed and the code graph could not read it")
		case !s.builds(p):
			// The target does not build it: no test there sees it.
		case goBuildConstrained(p, f.diff, s.in.read):
			g.whole(s, dir, true, p+" changed and has build constraints: the graph sees one build of the package")
		}
		return true
	case stepBeside:
		// In a package's directory it may be built (cgo, assembly),
		// embedded or read by the tests.
		if g.pkgs[dir] {
			g.whole(s, dir, true, p+" changed in the directory of a Go package: it may be built, embedded or read by its tests")
			return true
		}
	case stepBelow:
		// A package above may embed it, its tests may read it.
		if pkg, ok := nearest(dir, g.pkgs); ok {
			g.whole(s, pkg, true, p+" changed below a Go package: it may be embedded or read by its tests")
			return true
		}
	}
	return false
}

func (g *goTest) inertLines(st unidiff.Status) func(string) bool { return goInertLines(st) }

func (g *goTest) changed(s *selector, c Change, why string) {
	d := c.Def
	switch {
	case g.testMain(d):
		g.whole(s, path.Dir(d.Path), true, why+": it runs every test of the package")
		return
	case g.runs(d):
		if c.Status != StatusRemoved {
			s.addTest(g, d, true, c.Status)
		}
		return
	case d.Test:
		return
	case c.Status != StatusRemoved && g.suiteMethod(d):
		g.suiteReached(s, d, true, c.Status)
		return
	}
	if s.isTestFile(d.Path) || c.Status == StatusRemoved && s.isTestFile(c.placeIn) {
		g.whole(s, path.Dir(c.file()), true, why+": a helper of the package's tests")
	}
	if !isFunc(d) || d.Name == "init" && d.Type == "" {
		s.wide(c.file(), true, why+": the code graph does not follow its uses")
	}
	if iface := g.calledOutside(d); iface != "" && c.Status != StatusRemoved && !s.isTestFile(d.Path) {
		s.wide(c.file(), false, fmt.Sprintf("%s %s: the standard library may call it (%s)", d.Qual(), why, iface))
	}
}

func (g *goTest) reached(s *selector, d codegraph.Def, sure bool, why string) bool {
	switch {
	case g.testMain(d):
		g.whole(s, path.Dir(d.Path), sure, "TestMain "+why)
	case g.runs(d):
		s.addTest(g, d, sure, why)
	case g.suiteMethod(d):
		g.suiteReached(s, d, sure, why)
	default:
		return false
	}
	return true
}

// suiteReached selects what runs suite method d: its suite's entry
// tests, filtered to it, or the package whole when its tests do not say
// which test runs the suite.
func (g *goTest) suiteReached(s *selector, d codegraph.Def, sure bool, why string) {
	dir := path.Dir(d.Path)
	if _, entries := g.suitesOf(dir).entriesOf(d.Type); len(entries) == 0 {
		g.whole(s, dir, sure, d.Qual()+" "+why+": a method of "+d.Type+", a type of the package's tests that no test is seen to run (a suite not registered with Suite or suite.Run, or a helper called through an interface)")
		return
	}
	s.addTest(g, d, sure, why)
}

func (g *goTest) wide(s *selector, p string, sure bool, why string) {
	dir := path.Dir(p)
	g.whole(s, dir, sure, why)
	if g.testFile(p) {
		return // only its own package's tests see a test file
	}
	if g.imports == nil {
		g.imports = newGoImports(g.head)
	}
	for _, d := range g.imports.importers(dir) {
		// An importer whose binary does not link the change runs the
		// line without reaching it (dir may link it by its tests only).
		if !s.linkedDir(lang.Go, d) {
			continue
		}
		g.whole(s, d, sure, fmt.Sprintf("imports the package of %s, directly or not (%s)", p, why))
	}
}

func (g *goTest) groups(s *selector) []built {
	var out []built
	for sc, w := range s.wholes(g) {
		if !g.testDirs[sc.target] {
			continue // no test to run
		}
		pkg, cmd := g.command(sc.target, nil)
		out = append(out, built{TestGroup: TestGroup{Runner: g.name(), Dir: sc.target, Package: pkg, Tests: []string{},
			Whole: true, Cautious: !w.sure, Why: w.why, Command: cmd, importPath: g.importPath(sc.target)}, known: g.known(sc.target)})
	}
	// Tests one by one: a group per package, and per sureness.
	for _, u := range s.units(g, func(d codegraph.Def) scope { return scope{runner: g.name(), target: path.Dir(d.Path)} }, nil) {
		var names []string
		var f suiteFilters
		for _, d := range u.tests {
			if d.Type != "" {
				f.add(g.suitesOf(u.target), d)
				continue
			}
			names = append(names, d.Name)
		}
		names = append(names, f.entries...)
		sort.Strings(names)
		names = dedupe(names)
		pkg, cmd := g.command(u.target, names)
		cmd += f.flags()
		out = append(out, built{TestGroup: TestGroup{Runner: g.name(), Dir: u.target, Package: pkg, Tests: names,
			Cautious: !u.sure, Why: u.why, Command: cmd, importPath: g.importPath(u.target)}, known: len(names), tests: u.tests})
	}
	return out
}

// importPath is the import path of the package in dir (goImports.pathOf).
func (g *goTest) importPath(dir string) string {
	if g.imports == nil {
		g.imports = newGoImports(g.head)
	}
	return g.imports.pathOf(dir)
}

// known counts the tests go test runs in the package in dir.
func (g *goTest) known(dir string) int {
	n := 0
	for p, f := range g.head {
		if path.Dir(p) != dir || !g.testFile(p) {
			continue
		}
		for _, d := range f.Defs {
			if g.runs(d) || codegraph.RunsAsTest(d) && g.suiteMethod(d) {
				n++
			}
		}
	}
	return n
}

// command is the package (relative to its module) and the go test
// command of a directory's tests: names, or all of them when nil. A
// module below the root runs with go test -C.
func (g *goTest) command(dir string, names []string) (string, string) {
	mod := goModuleOf(g.head, dir)
	rel := dir
	if mod != "." {
		rel = strings.TrimPrefix(strings.TrimPrefix(dir, mod), "/")
		if rel == "" {
			rel = "."
		}
	}
	pkg := "./" + rel
	if rel == "." {
		pkg = "."
	}
	cmd := "go test"
	if mod != "." {
		cmd += " -C " + shellQuote(mod)
	}
	cmd += " " + shellQuote(pkg)
	if names != nil {
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = regexp.QuoteMeta(n)
		}
		cmd += " -run " + quoteAlways("^("+strings.Join(quoted, "|")+")$")
	}
	return pkg, cmd
}

func (g *goTest) suite() []string {
	var out []string
	for _, m := range goModules(g.head) {
		if m == "." {
			out = append(out, "go test ./...")
		} else {
			out = append(out, "go test -C "+shellQuote(m)+" ./...")
		}
	}
	return out
}

// stdlibCalls are the method names the standard library calls through
// its interfaces — sort.Interface, container/heap, fmt's Stringer and
// Formatter, error and errors' wrappers, io's readers and writers,
// encoding's marshalers, net/http's handlers and transports,
// database/sql's scanners and valuers, flag.Value, sync.Locker,
// io/fs, hash — each with the interface named in a why. A method so
// named may run from code the graph does not see (sort.Sort(byName(x))
// runs byName.Len), so its package's tests, and its importers', may run
// it: cautiously.
var stdlibCalls = map[string]string{
	"Len": "sort.Interface", "Less": "sort.Interface", "Swap": "sort.Interface",
	"Push": "heap.Interface", "Pop": "heap.Interface",
	"String": "fmt.Stringer", "GoString": "fmt.GoStringer", "Format": "fmt.Formatter",
	"Error": "error", "Unwrap": "errors' wrappers", "Is": "errors.Is", "As": "errors.As", "Timeout": "net.Error", "Temporary": "net.Error",
	"Read": "io.Reader", "Write": "io.Writer", "Close": "io.Closer", "Seek": "io.Seeker",
	"ReadAt": "io.ReaderAt", "WriteAt": "io.WriterAt", "ReadFrom": "io.ReaderFrom", "WriteTo": "io.WriterTo",
	"ReadByte": "io.ByteReader", "UnreadByte": "io.ByteScanner", "WriteByte": "io.ByteWriter",
	"ReadRune": "io.RuneReader", "UnreadRune": "io.RuneScanner", "WriteString": "io.StringWriter",
	"MarshalJSON": "json.Marshaler", "UnmarshalJSON": "json.Unmarshaler", "MarshalText": "encoding.TextMarshaler",
	"UnmarshalText": "encoding.TextUnmarshaler", "MarshalBinary": "encoding.BinaryMarshaler",
	"UnmarshalBinary": "encoding.BinaryUnmarshaler", "MarshalXML": "xml.Marshaler", "UnmarshalXML": "xml.Unmarshaler",
	"GobEncode": "gob.GobEncoder", "GobDecode": "gob.GobDecoder",
	"ServeHTTP": "http.Handler", "RoundTrip": "http.RoundTripper",
	"Scan": "sql.Scanner", "Value": "driver.Valuer",
	"Set": "flag.Value", "Lock": "sync.Locker", "Unlock": "sync.Locker",
	"Open": "fs.FS", "Stat": "fs.File", "ReadDir": "fs.ReadDirFS", "ReadFile": "fs.ReadFileFS",
	"Sum": "hash.Hash", "Reset": "hash.Hash", "Size": "hash.Hash", "BlockSize": "hash.Hash",
	"Deadline": "context.Context", "Done": "context.Context", "Err": "context.Context",
}

// calledOutside is the standard library interface through which code
// the graph does not see may call Go method d ("" when none).
func (g *goTest) calledOutside(d codegraph.Def) string {
	if d.Language != lang.Go || d.Type == "" || d.Kind != "method" || d.Test {
		return ""
	}
	return stdlibCalls[d.Name]
}
