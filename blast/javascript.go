package blast

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"cchub/codegraph"
	"cchub/lang"
	"cchub/unidiff"
)

func init() { register(newJSTests) }

// jsFramework is one JavaScript test runner (vitest, jest, node --test,
// mocha, tape): how a project says it runs its tests, and the commands
// that run some of them. Each lives in a file of its own that registers
// it (registerJS); the JavaScript runner (jsTests) does the rest.
type jsFramework struct {
	name string
	// script matches a package.json script that runs it.
	script *regexp.Regexp
	// configs are the files in a project's directory that configure it;
	// key the package.json field that does.
	configs []string
	key     string
	// packages are the dependencies that bring it.
	packages []string
	// byName: it runs tests by their full names (a suite's titles and the
	// test's, joined by spaces) matched by a regular expression; else only
	// whole files.
	byName bool
	// ownName: it matches a test's pattern against the test's own title
	// (node 20), which runs the tests of a suite that matches; else
	// against its full name.
	ownName bool
	// command runs, from the project's directory, the tests of file (""
	// every test of the project) whose names match pattern ("" all of
	// the file's).
	command func(file, pattern string) string
}

var jsFrameworks []*jsFramework

// registerJS adds a JavaScript test runner; they are tried in the order
// registered where a project names several ways (its config files, its
// dependencies) and only one may run.
func registerJS(f *jsFramework) { jsFrameworks = append(jsFrameworks, f) }

// jsTests runs the tests of JavaScript and TypeScript projects with the
// framework each project uses, found from its package.json (the test
// script, the package.json's own fields, the dependencies) and config
// files: tests by name where the framework takes names, whole files or
// the project where the graph cannot see (titles made at run time,
// snapshots, setup files, configuration, package.json and lockfiles). A
// project is the directory of the nearest package.json above a file.
type jsTests struct {
	head      files
	read      func(string) ([]byte, error)
	testFiles map[string]bool // JavaScript files holding tests in head
	projects  map[string]*jsProject
	dirs      map[string]string // a directory → its project's directory ("" none)
	scans     map[string]*jsScan
	imports   map[string][]string // a JavaScript file → the files importing it; made on first need
	// wordIndex: a test file → its identifiers → the lines naming them
	// (jsvalues.go); valuesDone: the definitions (path\x00name) looked up.
	wordIndex  map[string]map[string][]jsMention
	valuesDone map[string]bool
	lines      map[string][]string // a file's lines, for the heads of its methods and classes
	// classes and methods index head's classes by name, its methods by
	// Type.Name (jsoverrides.go); made on first need.
	classes, methods map[string][]codegraph.Def
}

// jsProject is one package.json's directory and what runs its tests.
type jsProject struct {
	dir    string
	fw     *jsFramework // nil: none, or several, found (why)
	why    string
	config string          // the texts of package.json and the config files: where setup files are named
	named  map[string]bool // the paths config names, relative to dir; made on first need
}

// jsScan is a test file's blocks, or why they cannot be named.
type jsScan struct {
	blocks []jsBlock
	failed string
}

func newJSTests(head, _ files, read func(string) ([]byte, error)) runner {
	j := &jsTests{head: head, read: read, testFiles: map[string]bool{}, projects: map[string]*jsProject{}, dirs: map[string]string{}, scans: map[string]*jsScan{}}
	for p, f := range head {
		if lang.Family(f.Language) == lang.JavaScript && lang.IsTestFile(p) && jsDefinesTests(f) {
			j.testFiles[p] = true
		}
	}
	return j
}

// jsDefinesTests says whether the file defines tests: a test the graph
// knows, or a call of a test function it does not make one of (a title
// in a variable, options before the callback: test('x', {timeout}, fn)).
func jsDefinesTests(f *codegraph.File) bool {
	for _, d := range f.Defs {
		if d.Test {
			return true
		}
	}
	for _, c := range f.Calls {
		if jsTestFns[c.Name] || jsTestFns[c.Qualifier] {
			return true
		}
	}
	return false
}

