package codegraph

import (
	"path"
	"strings"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/lang"
)

// JavaScript, TypeScript and TSX: ES and CommonJS imports, re-exports
// through index files, module specifiers resolved relative to the file
// that writes them, and it/test/describe callbacks as tests.

// jsImp is one JavaScript import or export.
type jsImp struct {
	alias  string // the name in the file; for an export, the name exported
	name   string // the name in module: "default", an exported name, or "*" (all of it)
	module string // the module specifier; "" for a local exported as alias
	export bool   // an export: it binds no name in the file
}

// jsImport reads one import or export of javascript.scm.
func jsImport(cp captured, src []byte) Import {
	text := func(n *sitter.Node) string {
		if n == nil {
			return ""
		}
		return n.Content(src)
	}
	j := jsImp{alias: text(cp.alias), name: text(cp.imp), module: text(cp.from), export: cp.export != nil}
	if j.name == "" {
		j.name = cp.props["import"]
	}
	if j.alias == "" {
		j.alias = j.name
	}
	return Import{Alias: j.alias, Target: jsTarget(j)}
}

// jsTarget writes what an import names as the statement does: "f from
// ./a", "* from ./a", "export f from ./a", "export foo" (a local).
func jsTarget(j jsImp) string {
	t := j.name
	if j.module != "" {
		t += " from " + j.module
	}
	if j.export {
		t = "export " + t
	}
	return t
}

// jsRead reads an import back from what jsTarget wrote.
func jsRead(imp Import) jsImp {
	j := jsImp{alias: imp.Alias}
	t, export := strings.CutPrefix(imp.Target, "export ")
	j.export = export
	j.name, j.module, _ = strings.Cut(t, " from ")
	return j
}

// jsDef names a definition the way its callers do: exports.f and
// module.exports.f are f, module.exports itself is the module's default
// export, and Foo.prototype.bar is the method bar of Foo.
func jsDef(d *Def) {
	n := strings.TrimPrefix(d.Name, "module.")
	switch {
	case d.Name == "module.exports":
		d.Name = "default"
	case strings.HasPrefix(n, "exports."):
		d.Name = strings.TrimPrefix(n, "exports.")
	case strings.Contains(d.Name, ".prototype."):
		t, m, _ := strings.Cut(d.Name, ".prototype.")
		d.Type, d.Name, d.Kind = t, m, "method"
	}
}

// maxTestTitle bounds the title a test definition's name quotes.
const maxTestTitle = 60

// jsTestDef is the test that an it, test or describe call defines: named
// by the function and its title (it("adds")), spanning the call.
func jsTestDef(f *File, cp captured, src []byte) Def {
	title := cp.testName.Content(src)
	if len(title) >= 2 {
		title = title[1 : len(title)-1] // the quotes or backticks
	}
	if len(title) > maxTestTitle {
		cut := maxTestTitle
		for cut > 0 && !utf8.RuneStart(title[cut]) {
			cut--
		}
		title = title[:cut] + "…"
	}
	sp := spanOf(cp.test)
	return Def{Name: cp.testFn.Content(src) + `("` + title + `")`, Kind: "test", Path: f.Path,
		Start: sp.start, End: sp.end, Test: true, Language: f.Language}
}

// testHead is where the function part of a JavaScript test's call is
// (it, it.only, test.each(table)), and the test it declares.
type testHead struct {
	def      int
	from, to int // line<<20 | column, 1-based; to is past the end
}

func newTestHead(def int, fn *sitter.Node) testHead {
	h := testHead{def: def}
	if fn != nil {
		s, e := fn.StartPoint(), fn.EndPoint()
		h.from, h.to = jsPlace(int(s.Row)+1, int(s.Column)+1), jsPlace(int(e.Row)+1, int(e.Column)+1)
	}
	return h
}

func jsPlace(line, col int) int { return line<<20 | col }

// holds says whether the call c is the one that declares the test.
func (h testHead) holds(c *Call) bool {
	p := jsPlace(c.Line, c.Col)
	return h.from <= p && p < h.to
}

