package blast

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"cchub/codegraph"
	"cchub/unidiff"
)

// selectIn is what test selection reads: the diff, both sides' graphs of
// the files, the changes, the head graph with removed definitions put
// back and each change's name in it, and a reader of a head file.
type selectIn struct {
	diffs      []unidiff.File
	base, head files
	cs         []Change
	x          *codegraph.Index
	names      []string
	read       func(path string, d unidiff.File) ([]byte, error)
	confirm    codegraph.Confirmer // nil: edges stay unconfirmed
}

// pick is why something is selected, and how surely.
type pick struct {
	sure bool
	why  string
	def  codegraph.Def
}

// scope is what a whole group runs: a Go package directory, a Python
// file, or a Python directory (and all under it).
type scope struct {
	runner string // go, pyfile, pydir
	target string
}

type selector struct {
	in    selectIn
	all   []string
	tests map[string]*pick // path\x00qual → the test
	whole map[scope]*pick

	goDirs      map[string]bool // dirs holding Go files (head, or base for deleted ones)
	goTestDirs  map[string]bool // dirs holding _test.go files in head
	pyDirs      map[string]bool // dirs holding Python files
	pyTestFiles map[string]bool // Python files holding tests, in head
	testLangs   map[string]int  // tests the graph knows, by language family
	importers   *importGraph
	widened     map[string]bool     // the files wide was asked about ("?" before one asked cautiously)
	pyWide      []wideAsk           // the Python files widened, in order, whose importing tests are still to select
	subclasses  map[string][]string // a Python class's name → the test files deriving from it
}

// selectTests chooses the tests the change can break: the tests among
// the changed and reached definitions, at any distance and through calls
// of any evidence, and, where the graph cannot see what a change does,
// whole packages, files or directories, or the whole suite, each with why.
func selectTests(ctx context.Context, in selectIn) *Selection {
	s := &selector{in: in, tests: map[string]*pick{}, whole: map[scope]*pick{},
		goDirs: map[string]bool{}, goTestDirs: map[string]bool{}, pyDirs: map[string]bool{},
		pyTestFiles: map[string]bool{}, testLangs: map[string]int{}}
	suite := 0
	for p, f := range in.head {
		dir := path.Dir(p)
		switch f.Language {
		case "go":
			s.goDirs[dir] = true
			if strings.HasSuffix(p, "_test.go") {
				s.goTestDirs[dir] = true
			}
		case "python":
			s.pyDirs[dir] = true
		}
		for _, d := range f.Defs {
			if d.Test {
				suite++
				s.testLangs[langFamily(d.Language)]++
				if d.Language == "python" && pyTestFile(p) {
					s.pyTestFiles[p] = true
				}
			}
		}
	}
	for p, f := range in.base {
		if f.Language == "go" {
			s.goDirs[path.Dir(p)] = true
		}
	}

	for _, d := range in.diffs {
		s.fileRules(d)
		s.topLevel(d)
	}
	for _, c := range in.cs {
		s.changed(c)
	}
	s.radius(ctx)
	s.pyWideImporters()
	return s.assemble(suite)
}

// langFamily puts TypeScript with JavaScript and C++ with C.
func langFamily(lang string) string {
	switch lang {
	case "typescript", "tsx":
		return "javascript"
	case "cpp":
		return "c"
	}
	return lang
}

// pyTestFile says whether pytest collects a file by default: test_*.py
// or *_test.py.
func pyTestFile(p string) bool {
	b := path.Base(p)
	return strings.HasSuffix(b, ".py") && (strings.HasPrefix(b, "test_") || strings.HasSuffix(b, "_test.py"))
}

// runnable says whether a test definition is one this selection can name
// to a runner: a Go test function, or a Python test in a file pytest
// collects.
func runnable(d codegraph.Def) bool {
	switch d.Language {
	case "go":
		return d.Test && d.Type == "" && d.Name != "TestMain"
	case "python":
		return d.Test && pyTestFile(d.Path)
	}
	return false
}

// isTestFile says whether a file is a Go or Python test file.
func (s *selector) isTestFile(p string) bool {
	return strings.HasSuffix(p, "_test.go") || pyTestFile(p) && s.pyTestFiles[p]
}

func (s *selector) everything(why string) { s.all = append(s.all, why) }

func (s *selector) addTest(d codegraph.Def, sure bool, why string) {
	if d.Language == "python" && d.Type != "" {
		if files := s.subclassFiles(d.Type); len(files) > 0 {
			// A mixin's tests run as its subclasses' (class TestPyDecode(TestDecode, PyTest)):
			// their files, whole, name them to a runner.
			for _, f := range files {
				s.addWhole(scope{"pyfile", f}, sure, fmt.Sprintf("%s is inherited by a test class here (%s)", d.Type, why))
			}
			if !s.pyTestFiles[d.Path] || len(files) > 0 {
				return
			}
		}
	}
	k := d.Path + "\x00" + d.Qual()
	if old, ok := s.tests[k]; ok && (old.sure || !sure) {
		return
	}
	s.tests[k] = &pick{sure: sure, why: why, def: d}
}