func (j *jsTests) name() string           { return "javascript" }
func (j *jsTests) family() string         { return lang.JavaScript }
func (j *jsTests) testFile(p string) bool { return j.testFiles[p] }

// projectDir is the directory of the nearest package.json above the file
// or directory p, "" when there is none.
func (j *jsTests) projectDir(dir string) string {
	if d, ok := j.dirs[dir]; ok {
		return d
	}
	var found string
	if _, err := j.read(path.Join(dir, "package.json")); err == nil {
		found = dir
	} else if dir != "." {
		found = j.projectDir(path.Dir(dir))
	}
	j.dirs[dir] = found
	return found
}

// projectOf is the project of the file at p, nil when no package.json is
// above it.
func (j *jsTests) projectOf(p string) *jsProject {
	dir := j.projectDir(path.Dir(p))
	if dir == "" {
		return nil
	}
	if pr, ok := j.projects[dir]; ok {
		return pr
	}
	pr := j.detect(dir)
	j.projects[dir] = pr
	return pr
}

// packageJSON is what detection reads of a package.json.
type packageJSON struct {
	Scripts         map[string]string          `json:"scripts"`
	Dependencies    map[string]json.RawMessage `json:"dependencies"`
	DevDependencies map[string]json.RawMessage `json:"devDependencies"`
	Fields          map[string]json.RawMessage `json:"-"`
}

// detect finds what runs the tests of the project in dir: the framework
// its test scripts run; else the one its config files (or package.json
// fields) configure; else the one it depends on. Two at one step, or
// none at all, leave it unknown.
func (j *jsTests) detect(dir string) *jsProject {
	pr := &jsProject{dir: dir}
	pkgPath := path.Join(dir, "package.json")
	src, err := j.read(pkgPath)
	var pkg packageJSON
	if err == nil {
		err = json.Unmarshal(src, &pkg)
	}
	if err == nil {
		err = json.Unmarshal(src, &pkg.Fields)
	}
	if err != nil {
		pr.why = fmt.Sprintf("%s could not be read (%v)", pkgPath, err)
		return pr
	}
	pr.config = string(src)
	var scripts []string
	for name, s := range pkg.Scripts {
		if name == "test" || strings.HasPrefix(name, "test:") || strings.HasPrefix(name, "test-") {
			scripts = append(scripts, s)
		}
	}
	sort.Strings(scripts)
	var byScript, byConfig, byDep []*jsFramework
	var configs []string
	for _, fw := range jsFrameworks {
		for _, s := range scripts {
			if fw.script.MatchString(s) {
				byScript = append(byScript, fw)
				break
			}
		}
		configured := fw.key != "" && pkg.Fields[fw.key] != nil
		for _, c := range fw.configs {
			if text, err := j.read(path.Join(dir, c)); err == nil {
				configured = true
				configs = append(configs, c)
				pr.config += "\n" + string(text)
			}
		}
		if configured {
			byConfig = append(byConfig, fw)
		}
		for _, p := range fw.packages {
			if pkg.Dependencies[p] != nil || pkg.DevDependencies[p] != nil {
				byDep = append(byDep, fw)
				break
			}
		}
	}
	for _, step := range []struct {
		fws []*jsFramework
		by  string
	}{{byScript, "its test scripts run"}, {byConfig, "its configuration (" + strings.Join(configs, ", ") + ") is for"}, {byDep, "it depends on"}} {
		switch len(step.fws) {
		case 0:
			continue
		case 1:
			pr.fw = step.fws[0]
			return pr
		}
		var names []string
		for _, fw := range step.fws {
			names = append(names, fw.name)
		}
		pr.why = fmt.Sprintf("%s: %s %s, and cchub cannot tell which runs which file", pkgPath, strings.TrimSuffix(step.by, " ("+strings.Join(configs, ", ")+") is for"), strings.Join(names, " and "))
		return pr
	}
	pr.why = fmt.Sprintf("%s names no test runner cchub knows (vitest, jest, mocha, node --test, tape)", pkgPath)
	return pr
}

