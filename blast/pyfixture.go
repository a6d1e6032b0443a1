package blast

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"cchub/codegraph"
	"cchub/unidiff"
)

// pytest fixtures: a conftest.py whose change lies only inside fixture
// functions (not autouse, not a hook, not a module-level line) selects
// the test files under its directory that use those fixtures — by
// parameter, usefixtures, or through another fixture of a conftest.py
// there that uses them — instead of every test under it.

var (
	pyFixtureName = regexp.MustCompile(`\bname\s*=\s*["']([^"']+)["']`)
	pyWord        = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// pyFixture is a fixture function of a conftest.py.
type pyFixture struct {
	def     codegraph.Def
	name    string // the name tests ask for it by (name= in its decorator, else the function's)
	autouse bool
	params  []string // the names in its def line's parentheses
}

// pyFixtures reads the fixtures of a Python file: its top-level
// functions decorated with pytest.fixture or fixture.
func pyFixtures(f *codegraph.File, src []byte) []pyFixture {
	if f == nil {
		return nil
	}
	lines := strings.Split(string(src), "\n")
	var out []pyFixture
	for _, d := range f.Defs {
		if d.Type != "" || !isFunc(d) || d.Start < 1 || d.Start > len(lines) {
			continue
		}
		// The decorators: the lines above the def that begin with @
		// (and the def's own first lines when its range holds them).
		var deco []string
		defLine := d.Start
		for i := d.Start; i <= min(d.End, len(lines)); i++ {
			t := strings.TrimSpace(lines[i-1])
			if strings.HasPrefix(t, "@") || strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ") {
				if strings.HasPrefix(t, "@") {
					deco = append(deco, t)
					continue
				}
				defLine = i
				break
			}
		}
		// Above it: single-line decorators, and a decorator whose
		// arguments span lines (taken only when its @ line is found).
		var pending []string
		for i := d.Start - 1; i >= 1 && i >= d.Start-30; i-- {
			t := strings.TrimSpace(lines[i-1])
			if strings.HasPrefix(t, "@") {
				deco = append(append(deco, pending...), t)
				pending = nil
				continue
			}
			if t == "" || strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "class ") || strings.HasPrefix(t, "async def ") || strings.HasPrefix(t, "#") && pending == nil {
				break
			}
			pending = append(pending, t)
		}
		decorated := strings.Join(deco, " ")
		if !strings.Contains(decorated, "fixture") {
			continue
		}
		fx := pyFixture{def: d, name: d.Name, autouse: strings.Contains(decorated, "autouse")}
		if m := pyFixtureName.FindStringSubmatch(decorated); m != nil {
			fx.name = m[1]
		}
		// Its parameters: the def's text up to the colon ending it.
		sig := strings.Join(lines[defLine-1:min(defLine+20, len(lines))], " ")
		if open := strings.Index(sig, "("); open >= 0 {
			if end := strings.Index(sig[open:], ")"); end >= 0 {
				fx.params = pyWord.FindAllString(sig[open+1:open+end], -1)
			}
		}
		out = append(out, fx)
	}
	return out
}

// fixturesChanged says which fixtures of conftest.py f the change is
// confined to; ok is false when anything else changed (a hook, an
// import, a module-level line, an autouse fixture, a fixture added or
// removed), and the directory's tests are then selected whole.
func (py *pytest) fixturesChanged(s *selector, f changedFile) (names []string, ok bool) {
	d := f.diff
	if d.Status != unidiff.Modified || d.Binary || d.OldPath != d.NewPath {
		return nil, false
	}
	src, err := s.in.read(f.path, d)
	if err != nil {
		return nil, false
	}
	fixtures := pyFixtures(py.head[f.path], src)
	byFunc := map[string]pyFixture{}
	for _, fx := range fixtures {
		byFunc[fx.def.Name] = fx
	}
	in := func(defs []codegraph.Def, line int) (pyFixture, bool) {
		for _, def := range defs {
			if def.Type == "" && def.Start <= line && line <= def.End {
				fx, isFixture := byFunc[def.Name]
				return fx, isFixture && !fx.autouse
			}
		}
		return pyFixture{}, false
	}
	base := s.in.base[d.OldPath]
	if base == nil {
		return nil, false
	}
	seen := map[string]bool{}
	for _, h := range d.Hunks {
		for _, l := range h.Lines {
			var fx pyFixture
			var isFixture bool
			switch l.Kind {
			case unidiff.Add:
				fx, isFixture = in(py.head[f.path].Defs, l.New)
			case unidiff.Delete:
				// A line of the base's function of the same name.
				fx, isFixture = in(base.Defs, l.Old)
			default:
				continue
			}
			if !isFixture || strings.Contains(l.Text, "autouse") || pyFixtureName.MatchString(l.Text) {
				// Made or unmade autouse, or renamed: tests that do not
				// name it are touched too.
				return nil, false
			}
			if !seen[fx.name] {
				seen[fx.name] = true
				names = append(names, fx.name)
			}
		}
	}
	return names, len(names) > 0
}

// fixtureUsers selects the test files under dir that use the fixtures
// named, directly or through the fixtures of the conftest.py files
// under dir that use them; p is the changed conftest.py.
func (py *pytest) fixtureUsers(s *selector, dir, p string, names []string) {
	under := func(f string) bool { return dir == "." || strings.HasPrefix(f, dir+"/") }
	used := map[string]bool{}
	for _, n := range names {
		used[n] = true
	}
	// The fixtures that use them, in the conftest.py files under dir,
	// until none is added.
	var confs []string
	for f := range py.head {
		if path.Base(f) == "conftest.py" && under(f) {
			confs = append(confs, f)
		}
	}
	sort.Strings(confs)
	var all []pyFixture
	for _, c := range confs {
		if src, err := s.in.read(c, unidiff.File{}); err == nil {
			all = append(all, pyFixtures(py.head[c], src)...)
		}
	}
	for grew := true; grew; {
		grew = false
		for _, fx := range all {
			if used[fx.name] {
				continue
			}
			for _, param := range fx.params {
				if used[param] {
					used[fx.name], grew = true, true
					break
				}
			}
		}
	}
	var list []string
	for n := range used {
		list = append(list, n)
	}
	sort.Strings(list)
	why := p + " changed fixture " + strings.Join(names, ", ") + ": the test file uses " + strings.Join(list, ", ")
	var files []string
	for f := range py.testFiles {
		if under(f) {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		src, err := s.in.read(f, unidiff.File{})
		if err != nil {
			py.fileWhole(s, f, true, p+" changed, and "+f+" could not be read to see which fixtures it uses")
			continue
		}
		text := string(src)
		hit := strings.Contains(text, "getfixturevalue") // a name the text may not spell
		for _, w := range pyWord.FindAllString(text, -1) {
			if hit || used[w] {
				hit = true
				break
			}
		}
		if hit {
			py.fileWhole(s, f, true, why)
		}
	}
}