func (s *selector) addWhole(sc scope, sure bool, why string) {
	if old, ok := s.whole[sc]; ok && (old.sure || !sure) {
		return
	}
	s.whole[sc] = &pick{sure: sure, why: why}
}

// hasPyTestsUnder says whether a directory holds Python test files.
func (s *selector) hasPyTestsUnder(dir string) bool {
	for f := range s.pyTestFiles {
		if strings.HasPrefix(f, dir+"/") {
			return true
		}
	}
	return false
}

// subclassFiles is the Python test files defining a class that derives
// from a class named class (by its last name: the graph reads bases as
// written).
func (s *selector) subclassFiles(class string) []string {
	if s.subclasses == nil {
		s.subclasses = map[string][]string{}
		for p, f := range s.in.head {
			if f.Language != "python" || !s.pyTestFiles[p] {
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
				if fs := s.subclasses[base]; len(fs) == 0 || fs[len(fs)-1] != p {
					s.subclasses[base] = append(s.subclasses[base], p)
				}
			}
		}
	}
	return s.subclasses[class]
}

// goWhole selects a Go package's tests, all of them.
func (s *selector) goWhole(dir string, sure bool, why string) {
	s.addWhole(scope{"go", dir}, sure, why)
}

// Python configuration files that change how pytest runs what is under
// their directory.
var pyConfig = map[string]bool{"conftest.py": true, "pytest.ini": true, "setup.cfg": true, "pyproject.toml": true, "tox.ini": true}

// goModFiles change how every package builds.
var goModFiles = map[string]bool{"go.mod": true, "go.sum": true, "go.work": true, "go.work.sum": true}

// codeExt are extensions of source files in languages the code graph
// does not read: their changes cannot be followed.
var codeExt = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".rb": true, ".kt": true, ".kts": true,
	".swift": true, ".php": true, ".pl": true, ".pm": true, ".lua": true, ".scala": true, ".cs": true, ".fs": true,
	".m": true, ".mm": true, ".r": true, ".jl": true, ".ex": true, ".exs": true, ".erl": true, ".hs": true,
	".ml": true, ".dart": true, ".zig": true, ".nim": true, ".pyx": true, ".pxd": true, ".cu": true,
	".f90": true, ".groovy": true, ".clj": true, ".vue": true, ".svelte": true, ".proto": true, ".sql": true}

// docExt are documents: outside a code directory they change no test.
var docExt = map[string]bool{".md": true, ".rst": true, ".adoc": true, ".txt": true}

// fileRules selects what a changed file changes that its definitions do
// not say: build files, test data, files the graph does not read, files
// with build constraints, deleted and renamed files.
func (s *selector) fileRules(d unidiff.File) {
	var paths []string
	if d.Status != unidiff.Added && d.OldPath != "" {
		paths = append(paths, d.OldPath)
	}
	if d.Status != unidiff.Deleted && d.NewPath != "" && d.NewPath != d.OldPath {
		paths = append(paths, d.NewPath)
	}
	gone := d.Status == unidiff.Deleted || d.Status == unidiff.Renamed
	for _, p := range paths {
		s.fileRule(p, d, gone)
	}
}

func (s *selector) fileRule(p string, d unidiff.File, gone bool) {
	base, dir := path.Base(p), path.Dir(p)
	ext := strings.ToLower(path.Ext(p))
	switch {
	case goModFiles[base]:
		s.everything(p + " changed: every package may build differently")
		return
	case pyConfig[base]:
		if dir == "." {
			s.everything(p + " changed: it configures every test under the root")
		} else {
			s.pyDirWhole(dir, true, p+" changed: it configures the tests under "+dir)
		}
		return
	}
	if owner, ok := testdataOwner(p); ok {
		switch {
		case s.goDirs[owner]:
			s.goWhole(owner, true, p+" changed: the package's tests may read it")
		case s.pyDirs[owner]:
			s.pyDirWhole(owner, true, p+" changed: the tests under "+owner+" may read it")
		default:
			s.everything(p + " changed and no Go or Python package owns its testdata directory: any test may read it")
		}
		return
	}
	switch ext {
	case ".go":
		switch {
		case gone:
			s.goWhole(dir, true, p+" deleted or renamed: its package builds without it")
			s.wide(p, true, p+" deleted or renamed")
		case s.in.head[p] == nil:
			s.goWhole(dir, true, p+" changed and the code graph could not read it")
		case goBuildConstrained(p, d, s.in.read):
			s.goWhole(dir, true, p+" changed and has build constraints: the graph sees one build of the package")
		}
		return
	case ".py", ".pyi", ".pyw":
		if base == "__init__.py" {
			s.pyDirWhole(dir, true, p+" changed: it runs when its package is imported")
			s.wide(p, true, p+" changed")
		}
		switch {
		case gone:
			s.wide(p, true, p+" deleted or renamed: what imports it breaks")
		case s.in.head[p] == nil:
			s.wide(p, true, p+" changed and the code graph could not read it")
		}
		return
	}
	// Neither Go nor Python. In a Go package's directory it may be built
	// (cgo, assembly), embedded or read by the tests.
	if s.goDirs[dir] {
		s.goWhole(dir, true, p+" changed in the directory of a Go package: it may be built, embedded or read by its tests")
		return
	}
	if codeExt[ext] || codegraph.Indexed(p) {
		s.everything(fmt.Sprintf("%s changed: cchub selects Go and Python tests, and cannot follow what a %s file breaks", p, strings.TrimPrefix(ext, ".")))
		return
	}
	if docExt[ext] || strings.HasPrefix(p, ".github/") || base == ".gitignore" || base == ".gitattributes" || strings.HasPrefix(strings.ToUpper(base), "LICENSE") {
		return
	}
	// Data: a package above may embed it (Go), its tests may read it.
	if g, ok := s.nearest(dir, s.goDirs); ok {
		s.goWhole(g, true, p+" changed below a Go package: it may be embedded or read by its tests")
		return
	}
	if py, ok := s.nearest(dir, s.pyDirs); ok {
		if py == "." {
			s.everything(p + " changed beside Python code at the root: any test may read it")
		} else {
			s.pyDirWhole(py, true, p+" changed in a Python package: its tests may read it")
		}
	}
}

