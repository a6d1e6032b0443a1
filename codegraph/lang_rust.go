package codegraph

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/lang"
)

// Rust: use trees flattened into imports, calls written in macro
// arguments, and module paths (crate::, self::, super::, a crate's name)
// resolved to the files of a module by the Cargo layout: src/lib.rs and
// src/main.rs are the crate, src/a.rs and src/a/mod.rs the module a.

// rustTokenCall reads a call written in a macro's tokens: a name directly
// followed by a parenthesized group (add(1, 2) in assert_eq!(add(1, 2), 3);
// not vec![…] or m!(…), nor in an attribute or a macro_rules body). What
// it is called on comes from the tokens before the name: x.m( is called
// on x, a::b::f( is f in a::b.
func rustTokenCall(name, args *sitter.Node, src []byte) (Call, bool) {
	if name == nil || int(args.StartByte()) >= len(src) || src[args.StartByte()] != '(' ||
		strings.TrimSpace(string(src[name.EndByte():args.StartByte()])) != "" {
		return Call{}, false
	}
	outer := name.Parent()
	for outer != nil && outer.Type() == "token_tree" {
		outer = outer.Parent()
	}
	if outer != nil && (outer.Type() == "attribute" || outer.Type() == "macro_rule" || outer.Type() == "macro_definition") {
		return Call{}, false // #[cfg(all(test, …))], or a macro's own body
	}
	p := name.StartPoint()
	c := Call{Name: name.Content(src), Line: int(p.Row) + 1, Col: int(p.Column) + 1}
	prev := name.PrevSibling()
	switch {
	case prev == nil:
	case prev.Type() == ".":
		c.Qualifier = "."
		if v := prev.PrevSibling(); v != nil {
			c.Qualifier = v.Content(src)
		}
	case prev.Type() == "::":
		var segs []string
		for prev != nil && prev.Type() == "::" {
			seg := prev.PrevSibling()
			if seg == nil || !seg.IsNamed() || seg.Type() == "token_tree" {
				break
			}
			segs = append([]string{seg.Content(src)}, segs...)
			prev = seg.PrevSibling()
		}
		if len(segs) > 0 {
			c.Qualifier = strings.Join(segs, "::") + "::"
		}
	}
	return c, true
}

// rustUses flattens a use declaration's tree into one import per name:
// use a::{b as c, d::*} imports c (a::b) and everything of a::d.
func rustUses(n *sitter.Node, src []byte) []Import {
	var out []Import
	text := func(n *sitter.Node) string { return strings.Join(strings.Fields(n.Content(src)), "") }
	join := func(a, b string) string {
		if a == "" || b == "" {
			return a + b
		}
		return a + "::" + b
	}
	var walk func(n *sitter.Node, prefix string)
	walk = func(n *sitter.Node, prefix string) {
		switch n.Type() {
		case "line_comment", "block_comment":
		case "use_as_clause":
			if p, a := n.ChildByFieldName("path"), n.ChildByFieldName("alias"); p != nil && a != nil {
				t := strings.TrimSuffix(join(prefix, text(p)), "::self") // a::{self as b}
				out = append(out, Import{Alias: a.Content(src), Target: t})
			}
		case "use_wildcard":
			t := strings.TrimSuffix(strings.TrimSuffix(text(n), "*"), "::")
			out = append(out, Import{Alias: "*", Target: join(prefix, t)})
		case "scoped_use_list":
			p := prefix
			if pn := n.ChildByFieldName("path"); pn != nil {
				p = join(prefix, text(pn))
			}
			if l := n.ChildByFieldName("list"); l != nil {
				walk(l, p)
			}
		case "use_list":
			for i := 0; i < int(n.NamedChildCount()); i++ {
				walk(n.NamedChild(i), prefix)
			}
		default: // a name or a path: b, a::b, and self in a::{self}
			t := join(prefix, text(n))
			if t == "self" {
				t = ""
			}
			t = strings.TrimSuffix(t, "::self")
			if t != "" {
				out = append(out, Import{Alias: lastSegment(t, "::"), Target: t})
			}
		}
	}
	if n != nil {
		walk(n, "")
	}
	return out
}

func lastSegment(s, sep string) string {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[i+len(sep):]
	}
	return s
}

// rustIsTest says whether attributes mark a test: #[test], #[tokio::test],
// #[test_case(…)], #[rstest].
func rustIsTest(attrs []string) bool {
	for _, a := range attrs {
		a = strings.TrimSuffix(strings.TrimPrefix(a, "#["), "]")
		if i := strings.IndexByte(a, '('); i >= 0 {
			a = a[:i]
		}
		a = strings.TrimSpace(a)
		if a == "test" || strings.HasSuffix(a, "::test") || a == "test_case" || a == "rstest" {
			return true
		}
	}
	return false
}

