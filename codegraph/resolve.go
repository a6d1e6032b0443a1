package codegraph

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/dominikbraun/graph"

	"cchub/lang"
)

// maxNameOnly is the most definitions a call is linked to by name alone;
// a call whose name matches more is kept unlinked (see site.Crowd).
const maxNameOnly = 8

// resolve turns the files' calls into edges.
func resolve(files map[string]*File) *built {
	b := &built{defs: map[string]*Def{}, byName: map[string][]*Def{}, calls: map[string][]site{}, callIn: map[string][]incoming{}, crowded: map[string]int{}, crowdIn: map[string][]incoming{},
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
		for i, k := range defKeys(p, f) {
			d := &f.Defs[i]
			d.key, d.dir = k, dir
			b.defs[d.key] = d
			b.byName[d.Name] = append(b.byName[d.Name], d)
		}
	}
	b.edges = map[[2]string]string{} // caller, callee → the surest confidence
	for _, p := range paths {
		r.link(p, files[p])
	}
	b.r = r
	return b
}

// defKeys are the keys of f's definitions (f at path p): keys that do
// not move when lines above them do, the file and the qualified name,
// numbered when the name repeats (Go's init, overloads, a redefinition).
func defKeys(p string, f *File) []string {
	keys := make([]string, len(f.Defs))
	seen := map[string]int{}
	for i := range f.Defs {
		q := f.Defs[i].Qual()
		seen[q]++
		keys[i] = p + ":" + q
		if n := seen[q]; n > 1 {
			keys[i] += "#" + strconv.Itoa(n)
		}
	}
	return keys
}

// link resolves the calls of file f (at path p) into b's sites, incoming
// calls and edges.
func (r *resolver) link(p string, f *File) {
	b := r.built
	for _, c := range f.Calls {
		caller := p + ":"
		var in *Def
		if c.In >= 0 {
			in = &f.Defs[c.In]
			caller = in.key
		}
		r.crowd = 0
		ts := r.targets(f, in, c)
		crowd := 0
		if r.crowd > 0 {
			crowd = r.crowd
			b.crowded[c.Name]++
		} else if len(ts) > maxNameOnly && ts[0].confidence == NameOnly {
			// value.Error() reaches hundreds of methods by name: an
			// edge to each would make every one of them a caller of
			// everything. The call is kept, unlinked, with the count.
			crowd, ts = len(ts), nil
			b.crowded[c.Name]++
		}
		b.calls[caller] = append(b.calls[caller], site{Path: p, Call: c, Targets: ts, Crowd: crowd})
		if crowd > 0 {
			b.crowdIn[c.Name] = append(b.crowdIn[c.Name], incoming{caller: caller, path: p, line: c.Line, col: c.Col, confidence: Possible, qualified: c.Qualifier != ""})
		}
		for _, t := range ts {
			b.callIn[t.key] = append(b.callIn[t.key], incoming{caller: caller, path: p, line: c.Line, col: c.Col, confidence: t.confidence, ref: c.Ref})
			if in != nil {
				e := [2]string{caller, t.key}
				if old, ok := b.edges[e]; !ok || rank(t.confidence) < rank(old) {
					b.edges[e] = t.confidence
				}
			}
		}
	}
}

// resolver resolves the calls of one set of files. What a language's
// resolution needs of the whole workspace (where a module specifier
// leads, which headers a file includes) is made on first need and kept
// for the other calls.
type resolver struct {
	*built
	files map[string]*File

	jsModules map[string]string            // "dir\x00specifier" → file, "" outside the workspace
	tsConfigs map[string]*tsOptions        // directory → the TypeScript configuration governing it (nil: none)
	jsVars    map[string]map[string]string // file → its variables made by new X(): "in\x00name" → X (lang_javascript.go)
	rust      *rustIndex                   // Rust crates and modules
	c         *cIndex                      // C and C++ includes and declarations
	byBase    map[string][]string          // file name → the paths of the files so named
	goModules []goModule                   // the workspace's go.mod files
	goDirs    map[string]string            // Go import path → package directory, "" outside
	goPkgs    map[string]bool              // directories that hold Go files
	py        *pyIndex                     // Python lookups
	types     *typeIndex                   // type facts

	// crowd is set by a resolution that found more definitions by name
	// alone than maxNameOnly, without listing them.
	crowd int
}