// nearest is dir or its nearest parent that is in dirs.
func (s *selector) nearest(dir string, dirs map[string]bool) (string, bool) {
	for {
		if dirs[dir] {
			return dir, true
		}
		if dir == "." || dir == "/" || dir == "" {
			return "", false
		}
		dir = path.Dir(dir)
	}
}

// testdataOwner is the directory holding the testdata directory p is in.
func testdataOwner(p string) (string, bool) {
	parts := strings.Split(p, "/")
	for i := len(parts) - 2; i >= 0; i-- {
		if parts[i] == "testdata" {
			if i == 0 {
				return ".", true
			}
			return strings.Join(parts[:i], "/"), true
		}
	}
	return "", false
}

var (
	goOS   = strings.Fields("aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos")
	goArch = strings.Fields("386 amd64 amd64p32 arm arm64 arm64be armbe loong64 mips mips64 mips64le mips64p32 mips64p32le mipsle ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm")
)

// goBuildConstrained says whether a Go file builds only sometimes: a
// //go:build or // +build line (in head, or deleted by the diff), or a
// _GOOS or _GOARCH name.
func goBuildConstrained(p string, d unidiff.File, read func(string, unidiff.File) ([]byte, error)) bool {
	name := strings.TrimSuffix(strings.TrimSuffix(path.Base(p), ".go"), "_test")
	parts := strings.Split(name, "_")
	if n := len(parts); n > 1 {
		last := parts[n-1]
		known := func(xs []string, x string) bool {
			for _, y := range xs {
				if x == y {
					return true
				}
			}
			return false
		}
		if known(goOS, last) || known(goArch, last) {
			return true
		}
	}
	constraint := func(line string) bool {
		t := strings.TrimSpace(line)
		return strings.HasPrefix(t, "//go:build") || strings.HasPrefix(t, "// +build")
	}
	for _, h := range d.Hunks {
		for _, l := range h.Lines {
			if constraint(l.Text) {
				return true
			}
		}
	}
	src, err := read(p, d)
	if err != nil {
		return true // cannot tell: as if it had
	}
	for _, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if constraint(t) {
			return true
		}
		if strings.HasPrefix(t, "package ") {
			return false // constraints come before the package clause
		}
	}
	return false
}

// topLevel selects for a changed line of a Go or Python file outside
// every definition (a package variable or constant, a module's body, a
// test file's setup) what could use the file: the graph follows calls,
// not these. Blank lines, comments and plain imports change nothing by
// themselves.
func (s *selector) topLevel(d unidiff.File) {
	if d.Binary {
		return
	}
	for _, h := range d.Hunks {
		// Whether the lines before, on each side, opened an import block
		// and did not close it: its ")" changes nothing either.
		inImports := map[unidiff.Kind]bool{}
		for _, l := range h.Lines {
			t := strings.TrimSpace(l.Text)
			if t == "import (" {
				inImports[l.Kind] = true
			}
			if t == ")" && inImports[l.Kind] {
				inImports[l.Kind] = false
				continue
			}
			var f *codegraph.File
			var line int
			var p string
			switch l.Kind {
			case unidiff.Add:
				f, line, p = s.in.head[d.NewPath], l.New, d.NewPath
			case unidiff.Delete:
				f, line, p = s.in.base[d.OldPath], l.Old, d.OldPath
			default:
				continue
			}
			if f == nil || f.Language != "go" && f.Language != "python" || inDef(f, line) || inert(f.Language, l.Text, d.Status) {
				continue
			}
			text := strings.TrimSpace(l.Text)
			if len(text) > 60 {
				text = text[:57] + "..."
			}
			s.wide(p, true, fmt.Sprintf("%s:%d changed outside every function (%s)", p, line, text))
			return
		}
	}
}