// rustModule is the crate of a Rust file (the crate's src directory, or
// the file itself for a crate of one file: tests/it.rs, build.rs) and its
// module path in the crate.
func rustModule(p string) (crate string, mod []string) {
	dir, file := path.Split(p)
	segs := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	src := -1
	for i, s := range segs {
		if s == "src" {
			src = i
		}
	}
	if src < 0 || dir == "" {
		return p, nil
	}
	crate, mod = strings.Join(segs[:src+1], "/"), append([]string(nil), segs[src+1:]...)
	switch stem := strings.TrimSuffix(file, ".rs"); {
	case stem == "mod":
	case len(mod) == 0 && (stem == "lib" || stem == "main"):
	default:
		mod = append(mod, stem)
	}
	return crate, mod
}

func rustModKey(crate string, mod []string) string { return crate + "|" + strings.Join(mod, "::") }

// rustIndex is what Rust resolution needs of the workspace.
type rustIndex struct {
	crates  map[string]string   // crate name (my_lib for crates/my-lib/src) → crate; "" the root's src, whose name only Cargo.toml knows
	modules map[string][]string // module key → its files
	keyOf   map[string]string   // file → its module key
}

func (r *resolver) rustIdx() *rustIndex {
	if r.rust != nil {
		return r.rust
	}
	ix := &rustIndex{crates: map[string]string{}, modules: map[string][]string{}, keyOf: map[string]string{}}
	for p, f := range r.files {
		if f.Language != lang.Rust {
			continue
		}
		crate, mod := rustModule(p)
		k := rustModKey(crate, mod)
		ix.modules[k] = append(ix.modules[k], p)
		ix.keyOf[p] = k
		if crate != p {
			name := ""
			if d := path.Dir(crate); d != "." {
				name = strings.ReplaceAll(path.Base(d), "-", "_")
			}
			ix.crates[name] = crate
		}
	}
	r.rust = ix
	return ix
}

// rustStd are the crates of the toolchain: never the workspace's.
var rustStd = map[string]bool{"std": true, "core": true, "alloc": true, "proc_macro": true, "test": true}

// maxRustHops bounds how many use declarations one path is followed
// through.
const maxRustHops = 4

// rustPath is the module a path written in f names (its key), following
// f's use declarations for its first segment; ok is false for a module
// outside the workspace.
func (r *resolver) rustPath(f *File, segs []string, hops int) (string, bool) {
	crate, mod := rustModule(f.Path)
	if len(segs) == 0 {
		return rustModKey(crate, mod), true
	}
	switch segs[0] {
	case "crate":
		return rustModKey(crate, segs[1:]), true
	case "self":
		return rustModKey(crate, append(mod, segs[1:]...)), true
	case "super":
		for len(segs) > 0 && segs[0] == "super" {
			if len(mod) == 0 {
				return "", false
			}
			mod, segs = mod[:len(mod)-1], segs[1:]
		}
		return rustModKey(crate, append(mod, segs...)), true
	}
	if imp := rustUse(f, segs[0]); imp != nil && hops < maxRustHops {
		return r.rustPath(f, append(strings.Split(imp.Target, "::"), segs[1:]...), hops+1)
	}
	ix := r.rustIdx()
	if c, ok := ix.crates[segs[0]]; ok && segs[0] != "" {
		return rustModKey(c, segs[1:]), true
	}
	if k := rustModKey(crate, append(mod, segs...)); ix.modules[k] != nil {
		return k, true
	}
	if root, ok := ix.crates[""]; ok && !rustStd[segs[0]] {
		// The root crate, named in Cargo.toml: use mycrate::util from tests/.
		if k := rustModKey(root, segs[1:]); ix.modules[k] != nil {
			return k, true
		}
	}
	return "", false
}

// rustUse is the use declaration of f that binds alias, or nil.
func rustUse(f *File, alias string) *Import {
	for i := range f.Imports {
		if f.Imports[i].Alias == alias {
			return &f.Imports[i]
		}
	}
	return nil
}

// rustFns returns the functions named name of the module modKey: its own,
// or those it re-exports (pub use).
func (r *resolver) rustFns(modKey, name string, hops int) []string {
	ix := r.rustIdx()
	var out []string
	for _, d := range r.byName[name] {
		if d.Language == lang.Rust && d.Type == "" && callable(d) && ix.keyOf[d.Path] == modKey {
			out = append(out, d.key)
		}
	}
	if len(out) > 0 || hops >= maxRustHops {
		return out
	}
	for _, p := range ix.modules[modKey] {
		mf := r.files[p]
		for _, imp := range mf.Imports {
			if imp.Alias != name && imp.Alias != "*" {
				continue
			}
			t := strings.Split(imp.Target, "::")
			real := name
			if imp.Alias != "*" {
				t, real = t[:len(t)-1], t[len(t)-1]
			}
			if mk, ok := r.rustPath(mf, t, 0); ok {
				out = append(out, r.rustFns(mk, real, hops+1)...)
			}
		}
	}
	return out
}

