package codegraph

import (
	"errors"
	"path"
	"sort"
	"strings"

	"github.com/dominikbraun/graph"
)

// resolve turns the files' calls into edges.
func resolve(files map[string]*File) *built {
	b := &built{defs: map[string]*Def{}, byName: map[string][]string{}, calls: map[string][]site{}, callIn: map[string][]incoming{},
		g: graph.New(graph.StringHash, graph.Directed())}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		f := files[p]
		for i := range f.Defs {
			d := &f.Defs[i]
			k := key(d)
			b.defs[k] = d
			b.byName[d.Name] = append(b.byName[d.Name], k)
			_ = b.g.AddVertex(k)
		}
	}
	for _, p := range paths {
		f := files[p]
		for _, c := range f.Calls {
			caller := p + ":"
			var in *Def
			if c.In >= 0 {
				in = &f.Defs[c.In]
				caller = key(in)
			}
			ts := b.targets(f, in, c)
			b.calls[caller] = append(b.calls[caller], site{Path: p, Call: c, Targets: ts})
			for _, t := range ts {
				b.callIn[t.key] = append(b.callIn[t.key], incoming{caller: caller, path: p, line: c.Line, col: c.Col, confidence: t.confidence})
				if in != nil {
					if err := b.g.AddEdge(caller, t.key, graph.EdgeAttribute("confidence", t.confidence)); errors.Is(err, graph.ErrEdgeAlreadyExists) {
						e, _ := b.g.Edge(caller, t.key)
						if rank(t.confidence) < rank(e.Properties.Attributes["confidence"]) {
							_ = b.g.UpdateEdge(caller, t.key, graph.EdgeAttribute("confidence", t.confidence))
						}
					}
				}
			}
		}
	}
	return b
}

// targets resolves one call of file f made in def in (nil: top level).
func (b *built) targets(f *File, in *Def, c Call) []target {
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
	callable := func(d *Def) bool {
		return d.Kind == "func" || d.Kind == "method" || d.Kind == "class" || d.Kind == "struct"
	}
	sameLang := func(d *Def) bool {
		return d.Language == f.Language || strings.HasPrefix(d.Language, "t") && strings.HasPrefix(f.Language, "t")
	}
	dir := path.Dir(f.Path)
	if c.Qualifier == "" {
		// Same file, then same Go package (directory).
		if ts := pick(Exact, func(d *Def) bool { return d.Path == f.Path && d.Type == "" && callable(d) }); len(ts) > 0 {
			return ts
		}
		if f.Language == "go" {
			if ts := pick(Exact, func(d *Def) bool { return d.Language == "go" && path.Dir(d.Path) == dir && d.Type == "" && callable(d) }); len(ts) > 0 {
				return ts
			}
		}
		return pick(NameOnly, func(d *Def) bool { return sameLang(d) && d.Type == "" && callable(d) })
	}
	// self.method / receiver.method within the enclosing type.
	if in != nil && in.Type != "" && (c.Qualifier == "self" || c.Qualifier == "this" || isReceiver(in, c.Qualifier, f)) {
		if ts := pick(Exact, func(d *Def) bool { return d.Type == in.Type && d.Language == f.Language && path.Dir(d.Path) == dir }); len(ts) > 0 {
			return ts
		}
	}
	// pkg.Func or module.func through an import.
	for _, imp := range f.Imports {
		if imp.Alias != c.Qualifier {
			continue
		}
		if f.Language == "go" {
			if ts := pick(Imported, func(d *Def) bool {
				return d.Language == "go" && d.Type == "" && strings.HasSuffix(imp.Target, "/"+path.Dir(d.Path))
			}); len(ts) > 0 {
				return ts
			}
		} else if ts := pick(Imported, func(d *Def) bool { return d.Type == "" && moduleOf(d.Path) == strings.TrimLeft(imp.Target, ".") }); len(ts) > 0 {
			return ts
		}
		return nil // an import from outside the workspace
	}
	// value.Method: every method of the name.
	return pick(NameOnly, func(d *Def) bool { return sameLang(d) && d.Type != "" })
}

// isReceiver says whether q is the receiver variable of the Go method in.
func isReceiver(in *Def, q string, f *File) bool {
	return in.Language == "go" && in.recv != "" && q == in.recv
}

// moduleOf is a Python file's module path relative to the root
// ("inventory/models.py" → "inventory.models"; a package's __init__ is the
// package).
func moduleOf(rel string) string {
	m := strings.TrimSuffix(strings.TrimSuffix(rel, ".py"), "/__init__")
	return strings.ReplaceAll(m, "/", ".")
}