// targets resolves one call of file f made in def in (nil: top level).
func (r *resolver) targets(f *File, in *Def, c Call) []target {
	if c.Ref {
		return r.refTargets(f, in, c)
	}
	switch lang.Family(f.Language) {
	case lang.JavaScript:
		return r.jsTargets(f, in, c)
	case lang.Rust:
		return r.rustTargets(f, in, c)
	case lang.Java:
		return r.javaTargets(f, in, c)
	case lang.C:
		return r.cTargets(f, in, c)
	case lang.Go:
		return r.goTargets(f, in, c)
	}
	return r.goPythonTargets(f, in, c)
}

// refTargets resolves a function named as a value: only where the name
// says for sure which (a function of the package, of an imported
// package, a method of the receiver's or a known type); a name that may
// be anything (a variable, a field) links nothing.
func (r *resolver) refTargets(f *File, in *Def, c Call) []target {
	if f.Language == lang.Python {
		return r.pyRefTargets(f, in, c)
	}
	if f.Language != lang.Go {
		return nil
	}
	dir := path.Dir(f.Path)
	funcIn := func(d *Def, dir string) bool {
		return d.Language == lang.Go && d.dir == dir && d.Type == "" && d.Kind == "func"
	}
	if c.Qualifier == "" {
		return r.pick(c.Name, Exact, func(d *Def) bool { return funcIn(d, dir) })
	}
	if in != nil && in.Type != "" && in.recv != "" && c.Qualifier == in.recv {
		return r.pick(c.Name, Exact, func(d *Def) bool {
			return d.Type == in.Type && d.Language == lang.Go && d.dir == dir && d.Kind == "method"
		})
	}
	if imp, ok := r.goImport(f, c.In, c.Qualifier); ok {
		if pd := r.goPackageDir(imp.Target); pd != "" {
			return r.pick(c.Name, Imported, func(d *Def) bool { return funcIn(d, pd) })
		}
		return nil
	}
	return r.typedTargets(f, c)
}

// pyRefTargets resolves a Python function named as a value: a function
// of the file or one it imported, a module's function, a method of self's
// class or of a value whose type is told.
func (r *resolver) pyRefTargets(f *File, in *Def, c Call) []target {
	var out []target
	keep := func(ts []target) []target {
		for _, t := range ts {
			if d := r.defs[t.key]; d != nil && (d.Kind == "func" || d.Kind == "method") {
				out = append(out, t)
			}
		}
		return out
	}
	if c.Qualifier == "" {
		for _, imp := range f.Imports {
			if imp.Alias == c.Name && strings.Contains(imp.Target, ".") {
				dot := strings.LastIndexByte(imp.Target, '.')
				return keep(r.inModule(strings.TrimLeft(imp.Target[:dot], "."), imp.Target[dot+1:]))
			}
		}
		var ts []target
		for _, d := range r.pyIndex().byFile[f.Path+"\x00"+c.Name] {
			ts = append(ts, target{d.key, Exact})
		}
		return keep(ts)
	}
	for _, imp := range f.Imports {
		if imp.Alias == c.Qualifier {
			return keep(r.inModule(strings.TrimLeft(imp.Target, "."), c.Name))
		}
	}
	return keep(r.typedTargets(f, c))
}