// rustIn resolves the function name of the module that segs names from
// f: exact in f itself, import elsewhere.
func (r *resolver) rustIn(f *File, segs []string, name string) []target {
	mk, ok := r.rustPath(f, segs, 0)
	if !ok {
		return nil
	}
	var out []target
	for _, k := range r.rustFns(mk, name, 0) {
		conf := Imported
		if r.defs[k].Path == f.Path {
			conf = Exact
		}
		out = append(out, target{k, conf})
	}
	return out
}

func rustSameCrate(a, b string) bool {
	ca, _ := rustModule(a)
	cb, _ := rustModule(b)
	return ca == cb
}

// rustTypeBound says how sure it is that the type T, written as segs in
// f, is the workspace's T: defined in f (exact), brought in by a use or a
// path to its module (import), or not known (name-only).
func (r *resolver) rustTypeBound(f *File, segs []string, T string) string {
	isType := func(d *Def) bool {
		return d.Language == lang.Rust && d.Type == "" && (d.Kind == "struct" || d.Kind == "enum" || d.Kind == "trait" || d.Kind == "type")
	}
	if len(r.pick(T, Exact, func(d *Def) bool { return isType(d) && d.Path == f.Path })) > 0 {
		return Exact
	}
	ix := r.rustIdx()
	inModule := func(mk string) bool {
		return len(r.pick(T, Exact, func(d *Def) bool { return isType(d) && ix.keyOf[d.Path] == mk })) > 0
	}
	if len(segs) > 1 {
		if mk, ok := r.rustPath(f, segs[:len(segs)-1], 0); ok && inModule(mk) {
			return Imported
		}
		return NameOnly
	}
	if rustUse(f, segs[0]) != nil {
		return Imported
	}
	for _, imp := range f.Imports {
		if imp.Alias == "*" {
			if mk, ok := r.rustPath(f, strings.Split(imp.Target, "::"), 0); ok && inModule(mk) {
				return Imported
			}
		}
	}
	return NameOnly
}

// rustTargets resolves a Rust call: self.m() within the impl's type,
// x.m() by name among methods; a bare f() in the file, then through a use
// (or a glob use), then by name; Type::f() among the type's functions;
// a::b::f() in the module the path names.
func (r *resolver) rustTargets(f *File, in *Def, c Call) []target {
	rust := func(d *Def) bool { return d.Language == lang.Rust }
	scope, scoped := strings.CutSuffix(c.Qualifier, "::")
	if c.Qualifier != "" && !scoped {
		if c.Qualifier == "self" && in != nil && in.Type != "" {
			if ts := r.pick(c.Name, Exact, func(d *Def) bool { return rust(d) && d.Type == in.Type && rustSameCrate(d.Path, f.Path) }); len(ts) > 0 {
				return ts
			}
		}
		return r.pick(c.Name, NameOnly, func(d *Def) bool { return rust(d) && d.Kind == "method" })
	}
	if c.Qualifier == "" {
		if ts := r.pick(c.Name, Exact, func(d *Def) bool { return d.Path == f.Path && d.Type == "" && callable(d) }); len(ts) > 0 {
			return ts
		}
		if imp := rustUse(f, c.Name); imp != nil {
			t := strings.Split(imp.Target, "::")
			return r.rustIn(f, t[:len(t)-1], t[len(t)-1])
		}
		for _, imp := range f.Imports {
			if imp.Alias == "*" {
				if ts := r.rustIn(f, strings.Split(imp.Target, "::"), c.Name); len(ts) > 0 {
					return ts
				}
			}
		}
		return r.pick(c.Name, NameOnly, func(d *Def) bool { return rust(d) && d.Type == "" && callable(d) })
	}
	segs := strings.Split(scope, "::")
	T := segs[len(segs)-1]
	if T == "Self" && in != nil && in.Type != "" {
		return r.pick(c.Name, Exact, func(d *Def) bool { return rust(d) && d.Type == in.Type && rustSameCrate(d.Path, f.Path) })
	}
	if segs[0] == "super" || segs[0] == "self" {
		// From an inline module (mod tests) to the file around it.
		if ts := r.pick(c.Name, Exact, func(d *Def) bool { return d.Path == f.Path && d.Type == "" && callable(d) }); len(ts) > 0 {
			return ts
		}
	}
	// A type's function or method: Stack::new(), Shape::area(&c).
	if len(segs) == 1 {
		if imp := rustUse(f, T); imp != nil {
			T = lastSegment(imp.Target, "::")
		}
	}
	if ts := r.pick(c.Name, "", func(d *Def) bool { return rust(d) && d.Type == T }); len(ts) > 0 {
		conf := r.rustTypeBound(f, segs, T)
		for i := range ts {
			ts[i].confidence = conf
		}
		return ts
	}
	return r.rustIn(f, segs, c.Name)
}