// jsModule is the workspace file that the module specifier spec, written
// in the file from, names: ./a is a.ts (or .tsx, .js, …) or a/index.ts;
// a bare specifier is looked up in the paths and baseUrl of the file's
// TypeScript configuration (tsconfig.go). It is "" for a package (react)
// or a file the workspace does not have.
func (r *resolver) jsModule(from, spec string) string {
	key := path.Dir(from) + "\x00" + spec
	if p, ok := r.jsModules[key]; ok {
		return p
	}
	if r.jsModules == nil {
		r.jsModules = map[string]string{}
	}
	var p string
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		p = r.jsFile(path.Join(path.Dir(from), spec))
	} else if spec != "" {
		p = r.jsAliased(from, spec)
	}
	r.jsModules[key] = p
	return p
}

// jsFile finds the file a module path without extension names.
func (r *resolver) jsFile(base string) string {
	isJS := func(p string) bool {
		f := r.files[p]
		return f != nil && lang.Family(f.Language) == lang.JavaScript
	}
	if isJS(base) {
		return base
	}
	stem := base
	if lang.NameOf(base) == lang.JavaScript { // TypeScript's ESM names the compiled file: ./a.js is a.ts
		stem = strings.TrimSuffix(base, path.Ext(base))
	}
	for _, c := range lang.ModuleCandidates(stem) {
		if isJS(c) {
			return c
		}
	}
	for _, c := range lang.ModuleCandidates(base + "/index") {
		if isJS(c) {
			return c
		}
	}
	return ""
}

// jsBinding is the import that binds name in f.
func jsBinding(f *File, name string) (jsImp, bool) {
	for _, imp := range f.Imports {
		if imp.Alias == name {
			if j := jsRead(imp); !j.export {
				return j, true
			}
		}
	}
	return jsImp{}, false
}

// jsExported returns the definitions (keys) the module file exports as
// name, following re-exports. seen stops a cycle of them.
func (r *resolver) jsExported(file, name string, seen map[string]bool) []string {
	mf := r.files[file]
	if mf == nil || seen[file+"\x00"+name] {
		return nil
	}
	seen[file+"\x00"+name] = true
	for _, imp := range mf.Imports {
		if imp.Alias != name {
			continue
		}
		j := jsRead(imp)
		switch {
		case !j.export:
			continue
		case j.module == "": // export default foo; export {foo as bar}
			return r.jsLocal(mf, j.name, seen)
		case j.name == "*": // export * as ns: a namespace, not a function
			return nil
		}
		return r.jsExported(r.jsModule(file, j.module), j.name, seen)
	}
	if ks := r.jsLocal(mf, name, seen); len(ks) > 0 {
		return ks
	}
	for _, imp := range mf.Imports {
		if imp.Alias != "*" {
			continue
		}
		if j := jsRead(imp); j.export && j.module != "" { // export * from './a'
			if ks := r.jsExported(r.jsModule(file, j.module), name, seen); len(ks) > 0 {
				return ks
			}
		}
	}
	return nil
}

// jsLocal returns what name is at the top level of module mf: its own
// definition, or what it imported as name.
func (r *resolver) jsLocal(mf *File, name string, seen map[string]bool) []string {
	var out []string
	for _, d := range r.byName[name] {
		if d.Path == mf.Path && d.Type == "" && d.Kind != "test" {
			out = append(out, d.key)
		}
	}
	if len(out) > 0 {
		return out
	}
	if j, ok := jsBinding(mf, name); ok && j.name != "*" {
		return r.jsExported(r.jsModule(mf.Path, j.module), j.name, seen)
	}
	return nil
}