// pick returns the definitions named name that keep accepts, as targets
// of confidence conf.
func (r *resolver) pick(name, conf string, keep func(d *Def) bool) []target {
	var out []target
	for _, d := range r.byName[name] {
		if keep(d) {
			out = append(out, target{d.key, conf})
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
	// A name a Python file imported under an alias is the module's own.
	if c.Qualifier == "" {
		for _, imp := range f.Imports {
			if imp.Alias == c.Name && strings.Contains(imp.Target, ".") {
				dot := strings.LastIndexByte(imp.Target, '.')
				mod, real := imp.Target[:dot], imp.Target[dot+1:]
				if ts := r.inModule(strings.TrimLeft(mod, "."), real); len(ts) > 0 {
					return ts
				}
			}
		}
	}
	if len(r.byName[c.Name]) == 0 {
		return nil
	}
	py := r.pyIndex()
	if c.Qualifier == "" {
		// Same file first.
		var out []target
		for _, d := range py.byFile[f.Path+"\x00"+c.Name] {
			out = append(out, target{d.key, Exact})
		}
		if len(out) > 0 {
			return out
		}
		return r.byNameOnly(py.funcs, f.Language, c.Name)
	}
	// self.method / receiver.method within the enclosing type.
	if in != nil && in.Type != "" && (c.Qualifier == "self" || c.Qualifier == "this") {
		var out []target
		for _, d := range py.members[path.Dir(f.Path)+"\x00"+in.Type+"\x00"+c.Name] {
			if d.Language == f.Language {
				out = append(out, target{d.key, Exact})
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	// pkg.Func or module.func through an import.
	for _, imp := range f.Imports {
		if imp.Alias != c.Qualifier {
			continue
		}
		return r.inModule(strings.TrimLeft(imp.Target, "."), c.Name) // nil: an import from outside the workspace
	}
	// value.Method: the methods of value's type, when it can be told;
	// otherwise every method of the name.
	if ts := r.typedTargets(f, c); len(ts) > 0 {
		return ts
	}
	return r.byNameOnly(py.methods, f.Language, c.Name)
}

// pyIndex is what Python resolution looks up per call, made once: a call
// named like thousands of definitions (get, __init__) must not scan them
// all, once per call.
type pyIndex struct {
	byFile   map[string][]*Def // "path\x00name": a file's own callable top-level definitions
	members  map[string][]*Def // "dir\x00Type\x00name": a type's members
	byModule map[string][]*Def // "module\x00name": a module's top-level definitions
	funcs    map[string][]*Def // "language\x00name": callable top-level definitions
	methods  map[string][]*Def // "language\x00name": members of any type
}

func (r *resolver) pyIndex() *pyIndex {
	if r.py != nil {
		return r.py
	}
	ix := &pyIndex{byFile: map[string][]*Def{}, members: map[string][]*Def{}, byModule: map[string][]*Def{}, funcs: map[string][]*Def{}, methods: map[string][]*Def{}}
	mods := map[string]string{}
	for _, ds := range r.byName {
		for _, d := range ds {
			if d.Type != "" {
				ix.members[d.dir+"\x00"+d.Type+"\x00"+d.Name] = append(ix.members[d.dir+"\x00"+d.Type+"\x00"+d.Name], d)
				ix.methods[d.Language+"\x00"+d.Name] = append(ix.methods[d.Language+"\x00"+d.Name], d)
				continue
			}
			mod, ok := mods[d.Path]
			if !ok {
				mod = moduleOf(d.Path)
				mods[d.Path] = mod
			}
			ix.byModule[mod+"\x00"+d.Name] = append(ix.byModule[mod+"\x00"+d.Name], d)
			if callable(d) {
				ix.byFile[d.Path+"\x00"+d.Name] = append(ix.byFile[d.Path+"\x00"+d.Name], d)
				ix.funcs[d.Language+"\x00"+d.Name] = append(ix.funcs[d.Language+"\x00"+d.Name], d)
			}
		}
	}
	r.py = ix
	return ix
}

// inModule is the top-level definitions named name in Python module mod.
func (r *resolver) inModule(mod, name string) []target {
	var out []target
	for _, d := range r.pyIndex().byModule[mod+"\x00"+name] {
		out = append(out, target{d.key, Imported})
	}
	return out
}

// byNameOnly links a call by name alone to the definitions of lang in m;
// too many is a crowd, kept unlinked, without listing them.
func (r *resolver) byNameOnly(m map[string][]*Def, language, name string) []target {
	ds := m[language+"\x00"+name]
	if len(ds) > maxNameOnly {
		r.crowd = len(ds)
		return nil
	}
	out := make([]target, 0, len(ds))
	for _, d := range ds {
		out = append(out, target{d.key, NameOnly})
	}
	return out
}

// moduleOf is a Python file's module path relative to the root
// ("inventory/models.py" → "inventory.models"; a package's __init__ is the
// package).
func moduleOf(rel string) string {
	m := strings.TrimSuffix(strings.TrimSuffix(rel, ".py"), "/__init__")
	return strings.ReplaceAll(m, "/", ".")
}
