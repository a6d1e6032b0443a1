package codegraph

import (
	"path"
	"slices"
	"sort"
	"strings"

	"cchub/lang"
	"cchub/outline"
)

// C and C++: a function is defined where it has a body; a header's
// prototypes only declare it (they are kept as imports without a
// target), and a call reaches the definition through the headers its
// file includes. C++ methods defined outside their class (int
// Box::width() {…}) are methods of Box.

// cDef reads what outline writes as a C++ qualified name: Box::width is
// the method width of Box (ns::Box<T>::width too), and a GoogleTest
// TEST(Suite, Name) is named so, not TEST.
func cDef(d *Def, s *outline.Symbol) {
	if scope, name := splitPath(d.Name); scope != "" {
		d.Type, d.Name, d.Kind = lastSegment(scope, "::"), name, "method"
	}
	switch d.Name {
	case "TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P":
		if strings.HasPrefix(s.Signature, "(") {
			d.Name += s.Signature[:strings.IndexByte(s.Signature, ')')+1]
		}
	}
}

// keepDefinitions keeps of f's functions and methods those with a body
// (bodies): the others are declarations. A declared function is kept as
// an import without a target, for the files that include f.
func (f *File) keepDefinitions(bodies []lineSpan) {
	ends := make(map[int][]int, len(bodies)) // last line → first lines
	for _, b := range bodies {
		ends[b.end] = append(ends[b.end], b.start)
	}
	defined := func(d Def) bool {
		for _, start := range ends[d.End] {
			if d.Start <= start {
				return true
			}
		}
		return false
	}
	out := f.Defs[:0]
	for _, d := range f.Defs {
		if (d.Kind == "func" || d.Kind == "method") && !defined(d) {
			if d.Type == "" {
				f.Imports = append(f.Imports, Import{Alias: d.Name})
			}
			continue
		}
		out = append(out, d)
	}
	f.Defs = out
}

// cHeader says whether p is a header by its extension.
func cHeader(p string) bool { return lang.IsHeader(p) }

// maxIncluded bounds the headers one file's includes are followed to.
const maxIncluded = 256

// cIndex is what C and C++ resolution needs of the workspace, made as it
// is needed.
type cIndex struct {
	headerOf map[string]string   // dir + "\x00" + included name → the file, or ""
	ids      map[string]int32    // included file → its number
	included map[string][]int32  // file → the numbers of the files it includes, sorted
	declared map[string][]string // function name → the files declaring it
}

func (r *resolver) cIdx() *cIndex {
	if r.c == nil {
		r.c = &cIndex{headerOf: map[string]string{}, ids: map[string]int32{}, included: map[string][]int32{}}
	}
	return r.c
}

// includeSet is the files one file includes. Each file's set is a sorted
// slice of numbers, not a map: a large C workspace holds one per file.
type includeSet struct {
	ix  *cIndex
	ids []int32
}

func (s includeSet) has(p string) bool {
	id, ok := s.ix.ids[p]
	if !ok {
		return false
	}
	i := sort.Search(len(s.ids), func(i int) bool { return s.ids[i] >= id })
	return i < len(s.ids) && s.ids[i] == id
}

// cIncludes returns the workspace files f includes, directly or through
// other headers: "x.h" is found beside the file, else as the end of a
// workspace path (include/x.h, lib/x.h).
func (r *resolver) cIncludes(f *File) includeSet {
	ix := r.cIdx()
	if ids, ok := ix.included[f.Path]; ok {
		return includeSet{ix, ids}
	}
	seen := map[string]bool{f.Path: true}
	var ids []int32
	queue := []*File{f}
	for len(queue) > 0 && len(ids) < maxIncluded {
		cur := queue[0]
		queue = queue[1:]
		for _, imp := range cur.Imports {
			if imp.Target == "" {
				continue // a declaration
			}
			h := r.cHeaderFile(cur.Path, imp.Target)
			if h == "" || seen[h] {
				continue
			}
			seen[h] = true
			id, ok := ix.ids[h]
			if !ok {
				id = int32(len(ix.ids))
				ix.ids[h] = id
			}
			ids = append(ids, id)
			queue = append(queue, r.files[h])
		}
	}
	slices.Sort(ids)
	ix.included[f.Path] = ids
	return includeSet{ix, ids}
}

// cHeaderFile is the workspace file an #include "name" in from means,
// or "".
func (r *resolver) cHeaderFile(from, name string) string {
	ix := r.cIdx()
	key := path.Dir(from) + "\x00" + name
	if p, ok := ix.headerOf[key]; ok {
		return p
	}
	isC := func(p string) bool {
		f := r.files[p]
		return f != nil && lang.Family(f.Language) == "c"
	}
	found := ""
	if p := path.Join(path.Dir(from), name); isC(p) {
		found = p
	} else {
		for _, p := range r.withBase(path.Base(name)) {
			if isC(p) && (p == name || strings.HasSuffix(p, "/"+name)) {
				found = p
				break
			}
		}
	}
	ix.headerOf[key] = found
	return found
}