func inDef(f *codegraph.File, line int) bool {
	for _, d := range f.Defs {
		if d.Start <= line && line <= d.End {
			return true
		}
	}
	return false
}

var (
	goImportLine = regexp.MustCompile(`^(import\s+\(?\s*)?([A-Za-z][A-Za-z0-9_]*\s+)?"[^"]*"\s*(//.*)?$|^import\s*\($`)
	pyImportLine = regexp.MustCompile(`^(import|from)\s`)
)

// inert says whether a line outside every definition changes nothing by
// itself: blank, a comment (not a //go: directive), an import that binds
// a name (not a blank or dot import: those run or expose code), the
// package clause of a file added or deleted whole.
func inert(lang, text string, st unidiff.Status) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return true
	}
	if lang == "go" {
		switch {
		case strings.HasPrefix(t, "//go:"):
			return false
		case strings.HasPrefix(t, "//"):
			return true
		case strings.HasPrefix(t, "package ") && (st == unidiff.Added || st == unidiff.Deleted):
			return true
		}
		return goImportLine.MatchString(t)
	}
	return strings.HasPrefix(t, "#") || pyImportLine.MatchString(t)
}

// changed selects for a changed definition: a changed test itself; a
// helper of a test file, its whole package or file; a type, class or
// Go init, whose uses the graph does not follow, what can use it.
func (s *selector) changed(c Change) {
	d := c.Def
	why := fmt.Sprintf("%s %s (%s)", c.Status, d.Qual(), place(d))
	switch {
	case d.Language == "go" && d.Test && d.Name == "TestMain":
		s.goWhole(path.Dir(d.Path), true, why+": it runs every test of the package")
		return
	case runnable(d):
		if c.Status != StatusRemoved {
			s.addTest(d, true, c.Status)
		}
		return
	case d.Test:
		if d.Language != "go" && d.Language != "python" {
			s.everything(fmt.Sprintf("%s: a %s test; cchub selects Go and Python tests", why, d.Language))
		}
		return
	}
	if s.isTestFile(d.Path) || c.Status == StatusRemoved && s.isTestFile(c.placeIn) {
		p := d.Path
		if c.Status == StatusRemoved {
			p = c.placeIn
		}
		if d.Language == "go" {
			s.goWhole(path.Dir(p), true, why+": a helper of the package's tests")
		} else if s.in.head[p] != nil {
			s.addWhole(scope{"pyfile", p}, true, why+": a helper of the file's tests")
		}
	}
	if d.Language == "python" && isFunc(d) && !s.isTestFile(d.Path) {
		// Python is dynamic: a function can be reached through names the
		// graph does not follow (an attribute set to it, getattr, a
		// mixin's self.method). Every test file that imports its module,
		// directly or not, may run it: cautious, whole.
		p := d.Path
		if c.Status == StatusRemoved {
			p = c.placeIn
		}
		for _, f := range s.imports().pyImporters(p) {
			why := fmt.Sprintf("imports %s, directly or not, and Python may reach %s by a name the graph does not follow", p, d.Qual())
			switch {
			case s.pyTestFiles[f]:
				s.addWhole(scope{"pyfile", f}, false, why)
			case path.Base(f) == "__init__.py" && s.hasPyTestsUnder(path.Dir(f)):
				// Importing a test module imports its package first (a
				// test that runs the module in a subprocess imports
				// nothing of it itself).
				s.pyDirWhole(path.Dir(f), false, path.Dir(f)+"/__init__.py "+why)
			}
		}
	}
	if !isFunc(d) || d.Language == "go" && d.Name == "init" && d.Type == "" {
		p := d.Path
		if c.Status == StatusRemoved {
			p = c.placeIn
		}
		s.wide(p, true, why+": the code graph does not follow its uses")
	}
}

// wide selects, for a change in a file whose effect the graph cannot
// follow (a package variable, a type, a module's body), its whole package
// or directory and whatever imports it, directly or not.
func (s *selector) wide(p string, sure bool, why string) {
	// Widened already, as surely: the same scopes, whose first reason
	// stands.
	if s.widened[p] || !sure && s.widened["?"+p] {
		return
	}
	if s.widened == nil {
		s.widened = map[string]bool{}
	}
	if sure {
		s.widened[p] = true
	} else {
		s.widened["?"+p] = true
	}
	dir := path.Dir(p)
	switch {
	case strings.HasSuffix(p, "_test.go"):
		// Only its own package's tests see a test file.
		s.goWhole(dir, sure, why)
		return
	case pyTestFile(p) && s.in.head[p] != nil:
		s.addWhole(scope{"pyfile", p}, sure, why)
		return
	}
	switch langFamily(languageOf(p)) {
	case "go":
		s.goWhole(dir, sure, why)
		g := s.imports()
		for _, d := range g.goImporters(dir) {
			s.goWhole(d, sure, fmt.Sprintf("imports the package of %s, directly or not (%s)", p, why))
		}
	case "python":
		if dir != "." {
			s.pyDirWhole(dir, sure, why)
		}
		// Its importers are found for all such files at once, at the end
		// (pyWideImporters): a radius widens thousands.
		s.pyWide = append(s.pyWide, wideAsk{p, sure, why})
		if dir == "." {
			// A module at the root: the tests in the root's directory.
			for f := range s.pyTestFiles {
				if path.Dir(f) == "." {
					s.addWhole(scope{"pyfile", f}, sure, why)
				}
			}
		}
	}
}