// command runs, from the workspace root, the project's tests of file (""
// all of them) whose full names match pattern ("" all of the file's).
func (pr *jsProject) command(file, pattern string) string {
	rel := file
	if file != "" && pr.dir != "." {
		rel = strings.TrimPrefix(file, pr.dir+"/")
	}
	cmd := pr.fw.command(rel, pattern)
	if pr.dir != "." {
		cmd = "cd " + shellQuote(pr.dir) + " && " + cmd
	}
	return cmd
}

// scan is the test blocks of a test file, read from head once.
func (j *jsTests) scan(p string) *jsScan {
	if sc, ok := j.scans[p]; ok {
		return sc
	}
	sc := &jsScan{}
	j.scans[p] = sc
	src, err := j.read(p)
	if err != nil {
		sc.failed = fmt.Sprintf("%s could not be read (%v)", p, err)
		return sc
	}
	blocks, ok := scanJSTests(src)
	if !ok {
		sc.failed = p + "'s brackets, strings or comments did not read as cchub expected"
		return sc
	}
	sc.blocks = blocks
	return sc
}

// block is the block of the file that the graph's test d is, or why none
// can be named.
func (j *jsTests) block(d codegraph.Def) (*jsBlock, string) {
	sc := j.scan(d.Path)
	if sc.failed != "" {
		return nil, sc.failed
	}
	fn, title, _ := strings.Cut(d.Name, `("`)
	title = strings.TrimSuffix(title, `")`)
	prefix, cut := strings.CutSuffix(title, "…")
	var found *jsBlock
	for i := range sc.blocks {
		b := &sc.blocks[i]
		if b.start != d.Start || b.fn != fn || !(b.raw == title || cut && strings.HasPrefix(b.raw, prefix) || b.dynamic) {
			continue
		}
		if found != nil {
			return nil, fmt.Sprintf("two tests at %s:%d", d.Path, d.Start)
		}
		found = b
	}
	switch {
	case found == nil:
		return nil, fmt.Sprintf("cchub did not find %s at %s:%d", d.Name, d.Path, d.Start)
	case found.dynamic:
		return nil, fmt.Sprintf("%s's title, or a suite's around it, is made when the tests run (a template, a variable, .each)", d.Name)
	}
	return found, ""
}

// fullName is the titles of b's suites and its own, joined as the
// runners join them.
func (sc *jsScan) fullName(b *jsBlock) string {
	titles := []string{b.title}
	for p := b.parent; p >= 0; p = sc.blocks[p].parent {
		titles = append([]string{sc.blocks[p].title}, titles...)
	}
	return strings.Join(titles, " ")
}

// pattern is the regular expression that selects b, for fw. Matched
// against full names: b's full name at the end of the name (a runner may
// put the file's name first), or, for a suite or a block with tests
// inside, followed by a space (its tests) or the end. Matched against a
// test's own title as well (node): either, whole; a suite that matches
// runs its tests.
func (sc *jsScan) pattern(b *jsBlock, fw *jsFramework) string {
	full := jsQuoteMeta(sc.fullName(b))
	switch {
	case fw.ownName:
		if own := jsQuoteMeta(b.title); own != full {
			return "^(?:" + full + "|" + own + ")$"
		}
		return "^" + full + "$"
	case b.nested || jsSuiteFns[b.fn]:
		// A suite's tests may be made by a function it calls, which the
		// scan does not see inside it.
		return full + "(?: |$)"
	}
	return full + "$"
}