// declaredIn returns the files that declare the function name.
func (r *resolver) declaredIn(name string) []string {
	ix := r.cIdx()
	if ix.declared == nil {
		ix.declared = map[string][]string{}
		for p, f := range r.files {
			if lang.Family(f.Language) != "c" {
				continue
			}
			for _, imp := range f.Imports {
				if imp.Target == "" {
					ix.declared[imp.Alias] = append(ix.declared[imp.Alias], p)
				}
			}
		}
		for _, ps := range ix.declared {
			sort.Strings(ps)
		}
	}
	return ix.declared[name]
}

// cFree resolves a call of the function name from f: defined in f
// (exact); defined in a header f includes, or declared in one and defined
// in a source file (import); else by name.
func (r *resolver) cFree(f *File, name string) []target {
	free := func(d *Def) bool { return lang.Family(d.Language) == "c" && d.Type == "" && callable(d) }
	if ts := r.pick(name, Exact, func(d *Def) bool { return free(d) && d.Path == f.Path }); len(ts) > 0 {
		return ts
	}
	inc := r.cIncludes(f)
	if ts := r.pick(name, Imported, func(d *Def) bool { return free(d) && inc.has(d.Path) }); len(ts) > 0 {
		return ts
	}
	for _, h := range r.declaredIn(name) {
		if !inc.has(h) {
			continue
		}
		// Defined in a source file: one that includes the header itself,
		// when there is one (not another file's static function).
		defined := func(d *Def) bool { return free(d) && !cHeader(d.Path) }
		if ts := r.pick(name, Imported, func(d *Def) bool { return defined(d) && r.cIncludes(r.files[d.Path]).has(h) }); len(ts) > 0 {
			return ts
		}
		if ts := r.pick(name, Imported, defined); len(ts) > 0 {
			return ts
		}
	}
	return r.pick(name, NameOnly, free)
}

// cClassFound says how sure it is that the class name, written in f, is
// the workspace's: defined in f (exact), in a header f includes (import),
// elsewhere (name-only).
func (r *resolver) cClassFound(f *File, name string) string {
	class := func(d *Def) bool {
		return lang.Family(d.Language) == "c" && d.Type == "" && (d.Kind == "class" || d.Kind == "struct")
	}
	if len(r.pick(name, Exact, func(d *Def) bool { return class(d) && d.Path == f.Path })) > 0 {
		return Exact
	}
	inc := r.cIncludes(f)
	if len(r.pick(name, Exact, func(d *Def) bool { return class(d) && inc.has(d.Path) })) > 0 {
		return Imported
	}
	return NameOnly
}

// cTargets resolves a C or C++ call: a bare f() among the methods of the
// class it is made in (C++), then as a function (cFree); this->m() within
// the class, x.m() and p->m() by name among methods; Type::m() among the
// type's methods, as sure as the type is found; ns::f() as a function.
func (r *resolver) cTargets(f *File, in *Def, c Call) []target {
	isC := func(d *Def) bool { return lang.Family(d.Language) == "c" }
	inClass := func(d *Def) bool { return isC(d) && in != nil && in.Type != "" && d.Type == in.Type }
	scope, scoped := strings.CutSuffix(c.Qualifier, "::")
	switch {
	case c.Qualifier == "":
		if ts := r.pick(c.Name, Exact, inClass); len(ts) > 0 {
			return ts
		}
		return r.constructors(r.cFree(f, c.Name))
	case !scoped:
		if c.Qualifier == "this" {
			if ts := r.pick(c.Name, Exact, inClass); len(ts) > 0 {
				return ts
			}
		}
		return r.pick(c.Name, NameOnly, func(d *Def) bool { return isC(d) && d.Type != "" })
	case scope == "std" || strings.HasPrefix(scope, "std::"):
		return nil
	}
	scope = lastSegment(scope, "::")
	if ts := r.pick(c.Name, "", func(d *Def) bool { return isC(d) && d.Type == scope }); len(ts) > 0 {
		conf := Exact
		if in == nil || in.Type != scope {
			conf = r.cClassFound(f, scope)
		}
		for i := range ts {
			ts[i].confidence = conf
		}
		return ts
	}
	return r.constructors(r.cFree(f, c.Name))
}

// constructors replaces the classes among ts (a construction: Box(1), new
// Box(1)) by their constructors, where they declare some.
func (r *resolver) constructors(ts []target) []target {
	out := ts[:0:0]
	for _, t := range ts {
		d := r.defs[t.key]
		if d.Kind != "class" && d.Kind != "struct" {
			out = append(out, t)
			continue
		}
		fam := lang.Family(d.Language)
		if cs := r.pick(d.Name, t.confidence, func(m *Def) bool { return m.Type == d.Name && m.Kind == "method" && lang.Family(m.Language) == fam }); len(cs) > 0 {
			out = append(out, cs...)
		} else {
			out = append(out, t)
		}
	}
	return out
}