func (s *selector) pyDirWhole(dir string, sure bool, why string) {
	s.addWhole(scope{"pydir", dir}, sure, why)
}

func languageOf(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		return "go"
	case ".py", ".pyi", ".pyw":
		return "python"
	}
	return ""
}

// radius selects the tests the changes reach through calls, at any
// distance: sure when a path of confirmed, exact or import calls reaches
// them, cautious otherwise; and, for a call at a file's top level of what
// the change reaches, what runs that file.
func (s *selector) radius(ctx context.Context) {
	var names []string
	seen := map[string]bool{}
	for _, n := range s.in.names {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return
	}
	all, sureKeys := s.blast(ctx, names)
	for _, re := range all.Reached {
		d := re.Def
		if !d.Test {
			continue
		}
		sure := sureKeys[d.Path+"\x00"+d.Qual()]
		why := fmt.Sprintf("reached via %s [%s]", strings.Join(re.Via, " <- "), re.Confidence)
		switch {
		case d.Language == "go" && d.Name == "TestMain":
			s.goWhole(path.Dir(d.Path), sure, "TestMain "+why)
		case runnable(d):
			s.addTest(d, sure, why)
		case d.Language != "go" && d.Language != "python":
			s.everything(fmt.Sprintf("the change reaches %s, a %s test (%s); cchub selects Go and Python tests", d.Qual(), d.Language, d.Path))
		}
	}
	for _, e := range all.TopLevel {
		callee := e.Name
		if e.Callee != nil {
			callee = e.Callee.Qual()
		}
		s.wide(e.Path, codegraph.Rank(e.Confidence) <= codegraph.Rank(codegraph.Imported),
			fmt.Sprintf("%s:%d calls %s at the top level [%s]: it runs when the package or module loads", e.Path, e.Line, callee, e.Confidence))
	}
}

// blast is the radius of names through every call, and the keys
// (path\x00qual) of the definitions reached through sure calls only. A
// name the graph cannot follow selects what could use its file.
func (s *selector) blast(ctx context.Context, names []string) (*codegraph.BlastAnswer, map[string]bool) {
	ask := func(ns []string, min string) (*codegraph.BlastAnswer, error) {
		return s.in.x.BlastWith(ctx, ns, codegraph.BlastOptions{Depth: -1, MinEvidence: min, AllPossible: true, Confirm: s.in.confirm})
	}
	all, err := ask(names, "")
	if err != nil {
		// One name at a time, to keep those the graph can follow.
		var ok []string
		for _, n := range names {
			if _, err := ask([]string{n}, ""); err != nil {
				p, _, _ := strings.Cut(n, ":")
				s.wide(p, true, fmt.Sprintf("the code graph cannot follow the callers of %s: %v", n, err))
				continue
			}
			ok = append(ok, n)
		}
		names = ok
		if all, err = ask(names, ""); err != nil || len(names) == 0 {
			return &codegraph.BlastAnswer{}, nil
		}
	}
	sure := map[string]bool{}
	if a, err := ask(names, codegraph.Imported); err == nil {
		for _, re := range a.Reached {
			sure[re.Def.Path+"\x00"+re.Def.Qual()] = true
		}
	}
	return all, sure
}