// jsImported resolves the call of a name that j binds in f: what the
// module exports as the name imported. A namespace called is the
// module's default (CommonJS module.exports = function).
func (r *resolver) jsImported(f *File, j jsImp) []target {
	mod := r.jsModule(f.Path, j.module)
	if mod == "" {
		return nil // a package, or a file the workspace does not have
	}
	name := j.name
	if name == "*" {
		name = "default"
	}
	ks := r.jsExported(mod, name, map[string]bool{})
	if len(ks) == 0 && name == "default" {
		// module.exports = load; import load from './load'
		ks = r.jsExported(mod, j.alias, map[string]bool{})
	}
	if len(ks) == 0 {
		// The module is the workspace's, but how it exports the name is
		// beyond these rules.
		return r.pick(name, NameOnly, func(d *Def) bool { return lang.Family(d.Language) == lang.JavaScript && d.Type == "" && callable(d) })
	}
	return asTargets(ks, Imported)
}

func asTargets(keys []string, conf string) []target {
	out := make([]target, len(keys))
	for i, k := range keys {
		out[i] = target{k, conf}
	}
	return out
}

// jsTargets resolves a JavaScript or TypeScript call: a name of the file,
// then an imported one, then by name; this.m() and super.m() within the
// class and the classes it extends; new X().m(), and x.m() on a variable
// made by new X() or a parameter or variable declared of type X; ns.f()
// through a namespace import or a TypeScript namespace; Store.create()
// on a class of the file or an imported one; any other obj.m() by name.
func (r *resolver) jsTargets(f *File, in *Def, c Call) []target {
	js := func(d *Def) bool { return lang.Family(d.Language) == lang.JavaScript }
	if c.Qualifier == "" {
		if ts := r.pick(c.Name, Exact, func(d *Def) bool { return d.Path == f.Path && d.Type == "" && callable(d) }); len(ts) > 0 {
			return ts
		}
		if j, ok := jsBinding(f, c.Name); ok {
			return r.jsImported(f, j)
		}
		return r.pick(c.Name, NameOnly, func(d *Def) bool { return js(d) && d.Type == "" && callable(d) })
	}
	var classes []target // what the qualifier names: classes, namespaces
	switch ctor := jsConstructed(c.Qualifier); {
	case (c.Qualifier == "this" || c.Qualifier == "super") && in != nil && in.Type != "":
		for _, cls := range r.jsContainers(f, in.Type) {
			if r.defs[cls.key].Path != f.Path {
				continue // the class holding the method, not one it imports
			}
			if c.Qualifier == "this" {
				classes = append(classes, cls)
			} else {
				classes = append(classes, r.jsBases(r.defs[cls.key], cls.confidence)...)
			}
		}
	case ctor != "": // new X().m()
		classes = r.jsContainers(f, ctor)
	case r.jsVar(f, c.In, c.Qualifier) != "": // x = new X(); x.m(), (x: X) => x.m()
		classes = r.jsContainers(f, r.jsVar(f, c.In, c.Qualifier))
	default:
		classes = r.pick(c.Qualifier, Exact, func(d *Def) bool { return d.Path == f.Path && (d.Kind == "class" || d.Kind == "namespace") })
		if j, ok := jsBinding(f, c.Qualifier); ok && len(classes) == 0 {
			mod := r.jsModule(f.Path, j.module)
			if mod == "" {
				return nil // a package: React.createElement()
			}
			if j.name == "*" || j.name == "default" { // ns.f()
				if ks := r.jsExported(mod, c.Name, map[string]bool{}); len(ks) > 0 {
					return asTargets(ks, Imported)
				}
			}
			if j.name == "*" {
				// What the module exports as the name is beyond these
				// rules (export { arrayType as array }, arrayType a
				// value): a function of that name, never a method.
				return r.pick(c.Name, NameOnly, func(d *Def) bool { return js(d) && d.Type == "" && callable(d) })
			}
			if j.name != "*" {
				classes = asTargets(r.jsExported(mod, j.name, map[string]bool{}), Imported)
			}
		} else if !ok && len(classes) == 0 {
			classes = r.jsContainers(f, c.Qualifier) // z.util.assertEqual()
		}
	}
	if c.Qualifier == "this" && len(classes) == 0 && in != nil && in.Type != "" {
		// Foo.prototype.m = function () { this.n() }: Foo is no class.
		if ts := r.pick(c.Name, Exact, func(d *Def) bool { return d.Path == f.Path && d.Type == in.Type }); len(ts) > 0 {
			return ts
		}
	}
	for _, cls := range classes {
		d := r.defs[cls.key]
		var ts []target
		switch d.Kind {
		case "class":
			ts = r.jsMethod(d, c.Name, cls.confidence, 0)
		case "namespace": // errorUtil.errToObj(): a member of the namespace
			ts = r.pick(c.Name, cls.confidence, func(m *Def) bool {
				return m.Path == d.Path && m.Type == "" && d.Start <= m.Start && m.End <= d.End && callable(m)
			})
		}
		if len(ts) > 0 {
			return ts
		}
	}
	return r.pick(c.Name, NameOnly, func(d *Def) bool { return js(d) && d.Type != "" })
}