// jsQuoteMeta escapes the characters a JavaScript regular expression
// reads as syntax; / too, which mocha and node read as the start of
// /pattern/flags.
func jsQuoteMeta(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\^$.*+?()[]{}|/`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// whole selects the test file p whole.
func (j *jsTests) whole(s *selector, p string, sure bool, why string) {
	s.addWhole(scope{runner: j.name(), target: p}, sure, why)
}

// project selects the tests of the project at dir whole: everything when
// it is the root's (or no project holds it).
func (j *jsTests) project(s *selector, dir string, sure bool, why string) {
	if dir == "." || dir == "" {
		s.everything(why)
		return
	}
	s.addWhole(scope{runner: j.name(), target: dir, tree: true}, sure, why)
}

// testsUnder says whether test files are under dir.
func (j *jsTests) testsUnder(dir string) bool {
	for f := range j.testFiles {
		if dir == "." || strings.HasPrefix(f, dir+"/") {
			return true
		}
	}
	return false
}

// jsProjectFiles configure how a project's code builds or its tests run:
// a change selects the project's tests. Config files of the frameworks
// are theirs (jsFramework.configs).
var jsProjectFiles = regexp.MustCompile(`^(package\.json|package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|pnpm-workspace\.yaml|bun\.lockb?|\.npmrc|\.yarnrc(\.yml)?|\.nvmrc|\.node-version|[jt]sconfig(\..+)?\.json|babel\.config\..+|\.babelrc(\..+)?|\.swcrc|vite\.config\..+|vitest\.(config|workspace)\..+|jest\.(config|setup)\..+|\.mocharc\..+)$`)

func (j *jsTests) file(s *selector, at fileStep, f changedFile) bool {
	p, dir, base := f.path, path.Dir(f.path), path.Base(f.path)
	switch at {
	case stepBuild:
		if !jsProjectFiles.MatchString(base) {
			return false
		}
		pd := j.projectDir(dir)
		if base == "package.json" && f.gone {
			pd = j.projectDir(path.Dir(dir)) // its project is gone: the one above, if any
		}
		if pd == "" || !j.testsUnder(pd) {
			return false
		}
		j.project(s, pd, true, p+" changed: it configures how the project's code builds or its tests run")
		return true
	case stepTestdata:
		if pd := j.projectDir(f.owner); pd != "" && j.testsUnder(f.owner) {
			j.project(s, pd, true, p+" changed: the tests under "+f.owner+" may read it")
			return true
		}
	case stepCode:
		if pr := j.projectOf(p); pr != nil && j.setupFile(pr, p) {
			j.project(s, pr.dir, true, p+" changed: the project's test configuration names it (a setup file runs before every test file)")
			return true
		}
		switch {
		case f.gone:
			s.wide(p, true, p+" deleted or renamed: what imports it breaks")
		case s.in.head[p] == nil:
			s.wide(p, true, p+" changed and the code graph could not read it")
		}
		return true
	case stepBeside, stepBelow:
		if lang.IsDocument(p) {
			return false
		}
		if path.Base(dir) == "__snapshots__" {
			// x.test.ts.snap is x.test.ts's.
			test := path.Join(path.Dir(dir), strings.TrimSuffix(base, ".snap"))
			if j.testFiles[test] {
				j.whole(s, test, true, p+" changed: the snapshots of "+test)
				return true
			}
		}
		if pd := j.projectDir(dir); pd != "" && j.testsUnder(pd) {
			j.project(s, pd, true, p+" changed in a JavaScript project: its tests may read it")
			return true
		}
	}
	return false
}

// setupFile says whether the project's configuration (package.json, its
// scripts, the runners' config files) names the file at p as a path
// relative to the project ('./test/setup.ts', '<rootDir>/jest.setup.js',
// --require test/hooks.js, an import of './vite.shared'), with or
// without its extension: a setup file, a global setup, a test
// environment, what a config file imports.
func (j *jsTests) setupFile(pr *jsProject, p string) bool {
	if pr.named == nil {
		pr.named = map[string]bool{}
		for _, m := range jsQuoted.FindAllStringSubmatch(pr.config, -1) {
			for _, word := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ' ' || r == '=' || r == ',' }) {
				word = strings.TrimPrefix(word, "<rootDir>/")
				if w := path.Clean(word); w != "." && !strings.HasPrefix(w, "../") {
					pr.named[w] = true
				}
			}
		}
	}
	rel := p
	if pr.dir != "." {
		rel = strings.TrimPrefix(p, pr.dir+"/")
	}
	return pr.named[rel] || pr.named[strings.TrimSuffix(rel, path.Ext(rel))]
}

// jsQuoted is a string in a config file or package.json.
var jsQuoted = regexp.MustCompile(`['"` + "`" + `]([^'"` + "`" + `\n]+)['"` + "`" + `]`)

// jsImportLine is an import of names that runs nothing new by itself.
var jsImportLine = regexp.MustCompile(`^import\s+(type\s+)?[\w${},*\s]+\s+from\s+['"][^'"]+['"];?$`)

func (j *jsTests) inertLines(unidiff.Status) func(string) bool {
	comment := false
	return func(text string) bool {
		t := strings.TrimSpace(text)
		switch {
		case comment:
			comment = !strings.Contains(t, "*/")
			return true
		case strings.HasPrefix(t, "/*"):
			comment = !strings.Contains(t, "*/")
			return true
		}
		return t == "" || strings.HasPrefix(t, "//") || jsImportLine.MatchString(t)
	}
}

func (j *jsTests) changed(s *selector, c Change, why string) {
	d := c.Def
	switch {
	case d.Test:
		if c.Status != StatusRemoved {
			j.add(s, d, true, c.Status)
		}
		return
	case j.testFiles[c.file()]:
		j.whole(s, c.file(), true, why+": a helper of the file's tests")
		return
	}
	if !isFunc(d) {
		s.wide(c.file(), true, why+": the code graph does not follow its uses")
		return
	}
	if c.Status != StatusRemoved {
		j.values(s, d, true, why)
	}
}

func (j *jsTests) reached(s *selector, d codegraph.Def, sure bool, why string) bool {
	if lang.Family(d.Language) != lang.JavaScript {
		return false
	}
	j.add(s, d, sure, why)
	return true
}

// add selects test d by its name; its whole file where it has none a
// runner can match; everything where no runner is known to run it.
func (j *jsTests) add(s *selector, d codegraph.Def, sure bool, why string) {
	if !j.testFiles[d.Path] {
		s.everything(fmt.Sprintf("%s (%s) is a JavaScript test to run, outside the test files cchub knows (*.test.*, *.spec.*, __tests__/, test/)", d.Qual(), d.Path))
		return
	}
	pr := j.projectOf(d.Path)
	switch {
	case pr == nil:
		s.everything(fmt.Sprintf("%s (%s) is a JavaScript test to run, and no package.json above it says what runs it (the suite's commands may not: run it as the project does)", d.Qual(), d.Path))
		return
	case pr.fw == nil:
		s.everything(fmt.Sprintf("%s (%s) is a JavaScript test to run; %s", d.Qual(), d.Path, pr.why))
		return
	case !pr.fw.byName:
		j.whole(s, d.Path, sure, fmt.Sprintf("%s: %s (%s runs whole files)", d.Qual(), why, pr.fw.name))
		return
	}
	if _, failed := j.block(d); failed != "" {
		j.whole(s, d.Path, sure, fmt.Sprintf("%s: %s; its file whole: %s", d.Qual(), why, failed))
		return
	}
	s.addTest(j, d, sure, why)
}

func (j *jsTests) wide(s *selector, p string, sure bool, why string) {
	if j.testFiles[p] {
		j.whole(s, p, sure, why)
		return
	}
	for _, f := range j.importers(p) {
		if j.testFiles[f] {
			j.whole(s, f, sure, fmt.Sprintf("imports %s, directly or not (%s)", p, why))
		}
	}
}

// importers is the files importing the file at p, directly or not.
func (j *jsTests) importers(p string) []string {
	if j.imports == nil {
		j.imports = jsImporters(j.head)
	}
	seen := map[string]bool{p: true}
	queue := []string{p}
	var out []string
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, by := range j.imports[f] {
			if !seen[by] {
				seen[by] = true
				out = append(out, by)
				queue = append(queue, by)
			}
		}
	}
	sort.Strings(out)
	return out
}

