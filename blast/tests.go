package blast

import (
	"context"
	"fmt"
	"path"
	"strings"

	"cchub/codegraph"
	"cchub/lang"
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
	platform   Platform            // the target go test builds for
}

// pick is why something is selected, and how surely: a test by itself
// (def, and the runner that runs it), or a whole scope.
type pick struct {
	sure bool
	why  string
	def  codegraph.Def
	by   runner
}

// scope is what a whole group runs, as its runner names it: a package's
// directory, a test file, or a directory and everything under it.
type scope struct {
	runner string // the runner's name
	target string // a directory or a file
	tree   bool   // target and everything under it
}

// selector is one test selection: the language-neutral core. It reads
// the change, asks the runners what each part of it means for their
// tests, and keeps what they select; the runners make the groups.
type selector struct {
	in      selectIn
	runners []runner
	all     []string         // why the whole suite must run
	tests   map[string]*pick // path\x00qual → a test selected by itself
	whole   map[scope]*pick
	widened map[string]bool // the files wide was asked about ("?" before one asked cautiously)
	// notBuilt are the Go files the target platform does not build that
	// the change touched or reached: left out of the selection.
	notBuilt map[string]bool
	built    map[string]bool // builds' answers
	// unlinked are the directories whose tests the radius reached but
	// whose test binaries do not link the changed code (linker): left out.
	unlinked map[string]bool
}

// linker is a runner whose tests run only what their binary links: a Go
// package's tests run the changed code only when the package, or what
// its tests import, imports a changed package, directly or not. Calls
// by name (name-only, possible) reach further than that; the runtime
// does not.
type linker interface {
	links(s *selector, dir string) bool
}

// linked says whether the tests of the package holding file p can run
// the changed code.
func (s *selector) linked(p string) bool {
	return s.linkedDir(lang.Family(lang.NameOf(p)), path.Dir(p))
}

// linkedDir says whether the tests of family's package in dir can run
// the changed code; a directory left out is remembered (unlinked).
func (s *selector) linkedDir(family, dir string) bool {
	for _, r := range s.of(family) {
		if l, ok := r.(linker); ok && !l.links(s, dir) {
			if s.unlinked == nil {
				s.unlinked = map[string]bool{}
			}
			s.unlinked[dir] = true
			return false
		}
	}
	return true
}

// builds says whether the target platform builds file p (anything but a
// Go file builds; a file that does not read counts as built).
func (s *selector) builds(p string) bool {
	if lang.NameOf(p) != lang.Go {
		return true
	}
	if b, ok := s.built[p]; ok {
		return b
	}
	src, err := s.in.read(p, unidiff.File{})
	b := err != nil || s.in.platform.goBuilds(p, src)
	if s.built == nil {
		s.built, s.notBuilt = map[string]bool{}, map[string]bool{}
	}
	s.built[p] = b
	if !b {
		s.notBuilt[p] = true
	}
	return b
}

// selectTests chooses the tests the change can break: the tests among
// the changed and reached definitions, at any distance and through calls
// of any evidence, and, where the graph cannot see what a change does,
// whole packages, files or directories, or the whole suite, each with why.
func selectTests(ctx context.Context, in selectIn) *Selection {
	readHead := func(p string) ([]byte, error) {
		if in.read == nil {
			return nil, fmt.Errorf("%s: no reader of the workspace's files", p)
		}
		return in.read(p, unidiff.File{})
	}
	s := &selector{in: in, runners: newRunners(in.head, in.base, readHead), tests: map[string]*pick{}, whole: map[scope]*pick{}}
	suite := 0
	for _, f := range in.head {
		for _, d := range f.Defs {
			if codegraph.RunsAsTest(d) { // a Go suite's methods too
				suite++
			}
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
	return s.assemble(suite)
}

// of is the runners of a language family, in order.
func (s *selector) of(family string) []runner {
	var out []runner
	for _, r := range s.runners {
		if family != "" && r.family() == family {
			out = append(out, r)
		}
	}
	return out
}

// selects is what the runners select tests of, for reasons: "Go and
// Python".
func (s *selector) selects() string { return languages(s.runners, "and") }

func (s *selector) everything(why string) { s.all = append(s.all, why) }

// addTest selects test d by itself, for the runner r that runs it; a
// sure reason wins over a cautious one, else the first stands.
func (s *selector) addTest(r runner, d codegraph.Def, sure bool, why string) {
	k := d.Path + "\x00" + d.Qual()
	if old, ok := s.tests[k]; ok && (old.sure || !sure) {
		return
	}
	s.tests[k] = &pick{sure: sure, why: why, def: d, by: r}
}

// addWhole selects a scope whole; a sure reason wins over a cautious one,
// else the first stands.
func (s *selector) addWhole(sc scope, sure bool, why string) {
	if old, ok := s.whole[sc]; ok && (old.sure || !sure) {
		return
	}
	s.whole[sc] = &pick{sure: sure, why: why}
}

// isTestFile says whether a runner runs the tests of the file at p.
func (s *selector) isTestFile(p string) bool {
	for _, r := range s.runners {
		if r.testFile(p) {
			return true
		}
	}
	return false
}

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
		s.fileRule(changedFile{path: p, diff: d, gone: gone})
	}
}

