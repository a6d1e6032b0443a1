package codegraph

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/dominikbraun/graph"
)

// maxNameOnly is the most definitions a call is linked to by name alone;
// a call whose name matches more is kept unlinked (see site.Crowd).
const maxNameOnly = 8

// resolve turns the files' calls into edges.
func resolve(files map[string]*File) *built {
	b := &built{defs: map[string]*Def{}, byName: map[string][]string{}, calls: map[string][]site{}, callIn: map[string][]incoming{}, crowded: map[string]int{},
		g: graph.New(graph.StringHash, graph.Directed())}
	r := &resolver{built: b, files: files}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		f := files[p]
		if f.Language == "go.mod" && len(f.Imports) == 1 {
			r.goModules = append(r.goModules, goModule{dir: path.Dir(p), path: f.Imports[0].Target})
		}
		dir := path.Dir(p)
		seen := map[string]int{}
		for i := range f.Defs {
			d := &f.Defs[i]
			// A key that does not move when lines above it do: the file
			// and the qualified name, numbered when the name repeats
			// (Go's init, overloads, a redefinition).
			q := d.Qual()
			seen[q]++
			d.key, d.dir = p+":"+q, dir
			if n := seen[q]; n > 1 {
				d.key += "#" + strconv.Itoa(n)
			}
			b.defs[d.key] = d
			b.byName[d.Name] = append(b.byName[d.Name], d.key)
		}
	}
	edges := map[[2]string]string{} // caller, callee → the surest confidence
	for _, p := range paths {
		f := files[p]
		for _, c := range f.Calls {
			caller := p + ":"
			var in *Def
			if c.In >= 0 {
				in = &f.Defs[c.In]
				caller = in.key
			}
			ts := r.targets(f, in, c)
			crowd := 0
			if len(ts) > maxNameOnly && ts[0].confidence == NameOnly {
				// value.Error() reaches hundreds of methods by name: an
				// edge to each would make every one of them a caller of
				// everything. The call is kept, unlinked, with the count.
				crowd, ts = len(ts), nil
				b.crowded[c.Name]++
			}
			b.calls[caller] = append(b.calls[caller], site{Path: p, Call: c, Targets: ts, Crowd: crowd})
			for _, t := range ts {
				b.callIn[t.key] = append(b.callIn[t.key], incoming{caller: caller, path: p, line: c.Line, col: c.Col, confidence: t.confidence})
				if in != nil {
					e := [2]string{caller, t.key}
					if old, ok := edges[e]; !ok || rank(t.confidence) < rank(old) {
						edges[e] = t.confidence
					}
				}
			}
		}
	}
	b.edges = edges
	return b
}

// resolver resolves the calls of one set of files. What a language's
// resolution needs of the whole workspace (where a module specifier
// leads, which headers a file includes) is made on first need and kept
// for the other calls.
type resolver struct {
	*built
	files map[string]*File

	jsModules map[string]string   // "dir\x00specifier" → file, "" outside the workspace
	rust      *rustIndex          // Rust crates and modules
	c         *cIndex             // C and C++ includes and declarations
	byBase    map[string][]string // file name → the paths of the files so named
	goModules []goModule          // the workspace's go.mod files
	goDirs    map[string]string   // Go import path → package directory, "" outside
	goPkgs    map[string]bool     // directories that hold Go files
}

// targets resolves one call of file f made in def in (nil: top level).
func (r *resolver) targets(f *File, in *Def, c Call) []target {
	switch family(f.Language) {
	case "javascript":
		return r.jsTargets(f, in, c)
	case "rust":
		return r.rustTargets(f, in, c)
	case "java":
		return r.javaTargets(f, in, c)
	case "c":
		return r.cTargets(f, in, c)
	case "go":
		return r.goTargets(f, in, c)
	}
	return r.goPythonTargets(f, in, c)
}

// pick returns the definitions named name that keep accepts, as targets
// of confidence conf.
func (r *resolver) pick(name, conf string, keep func(d *Def) bool) []target {
	var out []target
	for _, k := range r.byName[name] {
		if keep(r.defs[k]) {
			out = append(out, target{k, conf})
		}
	}
	return out
}

// callable says whether a call can reach d: a function or method, or a
// class or struct (a construction).
func callable(d *Def) bool {
	switch d.Kind {
	case "func", "method", "class", "struct", "record":
		return true
	}
	return false
}

// withBase returns the paths of the files named name, in order.
func (r *resolver) withBase(name string) []string {
	if r.byBase == nil {
		r.byBase = map[string][]string{}
		for p := range r.files {
			b := path.Base(p)
			r.byBase[b] = append(r.byBase[b], p)
		}
		for _, ps := range r.byBase {
			sort.Strings(ps)
		}
	}
	return r.byBase[name]
}

// goPythonTargets resolves a Python call (and a call of a language without its own resolution).
func (r *resolver) goPythonTargets(f *File, in *Def, c Call) []target {
	b := r.built
	// A name a Python file imported under an alias is the module's own.
	if c.Qualifier == "" {
		for _, imp := range f.Imports {
			if imp.Alias == c.Name && strings.Contains(imp.Target, ".") {
				dot := strings.LastIndexByte(imp.Target, '.')
				mod, real := imp.Target[:dot], imp.Target[dot+1:]
				var out []target
				for _, k := range b.byName[real] {
					if d := b.defs[k]; d.Type == "" && moduleOf(d.Path) == strings.TrimLeft(mod, ".") {
						out = append(out, target{k, Imported})
					}
				}
				if len(out) > 0 {
					return out
				}
			}
		}
	}
	cands := b.byName[c.Name]
	if len(cands) == 0 {
		return nil
	}
	pick := func(conf string, keep func(d *Def) bool) []target {
		var out []target
		for _, k := range cands {
			if keep(b.defs[k]) {
				out = append(out, target{k, conf})
			}
		}
		return out
	}
	sameLang := func(d *Def) bool { return d.Language == f.Language }
	dir := path.Dir(f.Path)
	if c.Qualifier == "" {
		// Same file first.
		if ts := pick(Exact, func(d *Def) bool { return d.Path == f.Path && d.Type == "" && callable(d) }); len(ts) > 0 {
			return ts
		}
		return pick(NameOnly, func(d *Def) bool { return sameLang(d) && d.Type == "" && callable(d) })
	}
	// self.method / receiver.method within the enclosing type.
	if in != nil && in.Type != "" && (c.Qualifier == "self" || c.Qualifier == "this") {
		if ts := pick(Exact, func(d *Def) bool { return d.Type == in.Type && d.Language == f.Language && d.dir == dir }); len(ts) > 0 {
			return ts
		}
	}
	// pkg.Func or module.func through an import.
	for _, imp := range f.Imports {
		if imp.Alias != c.Qualifier {
			continue
		}
		if ts := pick(Imported, func(d *Def) bool { return d.Type == "" && moduleOf(d.Path) == strings.TrimLeft(imp.Target, ".") }); len(ts) > 0 {
			return ts
		}
		return nil // an import from outside the workspace
	}
	// value.Method: every method of the name.
	return pick(NameOnly, func(d *Def) bool { return sameLang(d) && d.Type != "" })
}

// moduleOf is a Python file's module path relative to the root
// ("inventory/models.py" → "inventory.models"; a package's __init__ is the
// package).
func moduleOf(rel string) string {
	m := strings.TrimSuffix(strings.TrimSuffix(rel, ".py"), "/__init__")
	return strings.ReplaceAll(m, "/", ".")
}