// maxBases bounds the chain of classes a method is looked for in.
const maxBases = 8

// jsMethod is the method name of the class cls, or of the classes it
// extends, nearest first; conf is how sure the class is.
func (r *resolver) jsMethod(cls *Def, name, conf string, depth int) []target {
	own := func(m *Def) bool { return m.Path == cls.Path && m.Type == cls.Name && callable(m) && m.Kind != "class" }
	if ts := r.pick(name, conf, own); len(ts) > 0 || depth >= maxBases {
		return ts
	}
	for _, b := range r.jsBases(cls, conf) {
		if ts := r.jsMethod(r.defs[b.key], name, b.confidence, depth+1); len(ts) > 0 {
			return ts
		}
	}
	return nil
}

// jsBases is the classes cls extends, as sure as conf and how each was
// found.
func (r *resolver) jsBases(cls *Def, conf string) []target {
	f := r.files[cls.Path]
	if f == nil {
		return nil
	}
	var out []target
	for _, bd := range f.Binds {
		if bd.Kind != 'e' || bd.Owner != cls.Name {
			continue
		}
		for _, b := range r.jsContainers(f, strings.TrimPrefix(bd.Expr, ":")) {
			if b.key != cls.key {
				out = append(out, target{b.key, weaker(conf, b.confidence)})
			}
		}
	}
	return out
}

// weaker is the lesser of two evidences.
func weaker(a, b string) string {
	if rank(a) >= rank(b) {
		return a
	}
	return b
}

// jsContainers is the classes and TypeScript namespaces that name (X, or
// ns.X of a namespace import) denotes in f: its own, or imported ones.
func (r *resolver) jsContainers(f *File, name string) []target {
	containers := func(ts []target) []target {
		var out []target
		for _, t := range ts {
			if k := r.defs[t.key].Kind; k == "class" || k == "namespace" {
				out = append(out, t)
			}
		}
		return out
	}
	if own := containers(r.pick(name, Exact, func(d *Def) bool { return d.Path == f.Path && d.Type == "" })); len(own) > 0 {
		return own
	}
	q, member, dotted := strings.Cut(name, ".")
	j, ok := jsBinding(f, q)
	if !ok || dotted && (j.name != "*" || strings.Contains(member, ".")) {
		return nil
	}
	mod := r.jsModule(f.Path, j.module)
	if mod == "" {
		return nil
	}
	exported := j.name
	if dotted {
		exported = member
	}
	if exported == "*" {
		exported = "default" // const X = require('./x'): module.exports = class
	}
	return containers(asTargets(r.jsExported(mod, exported, map[string]bool{}), Imported))
}

// jsConstructed is the class a qualifier constructs, "new X(…)" or
// "new ns.X(…)" (X, ns.X), or "".
func jsConstructed(qualifier string) string {
	rest, ok := strings.CutPrefix(qualifier, "new ")
	if !ok {
		return ""
	}
	rest = strings.TrimSpace(rest)
	end := strings.IndexAny(rest, "(<")
	if end < 0 {
		end = len(rest)
	}
	name := rest[:end]
	for _, part := range strings.Split(name, ".") {
		if !isIdent(part) {
			return ""
		}
	}
	return name
}