// fileRule takes the steps of the file rules (fileStep) for one path:
// what configures a runner, test data, a runner's own code, files beside
// and below its packages; in between, code no runner reads selects
// everything and documents nothing.
func (s *selector) fileRule(f changedFile) {
	p := f.path
	base := path.Base(p)
	if s.ask(stepBuild, f) {
		return
	}
	if owner, ok := testdataOwner(p); ok {
		f.owner = owner
		if !s.ask(stepTestdata, f) {
			s.everything(fmt.Sprintf("%s changed and no %s package owns its testdata directory: any test may read it", p, languages(s.runners, "or")))
		}
		return
	}
	if family := lang.FamilyOf(p); len(s.of(family)) > 0 {
		for _, r := range s.of(family) {
			r.file(s, stepCode, f)
		}
		// To the runners of other languages it is a file beside or
		// below their packages: a Go package may embed a script, a
		// test read it.
		if !s.askOthers(family, stepBeside, f) {
			s.askOthers(family, stepBelow, f)
		}
		return
	}
	if s.ask(stepBeside, f) {
		return
	}
	if lang.IsCode(p) {
		s.everything(fmt.Sprintf("%s changed: cchub selects %s tests, and cannot follow what a %s file breaks", p, s.selects(), strings.TrimPrefix(lang.Ext(p), ".")))
		return
	}
	if lang.IsDocument(p) || strings.HasPrefix(p, ".github/") || base == ".gitignore" || base == ".gitattributes" || strings.HasPrefix(strings.ToUpper(base), "LICENSE") {
		return
	}
	s.ask(stepBelow, f)
}

// ask takes one step of a file's rules with the runners, in order, until
// one accounts for the file.
func (s *selector) ask(at fileStep, f changedFile) bool {
	for _, r := range s.runners {
		if r.file(s, at, f) {
			return true
		}
	}
	return false
}

// askOthers is ask with the runners of the families other than family.
func (s *selector) askOthers(family string, at fileStep, f changedFile) bool {
	for _, r := range s.runners {
		if r.family() != family && r.file(s, at, f) {
			return true
		}
	}
	return false
}