// assemble makes the groups: a sure whole group holds every other of its
// package, file or directory; a cautious whole group holds the cautious
// ones.
func (s *selector) assemble(suite int) *Selection {
	sel := &Selection{Version: TestsVersion, Groups: []TestGroup{}, Counts: SelectionCounts{Suite: suite}}
	sel.Suite = s.suiteCommands()
	if len(s.all) > 0 {
		sort.Strings(s.all)
		sel.All = &AllTests{Why: strings.Join(dedupe(s.all), "; ")}
		sel.Counts.Selected = suite
		return sel
	}
	// covered says whether a whole group of the given sureness holds
	// test file f (sure only: only sure groups; else any).
	covered := func(runner, f string, sureOnly bool) bool {
		check := func(sc scope) bool {
			w, ok := s.whole[sc]
			return ok && (w.sure || !sureOnly)
		}
		if runner == "go" {
			return check(scope{"go", path.Dir(f)})
		}
		if check(scope{"pyfile", f}) {
			return true
		}
		for d := path.Dir(f); ; d = path.Dir(d) {
			if check(scope{"pydir", d}) {
				return true
			}
			if d == "." {
				return false
			}
		}
	}
	// Whole groups.
	for sc, w := range s.whole {
		switch sc.runner {
		case "go":
			if !s.goTestDirs[sc.target] {
				continue // no test to run
			}
			pkg, cmd := s.goCommand(sc.target, nil)
			sel.Groups = append(sel.Groups, TestGroup{Runner: "go", Dir: sc.target, Package: pkg, Tests: []string{},
				Whole: true, Cautious: !w.sure, Why: w.why, Command: cmd})
		case "pyfile":
			if !s.pyTestFiles[sc.target] || coveredByDir(s.whole, sc.target, w.sure) {
				continue
			}
			sel.Groups = append(sel.Groups, TestGroup{Runner: "pytest", Dir: path.Dir(sc.target), File: sc.target, Tests: []string{},
				Unittest: []string{pyModule(sc.target)}, Whole: true, Cautious: !w.sure, Why: w.why,
				Command: "python -m pytest " + quoteAlways(sc.target)})
		case "pydir":
			if s.knownUnder(sc.target) == 0 || coveredByParentDir(s.whole, sc.target, w.sure) {
				continue
			}
			cmd := "python -m pytest"
			if sc.target != "." {
				cmd += " " + quoteAlways(sc.target)
			}
			sel.Groups = append(sel.Groups, TestGroup{Runner: "pytest", Dir: sc.target, Tests: []string{},
				Whole: true, Cautious: !w.sure, Why: w.why, Command: cmd})
		}
	}
	// Tests one by one: a group per Go package or Python file, and per
	// sureness.
	type gkey struct {
		runner, where string
		sure          bool
	}
	byGroup := map[gkey][]*pick{}
	for _, t := range s.tests {
		runner, where := "go", path.Dir(t.def.Path)
		if t.def.Language == "python" {
			runner, where = "pytest", t.def.Path
		}
		if covered(runner, t.def.Path, true) || !t.sure && covered(runner, t.def.Path, false) {
			continue
		}
		k := gkey{runner, where, t.sure}
		byGroup[k] = append(byGroup[k], t)
	}
	for k, ts := range byGroup {
		// One order, whatever the map's: two tests may share a name in
		// one package (files for different platforms).
		sort.Slice(ts, func(i, j int) bool {
			a, b := ts[i].def, ts[j].def
			if a.Qual() != b.Qual() {
				return a.Qual() < b.Qual()
			}
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			return a.Start < b.Start
		})
		var whys []string
		g := TestGroup{Runner: k.runner, Cautious: !k.sure, Tests: []string{}}
		for _, t := range ts {
			whys = append(whys, t.def.Qual()+": "+t.why)
		}
		g.Why = strings.Join(whys, "; ")
		if k.runner == "go" {
			var names []string
			for _, t := range ts {
				names = append(names, t.def.Name)
			}
			sort.Strings(names)
			names = dedupe(names)
			g.Dir, g.Tests = k.where, names
			g.Package, g.Command = s.goCommand(k.where, names)
			g.Unittest = nil
		} else {
			g.Dir, g.File = path.Dir(k.where), k.where
			var quoted []string
			for _, t := range ts {
				id := k.where + "::" + t.def.Name
				if t.def.Type != "" {
					id = k.where + "::" + strings.ReplaceAll(t.def.Type, ".", "::") + "::" + t.def.Name
					g.Unittest = append(g.Unittest, pyModule(k.where)+"."+t.def.Type+"."+t.def.Name)
				}
				g.Tests = append(g.Tests, id)
				quoted = append(quoted, quoteAlways(id))
			}
			g.Command = "python -m pytest " + strings.Join(quoted, " ")
		}
		sel.Groups = append(sel.Groups, g)
	}
	sort.Slice(sel.Groups, func(i, j int) bool {
		a, b := sel.Groups[i], sel.Groups[j]
		if a.Cautious != b.Cautious {
			return !a.Cautious
		}
		if a.Runner != b.Runner {
			return a.Runner < b.Runner
		}
		if a.Dir != b.Dir {
			return a.Dir < b.Dir
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Whole && !b.Whole
	})
	// Sure tests also inside a cautious whole group are counted once.
	sureIn := map[string]int{}
	for _, g := range sel.Groups {
		if !g.Whole && !g.Cautious {
			sureIn[g.Runner+"\x00"+g.Dir+"\x00"+g.File] += len(g.Tests)
		}
	}
	for _, g := range sel.Groups {
		n := len(g.Tests)
		if g.Whole {
			switch {
			case g.Runner == "go":
				n = s.knownIn(func(p string) bool { return path.Dir(p) == g.Dir && strings.HasSuffix(p, "_test.go") })
			case g.File != "":
				n = s.knownIn(func(p string) bool { return p == g.File })
			default:
				n = s.knownUnder(g.Dir)
			}
		}
		if g.Whole && g.Cautious {
			n = max(0, n-sureIn[g.Runner+"\x00"+g.Dir+"\x00"+g.File])
		}
		sel.Counts.Selected += n
		if g.Cautious {
			sel.Counts.Cautious += n
		}
	}
	sel.Counts.Selected = min(sel.Counts.Selected, suite)
	sel.Counts.Cautious = min(sel.Counts.Cautious, suite)
	return sel
}

// coveredByDir says whether a Python directory group holds file f (a
// sure one, for a sure f).
func coveredByDir(whole map[scope]*pick, f string, sure bool) bool {
	for d := path.Dir(f); ; d = path.Dir(d) {
		if w, ok := whole[scope{"pydir", d}]; ok && (w.sure || !sure) {
			return true
		}
		if d == "." {
			return false
		}
	}
}

// coveredByParentDir says whether a Python directory group above dir
// holds it.
func coveredByParentDir(whole map[scope]*pick, dir string, sure bool) bool {
	if dir == "." {
		return false
	}
	return coveredByDir(whole, dir, sure)
}

// knownIn counts the runnable tests of the files keep keeps.
func (s *selector) knownIn(keep func(string) bool) int {
	n := 0
	for p, f := range s.in.head {
		if !keep(p) {
			continue
		}
		for _, d := range f.Defs {
			if runnable(d) {
				n++
			}
		}
	}
	return n
}

// knownUnder counts the Python tests under dir.
func (s *selector) knownUnder(dir string) int {
	return s.knownIn(func(p string) bool {
		return s.pyTestFiles[p] && (dir == "." || strings.HasPrefix(p, dir+"/"))
	})
}

// goModuleOf is the directory of the go.mod a directory's package is in
// ("." at the root; "." too when there is none).
func (s *selector) goModuleOf(dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if s.in.head[path.Join(d, "go.mod")] != nil {
			return d
		}
		if d == "." {
			return "."
		}
	}
}