func (j *jsTests) groups(s *selector) []built {
	var out []built
	for sc, w := range s.wholes(j) {
		if s.held(dirsAbove(j.name(), sc.target), w.sure) {
			continue
		}
		g := TestGroup{Dir: sc.target, Tests: []string{}, Whole: true, Cautious: !w.sure, Why: w.why}
		var pr *jsProject
		if sc.tree {
			pr = j.projects[sc.target]
			if pr == nil {
				pr = j.projectOf(sc.target + "/package.json")
			}
			if pr == nil || !j.testsUnder(sc.target) {
				continue
			}
		} else {
			if pr = j.projectOf(sc.target); pr == nil || !j.testFiles[sc.target] {
				continue
			}
			g.Dir, g.File = path.Dir(sc.target), sc.target
		}
		if pr.fw == nil {
			g.Runner, g.Command = "npm", "npm test"
			if pr.dir != "." {
				g.Command = "cd " + shellQuote(pr.dir) + " && npm test"
			}
		} else {
			g.Runner, g.Command = pr.fw.name, pr.command(g.File, "")
		}
		known := j.known(func(f string) bool { return f == sc.target || sc.tree && strings.HasPrefix(f, sc.target+"/") })
		out = append(out, built{TestGroup: g, known: known})
	}
	in := func(d codegraph.Def) scope { return scope{runner: j.name(), target: d.Path} }
	above := func(sc scope) []scope { return dirsAbove(j.name(), sc.target) }
	for _, u := range s.units(j, in, above) {
		pr := j.projectOf(u.target)
		scan := j.scan(u.target)
		g := TestGroup{Runner: pr.fw.name, Dir: path.Dir(u.target), File: u.target, Tests: []string{}, Cautious: !u.sure, Why: u.why}
		var patterns []string
		blocks := map[*jsBlock]bool{}
		for _, d := range u.tests {
			b, _ := j.block(d)
			if blocks[b] {
				continue
			}
			blocks[b] = true
			g.Tests = append(g.Tests, scan.fullName(b))
			patterns = append(patterns, scan.pattern(b, pr.fw))
		}
		g.Command = pr.command(u.target, strings.Join(dedupe(patterns), "|"))
		out = append(out, built{TestGroup: g, known: j.within(u.target, blocks), tests: u.tests})
	}
	return out
}

// known counts the tests of the test files keep keeps.
func (j *jsTests) known(keep func(string) bool) int {
	n := 0
	for p := range j.testFiles {
		if keep(p) {
			for _, d := range j.head[p].Defs {
				if d.Test {
					n++
				}
			}
		}
	}
	return n
}

// within counts the tests of file p inside the blocks.
func (j *jsTests) within(p string, blocks map[*jsBlock]bool) int {
	n := 0
	for _, d := range j.head[p].Defs {
		for b := range blocks {
			if d.Test && b.start <= d.Start && d.End <= b.end {
				n++
				break
			}
		}
	}
	return n
}

func (j *jsTests) suite() []string {
	var out []string
	seen := map[string]bool{}
	var tests []string
	for p := range j.testFiles {
		tests = append(tests, p)
	}
	sort.Strings(tests)
	for _, p := range tests {
		pr := j.projectOf(p)
		if pr == nil || seen[pr.dir] {
			continue
		}
		seen[pr.dir] = true
		if pr.fw == nil {
			cmd := "npm test"
			if pr.dir != "." {
				cmd = "cd " + shellQuote(pr.dir) + " && " + cmd
			}
			out = append(out, cmd)
			continue
		}
		out = append(out, pr.command("", ""))
	}
	return out
}