// jsVar is the class of the variable or parameter name in definition in
// (or at the file's top level): the one it is made by (new X()) or
// declared of (s: X), when every binding of it there says the same one;
// "" otherwise.
func (r *resolver) jsVar(f *File, in int, name string) string {
	vars, ok := r.jsVars[f.Path]
	if !ok {
		// The file's variables, read once: "in\x00name" → the class, ""
		// when two bindings disagree.
		vars = map[string]string{}
		for _, bd := range f.Binds {
			if bd.Kind != 'v' {
				continue
			}
			k := localKey(bd.In, bd.Name)
			cls, seen := vars[k]
			now, typed := strings.CutPrefix(bd.Expr, ":")
			if !typed {
				now = jsConstructed(bd.Expr)
			}
			if !seen {
				vars[k] = now
			} else if cls != now {
				vars[k] = ""
			}
		}
		if r.jsVars == nil {
			r.jsVars = map[string]map[string]string{}
		}
		r.jsVars[f.Path] = vars
	}
	if cls, ok := vars[localKey(in, name)]; ok {
		return cls
	}
	return vars[localKey(-1, name)]
}

// jsBase is the class a class's outline signature says it extends
// ("<T> extends Base<T> implements I" → Base, "extends ns.Base" →
// ns.Base), or "" when it extends none or an expression (mixin(Base)).
func jsBase(sig string) string {
	sig = strings.TrimSpace(sig)
	if strings.HasPrefix(sig, "<") { // the type parameters, which may say extends too
		end := closingAngle(sig)
		if end < 0 {
			return ""
		}
		sig = strings.TrimSpace(sig[end+1:])
	}
	rest, ok := strings.CutPrefix(sig, "extends ")
	if !ok {
		return ""
	}
	rest = strings.TrimSpace(rest)
	end := 0
	for end < len(rest) && (rest[end] == '.' || rest[end] == '_' || rest[end] == '$' || rest[end] >= '0' && rest[end] <= '9' || rest[end]|0x20 >= 'a' && rest[end]|0x20 <= 'z') {
		end++
	}
	name := rest[:end]
	if strings.HasPrefix(strings.TrimSpace(rest[end:]), "(") {
		return ""
	}
	for _, part := range strings.Split(name, ".") {
		if !isIdent(part) {
			return ""
		}
	}
	return name
}

// jsExtends is the class a class heritage's part n names: in JavaScript
// the expression after extends, in TypeScript an extends clause's value
// (its type arguments apart); "" for an implements clause, or a base
// that is no name (mixin(Base)).
func jsExtends(n *sitter.Node, src []byte) string {
	switch n.Type() {
	case "implements_clause":
		return ""
	case "extends_clause":
		n = n.ChildByFieldName("value")
		if n == nil {
			return ""
		}
	}
	if t := n.Type(); t != "identifier" && t != "member_expression" {
		return ""
	}
	name := n.Content(src)
	for _, part := range strings.Split(name, ".") {
		if !isIdent(part) {
			return ""
		}
	}
	return name
}

// jsTypeName is the named type of a TypeScript type annotation, without
// its type arguments (Store<T> → Store, ns.Store), or "".
func jsTypeName(text string) string {
	if i := strings.IndexByte(text, '<'); i >= 0 {
		text = text[:i]
	}
	text = strings.TrimSpace(text)
	for _, part := range strings.Split(text, ".") {
		if !isIdent(part) {
			return ""
		}
	}
	return text
}

// closingAngle is the index of the > that closes the < starting text
// (a function type's => not counted), or -1.
func closingAngle(text string) int {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '<':
			depth++
		case text[i] == '>' && (i == 0 || text[i-1] != '='):
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}