// goCommand is the package (relative to its module) and the go test
// command of a directory's tests: names, or all of them when nil. A
// module below the root runs with go test -C.
func (s *selector) goCommand(dir string, names []string) (string, string) {
	mod := s.goModuleOf(dir)
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

// suiteCommands run every test the graph knows of.
func (s *selector) suiteCommands() []string {
	var out []string
	var mods []string
	for p, f := range s.in.head {
		if path.Base(p) == "go.mod" && f != nil {
			mods = append(mods, path.Dir(p))
		}
	}
	sort.Strings(mods)
	for _, m := range mods {
		if m == "." {
			out = append(out, "go test ./...")
		} else {
			out = append(out, "go test -C "+shellQuote(m)+" ./...")
		}
	}
	if len(s.pyTestFiles) > 0 {
		out = append(out, "python -m pytest")
	}
	return out
}

// pyModule is the dotted module name of a Python file.
func pyModule(p string) string {
	m := strings.TrimSuffix(p, path.Ext(p))
	m = strings.TrimSuffix(m, "/__init__")
	return strings.ReplaceAll(m, "/", ".")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoteAlways quotes s for a POSIX shell.
func quoteAlways(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func dedupe(xs []string) []string {
	var out []string
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// importGraph is who imports what, for Go packages and Python modules.
type importGraph struct {
	goImp  map[string][]importer // package path → the directories importing it
	goPath func(dir string) string
	// pyImp is, for each dotted name a Python file imports (and each
	// of its prefixes), the files importing it.
	pyImp map[string][]string
	// The answers already given: a radius asks for the same files many
	// times.
	goMemo, pyMemo map[string][]string
	tails          map[string][]string // a Python file → the tails of its dotted name
}

type importer struct {
	dir  string
	test bool // only from a _test.go file
}

func (s *selector) imports() *importGraph {
	if s.importers != nil {
		return s.importers
	}
	g := &importGraph{goImp: map[string][]importer{}, pyImp: map[string][]string{}}
	g.goPath = func(dir string) string {
		mod := s.goModuleOf(dir)
		f := s.in.head[path.Join(mod, "go.mod")]
		if f == nil || len(f.Imports) == 0 {
			return ""
		}
		if dir == mod {
			return f.Imports[0].Target
		}
		return f.Imports[0].Target + "/" + strings.TrimPrefix(strings.TrimPrefix(dir, mod), "/")
	}
	var pyFiles []string
	for p, f := range s.in.head {
		switch f.Language {
		case "go":
			for _, im := range f.Imports {
				g.goImp[im.Target] = append(g.goImp[im.Target], importer{dir: path.Dir(p), test: strings.HasSuffix(p, "_test.go")})
			}
		case "python":
			pyFiles = append(pyFiles, p)
		}
	}
	sort.Strings(pyFiles)
	for _, p := range pyFiles {
		seen := map[string]bool{}
		for _, im := range s.in.head[p].Imports {
			for t := strings.TrimLeft(im.Target, "."); t != "" && !seen[t]; {
				seen[t] = true
				g.pyImp[t] = append(g.pyImp[t], p)
				i := strings.LastIndex(t, ".")
				if i < 0 {
					break
				}
				t = t[:i]
			}
		}
	}
	s.importers = g
	return g
}

// goImporters is the directories whose packages import dir's, directly
// or through other packages (a test file's import counts, but is not
// followed further).
func (g *importGraph) goImporters(dir string) []string {
	if out, ok := g.goMemo[dir]; ok {
		return out
	}
	if g.goMemo == nil {
		g.goMemo = map[string][]string{}
	}
	out := g.goImportersOf(dir)
	g.goMemo[dir] = out
	return out
}

func (g *importGraph) goImportersOf(dir string) []string {
	seen := map[string]bool{dir: true}
	var out []string
	queue := []string{dir}
	followed := map[string]bool{dir: true}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		pp := g.goPath(d)
		if pp == "" {
			continue
		}
		for _, im := range g.goImp[pp] {
			if !seen[im.dir] {
				seen[im.dir] = true
				out = append(out, im.dir)
			}
			if !im.test && !followed[im.dir] {
				followed[im.dir] = true
				queue = append(queue, im.dir)
			}
		}
	}
	sort.Strings(out)
	return out
}

// pyImporters is the Python files importing p (which may be gone),
// directly or not. A module is matched by its dotted name or any tail of
// it (a relative import, a source root), generously.
func (g *importGraph) pyImporters(p string) []string {
	if out, ok := g.pyMemo[p]; ok {
		return out
	}
	if g.pyMemo == nil {
		g.pyMemo, g.tails = map[string][]string{}, map[string][]string{}
	}
	seen := map[string]bool{p: true}
	queue := []string{p}
	var out []string
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, tail := range g.tailsOf(f) {
			for _, im := range g.pyImp[tail] {
				if !seen[im] {
					seen[im] = true
					out = append(out, im)
					queue = append(queue, im)
				}
			}
		}
	}
	sort.Strings(out)
	g.pyMemo[p] = out
	return out
}

// wideAsk is one Python file wide selects the importing tests of.
type wideAsk struct {
	p    string
	sure bool
	why  string
}

// pyWideImporters selects the Python test files importing, directly or
// not, the files wide was asked about: each credited to the first ask
// that reaches it (sure asks first), in one walk of the import graph
// whatever the number of asks. A file an earlier ask reached has all its
// importers reached by that ask too, so a later walk stops there.
func (s *selector) pyWideImporters() {
	if len(s.pyWide) == 0 {
		return
	}
	g := s.imports()
	if g.tails == nil {
		g.tails = map[string][]string{}
	}
	for _, sure := range []bool{true, false} {
		visited := map[string]bool{}
		for _, a := range s.pyWide {
			if sure && !a.sure {
				continue // the sure walk follows sure asks only
			}
			queue := []string{a.p}
			for len(queue) > 0 {
				f := queue[0]
				queue = queue[1:]
				for _, tail := range g.tailsOf(f) {
					for _, im := range g.pyImp[tail] {
						if visited[im] || im == a.p {
							continue
						}
						visited[im] = true
						queue = append(queue, im)
						if s.pyTestFiles[im] {
							s.addWhole(scope{"pyfile", im}, a.sure, fmt.Sprintf("imports %s, directly or not (%s)", a.p, a.why))
						}
					}
				}
			}
		}
	}
	s.pyWide = nil
}

// tailsOf is every tail of f's dotted module name (a.b.c, b.c, c).
func (g *importGraph) tailsOf(f string) []string {
	if t, ok := g.tails[f]; ok {
		return t
	}
	parts := strings.Split(pyModule(f), ".")
	t := make([]string, len(parts))
	for i := range parts {
		t[i] = strings.Join(parts[i:], ".")
	}
	g.tails[f] = t
	return t
}

// SelectFor selects the tests that changes to the named definitions
// (Name, Type.Name or path:Name) can break, in the workspace's graph x,
// as --tests does for a diff but without one: through calls, at any
// distance, and whole packages where a definition's uses are not calls
// (a type, a Go init, a test file's helper).
func SelectFor(ctx context.Context, x *codegraph.Index, names []string) (*Selection, error) {
	a, err := x.BlastWith(ctx, names, codegraph.BlastOptions{Depth: 1})
	if err != nil {
		return nil, err
	}
	fs, err := x.Files(ctx)
	if err != nil {
		return nil, err
	}
	head := files{}
	for _, f := range fs {
		head[f.Path] = f
	}
	in := selectIn{base: files{}, head: head, x: x}
	for _, d := range a.Starts {
		in.cs = append(in.cs, Change{Def: d, Status: "named"})
		in.names = append(in.names, d.Path+":"+d.Qual())
	}
	return selectTests(ctx, in), nil
}