// nearest is dir or its nearest parent that is in dirs.
func nearest(dir string, dirs map[string]bool) (string, bool) {
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

// topLevel selects for a changed line of a runner's file outside every
// definition (a package variable or constant, a module's body, a test
// file's setup) what could use the file: the graph follows calls, not
// these. Lines the runner reads as inert change nothing by themselves.
func (s *selector) topLevel(d unidiff.File) {
	if d.Binary {
		return
	}
	for _, h := range d.Hunks {
		// Each side of the hunk is read in order by its file's runner.
		inert := map[unidiff.Kind]func(string) bool{}
		headAt := h.NewStart // the head's line where the hunk's next line is, or would be
		for _, l := range h.Lines {
			at := headAt
			if l.New > 0 {
				headAt = l.New + 1
				at = l.New
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
			if f == nil {
				continue
			}
			rs := s.of(lang.Family(f.Language))
			if len(rs) == 0 {
				continue
			}
			read, ok := inert[l.Kind]
			if !ok {
				read = rs[0].inertLines(d.Status)
				inert[l.Kind] = read
			}
			if read(l.Text) || inDef(f, line) {
				continue
			}
			text := strings.TrimSpace(l.Text)
			if len(text) > 60 {
				text = text[:57] + "..."
			}
			why := fmt.Sprintf("%s:%d changed outside every function (%s)", p, line, text)
			if d.NewPath != "" && s.claimTop(d.NewPath, at, true, why) {
				continue // a spec's line (or where a deleted one was): its spec
			}
			s.wide(p, true, why)
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

// changed selects for a changed definition what its runners say (a
// changed test itself; a helper of a test file, its whole package or
// file; a type, class or Go init, whose uses the graph does not follow,
// what can use it); a test of a language no runner runs, everything.
func (s *selector) changed(c Change) {
	d := c.Def
	why := fmt.Sprintf("%s %s (%s)", c.Status, d.Qual(), place(d))
	rs := s.of(lang.Family(d.Language))
	if len(rs) == 0 {
		if d.Test {
			s.everything(fmt.Sprintf("%s: a %s test; cchub selects %s tests", why, d.Language, s.selects()))
		}
		return
	}
	for _, r := range rs {
		r.changed(s, c, why)
	}
}

// wide selects, for a change in a file whose effect the graph cannot
// follow (a package variable, a type, a module's body), what its runners
// say can see it: its whole package or directory and whatever imports it,
// directly or not.
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
	for _, r := range s.of(lang.FamilyOf(p)) {
		r.wide(s, p, sure, why)
	}
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
	all, sureKeys, sureTop := s.blast(ctx, names)
	s.followOverrides(ctx, all, seen)
	for _, re := range all.Reached {
		d := re.Def
		if !s.linked(d.Path) {
			continue // no test binary running d links the change
		}
		sure := sureKeys[d.Path+"\x00"+d.Qual()]
		why := fmt.Sprintf("reached via %s [%s]", strings.Join(re.Via, " <- "), re.Confidence)
		if !d.Test {
			for _, r := range s.of(lang.Family(d.Language)) {
				if v, ok := r.(valueUser); ok {
					v.values(s, d, sure, why)
				}
				// A suite's method is run by reflection from the suite's
				// entry test: nothing calls it.
				if h, ok := r.(suiteHolder); ok && h.suiteMethod(d) {
					r.reached(s, d, sure, why)
				}
				// What runs when its package loads (a Go init) runs
				// before every test that loads the package.
				if l, ok := r.(loadRunner); ok && l.runsOnLoad(d) {
					s.wide(d.Path, sure, d.Qual()+" "+why+": it runs when its package loads")
				}
				// A method the standard library calls through an
				// interface may run from code the graph does not see.
				if o, ok := r.(outsideCalled); ok && !s.isTestFile(d.Path) {
					if iface := o.calledOutside(d); iface != "" {
						s.wide(d.Path, false, fmt.Sprintf("%s %s: the standard library may call it (%s)", d.Qual(), why, iface))
					}
				}
			}
			continue
		}
		rs := s.of(lang.Family(d.Language))
		if len(rs) == 0 {
			s.everything(fmt.Sprintf("the change reaches %s, a %s test (%s); cchub selects %s tests", d.Qual(), d.Language, d.Path, s.selects()))
			continue
		}
		for _, r := range rs {
			if r.reached(s, d, sure, why) {
				break
			}
		}
	}
	for _, e := range all.TopLevel {
		if !s.builds(e.Path) {
			continue // no test on the target runs it
		}
		if !s.linked(e.Path) {
			continue // the package loads in no test binary that links the change
		}
		callee := e.Name
		if e.Callee != nil {
			callee = e.Callee.Qual()
		}
		why := fmt.Sprintf("%s:%d calls %s at the top level [%s]: it runs when the package or module loads", e.Path, e.Line, callee, e.Confidence)
		sure := codegraph.Rank(e.Confidence) <= codegraph.Rank(codegraph.Imported)
		if sure && !sureTop[topKey(e.Path, e.Line)] {
			sure = false
			why += "; the change reaches " + callee + " only through name-only or possible calls"
		}
		if s.claimTop(e.Path, e.Line, sure, fmt.Sprintf("%s:%d calls %s in a spec [%s]", e.Path, e.Line, callee, e.Confidence)) {
			continue
		}
		s.wide(e.Path, sure, why)
	}
}

func topKey(p string, line int) string { return fmt.Sprintf("%s:%d", p, line) }

// outsideCalled is a runner some of whose methods code outside the
// workspace calls through interfaces (Go's standard library).
type outsideCalled interface{ calledOutside(codegraph.Def) string }

// loadRunner is a runner some of whose functions run when their package
// loads, called by no one (Go's init).
type loadRunner interface{ runsOnLoad(codegraph.Def) bool }

// topClaimer is a runner whose tests can be top-level lines of a test
// file (Ginkgo's specs).
type topClaimer interface {
	claimTop(s *selector, p string, line int, sure bool, why string) bool
}

// claimTop asks p's runners whether the top-level line is in a test of
// theirs, which they then select.
func (s *selector) claimTop(p string, line int, sure bool, why string) bool {
	for _, r := range s.of(lang.FamilyOf(p)) {
		if c, ok := r.(topClaimer); ok && c.claimTop(s, p, line, sure, why) {
			return true
		}
	}
	return false
}

// followOverrides adds to all, cautiously, what reaches the methods that
// the changed and reached methods override, as their runners (an
// overrider) name them: a call the graph links to the method overridden
// may run the override. It follows overrides of what that reaches in
// turn, a few rounds deep; seen holds the names already followed.
func (s *selector) followOverrides(ctx context.Context, all *codegraph.BlastAnswer, seen map[string]bool) {
	var defs []codegraph.Def
	for _, c := range s.in.cs {
		if c.Status != StatusRemoved {
			defs = append(defs, c.Def)
		}
	}
	known := map[string]bool{}
	for _, re := range all.Reached {
		defs = append(defs, re.Def)
		known[re.Def.Path+"\x00"+re.Def.Qual()] = true
	}
	for round := 0; round < 4 && len(defs) > 0; round++ {
		var more []string
		by := map[string]string{} // an overridden method's qualified name → the override
		for _, d := range defs {
			for _, r := range s.of(lang.Family(d.Language)) {
				o, ok := r.(overrider)
				if !ok {
					continue
				}
				for _, n := range o.overridden(d) {
					if !seen[n] {
						seen[n] = true
						more = append(more, n)
						_, qual, _ := strings.Cut(n, ":")
						by[qual] = d.Qual()
					}
				}
			}
		}
		if len(more) == 0 {
			return
		}
		a, _, _ := s.blast(ctx, more)
		defs = nil
		for _, re := range a.Reached {
			k := re.Def.Path + "\x00" + re.Def.Qual()
			if known[k] {
				continue
			}
			known[k] = true
			if len(re.Via) > 0 && by[re.Via[0]] != "" {
				re.Via = append([]string{by[re.Via[0]] + " overrides"}, re.Via...)
			}
			re.Confidence = codegraph.NameOnly
			all.Reached = append(all.Reached, re)
			defs = append(defs, re.Def)
		}
		for _, e := range a.TopLevel {
			e.Confidence = codegraph.NameOnly
			all.TopLevel = append(all.TopLevel, e)
		}
	}
}

// blast is the radius of names through every call, and the keys
// (path\x00qual) of the definitions reached through sure calls only. A
// name the graph cannot follow selects what could use its file.
func (s *selector) blast(ctx context.Context, names []string) (*codegraph.BlastAnswer, map[string]bool, map[string]bool) {
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
			return &codegraph.BlastAnswer{}, nil, nil
		}
	}
	sure, sureTop := map[string]bool{}, map[string]bool{}
	if a, err := ask(names, codegraph.Imported); err == nil {
		for _, re := range a.Reached {
			sure[re.Def.Path+"\x00"+re.Def.Qual()] = true
		}
		for _, e := range a.TopLevel {
			sureTop[topKey(e.Path, e.Line)] = true
		}
	}
	return all, sure, sureTop
}

// SelectFor selects the tests that changes to the named definitions
// (Name, Type.Name or path:Name) can break, in the workspace's graph x,
// as --tests does for a diff but without one: through calls, at any
// distance, and whole packages where a definition's uses are not calls
// (a type, a Go init, a test file's helper). read reads a workspace
// file (a package.json, a test file's titles).
func SelectFor(ctx context.Context, x *codegraph.Index, names []string, read func(string) ([]byte, error)) (*Selection, error) {
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
	in := selectIn{base: files{}, head: head, x: x, read: func(p string, _ unidiff.File) ([]byte, error) { return read(p) }}
	for _, d := range a.Starts {
		in.cs = append(in.cs, Change{Def: d, Status: "named"})
		in.names = append(in.names, d.Path+":"+d.Qual())
	}
	return selectTests(ctx, in), nil
}
