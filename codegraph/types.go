package codegraph

import (
	"path"
	"strings"

	"cchub/lang"
)

// Type facts: what a file says about the types of names, read without a
// type checker, so that value.Method() can reach the methods of value's
// type instead of every method of the name. Each is a Bind:
//
//	'v' a variable or parameter of definition In (-1: the file's top level), Expr its value or type
//	'f' a field Name of type Owner, Expr its type (Python: the value assigned to self.Name in method In)
//	'e' a type Owner embeds (Go) or inherits from (Python), Expr the type
//	'r' the result of definition In, Expr its type
//
// An Expr is a type when it starts with ':' (":*Command", ":git.Repository")
// and a value otherwise, written as a chain with call arguments and
// literal bodies left out ("NewFoo()", "c.Root()", "&Foo{}", "self.repo").
// A binding the resolver cannot follow (a slice, a map, an index, a
// closure's result) leaves the call as the name alone said: nothing is
// lost by a fact it cannot read.
type Bind struct {
	In    int
	Kind  byte
	Owner string
	Name  string
	Expr  string
}

// maxExpr bounds the text of one binding's expression.
const maxExpr = 160

// simplify writes a value expression as a chain: argument lists and
// literal bodies emptied, generic arguments before a call or literal
// dropped, spaces removed. "" when it is too long or not a chain.
func simplify(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '(', '{', '[':
			j := matching(text, i)
			switch {
			case j < 0:
				return ""
			case c == '(' && strings.HasSuffix(b.String(), "."):
				// A type assertion, x.(T): the type is kept.
				b.WriteString(strings.Join(strings.Fields(text[i:j+1]), ""))
			case c == '[' && j+1 < len(text) && (text[j+1] == '(' || text[j+1] == '{'):
				// Generic arguments (New[int]()) are dropped.
			case c == '[':
				b.WriteString("[]") // an element: xs[i], m[k]
			default:
				b.WriteByte(c) // call arguments and literal bodies emptied
				b.WriteByte(text[j])
			}
			i = j
			continue
		}
		b.WriteByte(c)
		if b.Len() > maxExpr {
			return ""
		}
	}
	return b.String()
}

// matching is the index of the bracket that closes the one at text[i]
// (brackets of every kind counted together), or -1.
func matching(text string, i int) int {
	d := 0
	for j := i; j < len(text); j++ {
		switch text[j] {
		case '(', '{', '[':
			d++
		case ')', '}', ']':
			if d--; d == 0 {
				return j
			}
		}
	}
	return -1
}

// typeName is a type expression's named type, without pointers, generic
// arguments or spaces ("*git.Repository[T]" → "git.Repository"), or ""
// for a type that has no methods of its own to find (a slice, a map, a
// function, a channel, a literal struct or interface).
func typeName(text string) string {
	t := strings.Join(strings.Fields(text), "")
	t = strings.TrimLeft(t, "*&")
	if i := strings.IndexByte(t, '['); i >= 0 {
		if i == 0 {
			return ""
		}
		t = t[:i]
	}
	if t == "" || strings.HasPrefix(t, "map") && !isIdent(t) || strings.HasPrefix(t, "func") && !isIdent(t) || strings.HasPrefix(t, "chan") && !isIdent(t) {
		return ""
	}
	for _, part := range strings.Split(t, ".") {
		if !isIdent(part) {
			return ""
		}
	}
	return t
}

// typeText is a type expression as a binding keeps it: its named type,
// after a "[]" for each slice or array around it ("[]*Remote" → "[]Remote"),
// or "" (see typeName).
func typeText(text string) string {
	t := strings.Join(strings.Fields(text), "")
	prefix := ""
	for {
		if strings.HasPrefix(t, "map[") { // a map's elements are its values
			j := matching(t, 3)
			if j < 0 {
				return ""
			}
			prefix += "[]"
			t = strings.TrimLeft(t[j+1:], "*")
			continue
		}
		if !strings.HasPrefix(t, "[") {
			break
		}
		j := strings.IndexByte(t, ']')
		if j < 0 {
			return ""
		}
		prefix += "[]"
		t = strings.TrimLeft(t[j+1:], "*")
	}
	if n := typeName(t); n != "" {
		return prefix + n
	}
	return ""
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}

// chain splits a simplified expression at its top-level dots:
// "c.Root().Execute" → c, Root(), Execute.
func chain(expr string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(expr); i++ {
		switch expr[i] {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case '.':
			if depth == 0 {
				parts = append(parts, expr[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, expr[start:])
}

// typeKinds are the kinds of definition a value can have as its type.
func isTypeDef(d *Def) bool {
	switch d.Kind {
	case "struct", "type", "interface", "class", "record", "enum":
		return true
	}
	return false
}

// typeIndex is what type inference looks up, made once per resolve.
type typeIndex struct {
	types       map[string][]*Def   // "dir\x00Name": Go types of a package; "path\x00Name": Python classes of a file
	fields      map[string][]fact   // "typeKey\x00field"
	embeds      map[string][]fact   // typeKey → the types it embeds or inherits
	results     map[string]fact     // def key → its result type
	pkgVars     map[string][]fact   // "dir\x00name": a Go package's variables
	pkgNames    map[string]string   // a Go package's directory → the name its package clause declares
	methodNames map[string][]string // "dir\x00Type": the names of a Go type's methods
	impls       map[string][]*Def   // "interface key\x00name": implementers' methods (made on first need)
	locals      map[string]map[string][]fact
	// vars holds, by file, each variable's inferred type (nil while it is
	// being inferred): a name used a thousand times is inferred once.
	vars map[string]map[string]*tref
	// embeddedTypes is the keys of the types another embeds (made on
	// first need).
	embeddedTypes map[string]bool
}

// fact is a binding with the file it was written in (its imports and
// package give its names meaning) and the definition it is in.
type fact struct {
	f    *File
	in   int
	expr string
}

func (r *resolver) typeIndex() *typeIndex {
	if r.types != nil {
		return r.types
	}
	ix := &typeIndex{types: map[string][]*Def{}, fields: map[string][]fact{}, embeds: map[string][]fact{},
		results: map[string]fact{}, pkgVars: map[string][]fact{}, locals: map[string]map[string][]fact{}, pkgNames: map[string]string{},
		methodNames: map[string][]string{}, impls: map[string][]*Def{}, vars: map[string]map[string]*tref{}}
	for _, f := range r.files {
		for i := range f.Defs {
			d := &f.Defs[i]
			if isTypeDef(d) {
				k := typeScope(d) + "\x00" + d.Name
				ix.types[k] = append(ix.types[k], d)
			}
			if d.Language == lang.Go && d.Type != "" && d.Kind == "method" {
				k := d.dir + "\x00" + d.Type
				ix.methodNames[k] = append(ix.methodNames[k], d.Name)
			}
		}
	}
	for _, f := range r.files {
		for _, bd := range f.Binds {
			ft := fact{f: f, in: bd.In, expr: bd.Expr}
			switch bd.Kind {
			case 'f', 'e':
				for _, td := range ix.types[scopeOf(f)+"\x00"+bd.Owner] {
					if f.Language == lang.Python && td.Path != f.Path {
						continue
					}
					if bd.Kind == 'f' {
						ix.fields[td.key+"\x00"+bd.Name] = append(ix.fields[td.key+"\x00"+bd.Name], ft)
					} else {
						ix.embeds[td.key] = append(ix.embeds[td.key], ft)
					}
				}
			case 'r':
				if bd.In >= 0 && bd.In < len(f.Defs) {
					ix.results[f.Defs[bd.In].key] = ft
				}
			case 'p':
				if !strings.HasSuffix(f.Path, "_test.go") {
					ix.pkgNames[path.Dir(f.Path)] = bd.Name
				}
			case 'v':
				if bd.In < 0 && f.Language == lang.Go {
					k := path.Dir(f.Path) + "\x00" + bd.Name
					ix.pkgVars[k] = append(ix.pkgVars[k], ft)
				}
			}
		}
	}
	r.types = ix
	return ix
}

// typeScope is where a type's name is looked up: a Go package's
// directory, a Python file.
func typeScope(d *Def) string {
	if d.Language == lang.Go {
		return d.dir
	}
	return d.Path
}

func scopeOf(f *File) string {
	if f.Language == lang.Go {
		return path.Dir(f.Path)
	}
	return f.Path
}

// localsOf is a file's variables by definition and name, made on first need.
func (ix *typeIndex) localsOf(f *File) map[string][]fact {
	m, ok := ix.locals[f.Path]
	if !ok {
		m = map[string][]fact{}
		for _, bd := range f.Binds {
			if bd.Kind == 'v' {
				k := localKey(bd.In, bd.Name)
				m[k] = append(m[k], fact{f: f, in: bd.In, expr: bd.Expr})
			}
		}
		ix.locals[f.Path] = m
	}
	return m
}

func localKey(in int, name string) string {
	return string(rune(in+1)) + "\x00" + name
}

// maxInfer bounds how many bindings one inference follows.
const maxInfer = 8

// tref is an inferred type: a type definition, inside elem slices or
// arrays of it.
type tref struct {
	d    *Def
	elem int
}

// value is t when it is a type's own value (methods and fields can be
// looked up on it), else nil.
func (t tref) value() *Def {
	if t.elem != 0 {
		return nil
	}
	return t.d
}

// elems strips the element marks ("[]") an expression part ends with.
func elems(part string) (string, int) {
	k := 0
	for strings.HasSuffix(part, "[]") {
		part, k = part[:len(part)-2], k+1
	}
	return part, k
}

// index is t's element, k times.
func (t tref) index(k int) tref {
	if t.d == nil || t.elem < k {
		return tref{}
	}
	return tref{t.d, t.elem - k}
}

// typeOf is the type of a value expression written in definition in of
// file f, or the zero tref when it cannot be told.
func (r *resolver) typeOf(f *File, in int, expr string, depth int) tref {
	if depth > maxInfer || expr == "" {
		return tref{}
	}
	if expr[0] == ':' {
		return r.namedType(f, expr[1:])
	}
	expr = strings.TrimLeft(expr, "&*")
	for len(expr) > 1 && expr[0] == '(' && matching(expr, 0) == len(expr)-1 {
		expr = strings.TrimLeft(expr[1:len(expr)-1], "&*")
	}
	parts := chain(expr)
	// A type assertion says the type whatever came before it: x.f.(T).M().
	for j := len(parts) - 1; j > 0; j-- {
		if p, k := elems(parts[j]); len(p) > 2 && p[0] == '(' && p[len(p)-1] == ')' {
			return r.typeOf(f, in, ":"+p[1:len(p)-1], depth+1).index(k).chain(r, f, in, parts[j+1:], depth)
		}
	}
	var t tref
	i := 1
	head, k := elems(parts[0])
	switch {
	case strings.HasPrefix(head, "new(") && strings.HasSuffix(head, ")"):
		t = r.namedType(f, head[4:len(head)-1])
	case strings.HasSuffix(head, "{}"):
		t = r.namedType(f, head[:len(head)-2])
	case strings.HasSuffix(head, "()"):
		t = r.called(f, scopeOf(f), head[:len(head)-2], depth)
	case isIdent(head):
		if mod, ok := r.moduleAlias(f, in, head); ok && len(parts) > 1 && k == 0 {
			next, k2 := elems(parts[1])
			i, k = 2, k2
			switch {
			case strings.HasSuffix(next, "{}"):
				t = tref{d: r.typeIn(f.Language, mod, next[:len(next)-2])}
			case strings.HasSuffix(next, "()"):
				t = r.called(f, mod, next[:len(next)-2], depth)
			}
			break
		}
		t = r.variable(f, in, head, depth)
	}
	return t.index(k).chain(r, f, in, parts[i:], depth)
}

// chain is the type of t's value followed by parts: methods called
// (M()), fields, elements ([]).
func (t tref) chain(r *resolver, f *File, in int, parts []string, depth int) tref {
	for i := 0; t.d != nil && i < len(parts); i++ {
		p, k := elems(parts[i])
		v := t.value()
		if v == nil {
			return tref{}
		}
		if strings.HasSuffix(p, "()") {
			ms := r.methodsOf(v, p[:len(p)-2], 0)
			if len(ms) != 1 {
				return tref{}
			}
			t = r.resultOf(ms[0], depth+1).index(k)
			continue
		}
		if !isIdent(p) {
			return tref{}
		}
		t = r.fieldOf(v, p, depth+1).index(k)
	}
	return t
}

// moduleAlias says whether name is a package or module f imports, and
// returns its scope (a Go package's directory, a Python module's name
// prefixed "py:").
func (r *resolver) moduleAlias(f *File, in int, name string) (string, bool) {
	if f.Language == lang.Go {
		imp, ok := r.goImport(f, in, name)
		if !ok {
			return "", false
		}
		return r.goPackageDir(imp.Target), true
	}
	for _, imp := range f.Imports {
		if imp.Alias != name {
			continue
		}
		if f.Language == lang.Go {
			return r.goPackageDir(imp.Target), true
		}
		return "py:" + strings.TrimLeft(imp.Target, "."), true
	}
	return "", false
}

// typeIn is the type named name in scope mod (see moduleAlias).
func (r *resolver) typeIn(language, mod, name string) *Def {
	if mod == "" {
		return nil
	}
	if strings.HasPrefix(mod, "py:") {
		for _, d := range r.pyIndex().byModule[mod[3:]+"\x00"+name] {
			if isTypeDef(d) {
				return d
			}
		}
		return nil
	}
	return one(r.typeIndex().types[mod+"\x00"+name])
}

func one(ds []*Def) *Def {
	if len(ds) == 1 {
		return ds[0]
	}
	return nil
}

// namedType is the type file f writes as text ("[]*git.Remote").
func (r *resolver) namedType(f *File, text string) tref {
	t := typeText(text)
	k := 0
	for strings.HasPrefix(t, "[]") {
		t, k = t[2:], k+1
	}
	if t == "" {
		return tref{}
	}
	var d *Def
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		if mod, ok := r.moduleAlias(f, noDef, t[:i]); ok { // a type: no variable shadows its package
			d = r.typeIn(f.Language, mod, t[i+1:])
		}
	} else if d = one(r.typeIndex().types[scopeOf(f)+"\x00"+t]); d == nil && f.Language == lang.Python {
		d = r.pyImportedType(f, t)
	}
	if d == nil {
		return tref{}
	}
	return tref{d, k}
}

// pyImportedType is the class a Python file imported as name.
func (r *resolver) pyImportedType(f *File, name string) *Def {
	for _, imp := range f.Imports {
		if imp.Alias == name && strings.Contains(imp.Target, ".") {
			dot := strings.LastIndexByte(imp.Target, '.')
			return r.typeIn("python", "py:"+strings.TrimLeft(imp.Target[:dot], "."), imp.Target[dot+1:])
		}
	}
	return nil
}

// called is the type of calling name in scope (a function's result, or a
// type: a conversion in Go, a construction in Python).
func (r *resolver) called(f *File, scope, name string, depth int) tref {
	if f.Language == lang.Python && scope == scopeOf(f) {
		if t := r.namedType(f, name); t.d != nil {
			return t
		}
	} else if t := r.typeIn(f.Language, scope, name); t != nil {
		return tref{d: t}
	}
	var fn *Def
	if strings.HasPrefix(scope, "py:") {
		fn = one(r.pyIndex().byModule[scope[3:]+"\x00"+name])
	} else if f.Language == lang.Go {
		var ds []*Def
		for _, d := range r.byName[name] {
			if d.Language == lang.Go && d.dir == scope && d.Type == "" && d.Kind == "func" {
				ds = append(ds, d)
			}
		}
		fn = one(ds)
	} else {
		fn = one(r.pyIndex().byFile[f.Path+"\x00"+name])
		if fn == nil {
			for _, imp := range f.Imports {
				if imp.Alias == name && strings.Contains(imp.Target, ".") {
					dot := strings.LastIndexByte(imp.Target, '.')
					fn = one(r.pyIndex().byModule[strings.TrimLeft(imp.Target[:dot], ".")+"\x00"+imp.Target[dot+1:]])
				}
			}
		}
	}
	if fn == nil {
		return tref{}
	}
	if isTypeDef(fn) {
		if f.Language != lang.Python {
			return tref{}
		}
		return tref{d: fn}
	}
	return r.resultOf(fn, depth+1)
}

// resultOf is the type a function or method returns.
func (r *resolver) resultOf(fn *Def, depth int) tref {
	ft, ok := r.typeIndex().results[fn.key]
	if !ok {
		return tref{}
	}
	return r.typeOf(ft.f, ft.in, ft.expr, depth)
}

// variable is the type of name in definition in of f: its bindings there
// (a parameter, an assignment), the receiver, a package variable. All
// bindings that can be told must agree.
func (r *resolver) variable(f *File, in int, name string, depth int) tref {
	if in >= 0 && in < len(f.Defs) {
		d := &f.Defs[in]
		if d.recv == name && d.Type != "" && r.binds(f, in, name) <= 1 {
			if t := one(r.typeIndex().types[scopeOf(f)+"\x00"+d.Type]); t != nil {
				return tref{d: t}
			}
		}
		if (name == "self" || name == "cls") && d.Type != "" && f.Language == lang.Python {
			return r.namedType(f, d.Type)
		}
	}
	ix := r.typeIndex()
	memo := ix.vars[f.Path]
	if memo == nil {
		memo = map[string]*tref{}
		ix.vars[f.Path] = memo
	}
	k := localKey(in, name)
	if t, ok := memo[k]; ok {
		if t == nil {
			return tref{} // being inferred: a binding that leads back to itself
		}
		return *t
	}
	memo[k] = nil
	facts := ix.localsOf(f)[k]
	if len(facts) == 0 && in >= 0 {
		facts = ix.localsOf(f)[localKey(-1, name)]
	}
	if len(facts) == 0 && f.Language == lang.Go {
		facts = ix.pkgVars[path.Dir(f.Path)+"\x00"+name]
	}
	var t tref
	if len(facts) <= maxFacts {
		t = r.agree(facts, depth)
	}
	if t.d == nil && depth > 2 {
		delete(memo, k) // perhaps cut short by maxInfer: asked again from nearer, it may be told
	} else {
		memo[k] = &t
	}
	return t
}

// maxFacts is the most bindings of one variable inference reads: a name
// assigned more often (a generated parser's state) is not told.
const maxFacts = 16

// agree is the type all of facts give, or none when one cannot be told or
// two differ.
func (r *resolver) agree(facts []fact, depth int) tref {
	var t tref
	for _, ft := range facts {
		if ft.expr == "" {
			return tref{} // a binding that cannot be read: it may be anything
		}
		u := r.typeOf(ft.f, ft.in, ft.expr, depth+1)
		if u.d == nil || t.d != nil && u != t {
			return tref{}
		}
		t = u
	}
	return t
}

// methodsOf is the methods named name of type t, its own or (none of its
// own) those of the types it embeds or inherits from.
func (r *resolver) methodsOf(t *Def, name string, depth int) []*Def {
	if depth > maxInfer {
		return nil
	}
	var out []*Def
	for _, d := range r.pyIndex().members[t.dir+"\x00"+t.Name+"\x00"+name] {
		if d.Language == t.Language && (t.Language == lang.Go || d.Path == t.Path) && d.Kind != "class" {
			out = append(out, d)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, e := range r.typeIndex().embeds[t.key] {
		if u := r.typeOf(e.f, e.in, e.expr, depth+1).value(); u != nil && u != t {
			out = append(out, r.methodsOf(u, name, depth+1)...)
		}
	}
	return out
}

// fieldOf is the type of field name of t, its own or promoted.
func (r *resolver) fieldOf(t *Def, name string, depth int) tref {
	if depth > maxInfer {
		return tref{}
	}
	ix := r.typeIndex()
	if fs := ix.fields[t.key+"\x00"+name]; len(fs) > 0 {
		if len(fs) > maxFacts {
			return tref{}
		}
		return r.agree(fs, depth)
	}
	for _, e := range ix.embeds[t.key] {
		// An embedded field is named by its type: x.Base is the Base.
		if lastName(e.expr) == name {
			return r.typeOf(e.f, e.in, e.expr, depth+1)
		}
		if u := r.typeOf(e.f, e.in, e.expr, depth+1).value(); u != nil && u != t {
			if v := r.fieldOf(u, name, depth+1); v.d != nil {
				return v
			}
		}
	}
	return tref{}
}

func lastName(expr string) string {
	t := typeName(strings.TrimPrefix(expr, ":"))
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		return t[i+1:]
	}
	return t
}

// typedTargets resolves value.Name() by the type of value: the methods of
// that name of its type (exact); for a Go interface of the workspace, its
// method (exact) and the methods of that name of every type whose methods
// cover the interface's (name-only: where the call dispatches depends on
// the value). nil when the type cannot be told or has no such method the
// workspace defines.
func (r *resolver) typedTargets(f *File, c Call) []target {
	if c.Qualifier == "" {
		return nil
	}
	t := r.typeOf(f, c.In, simplify(c.Qualifier), 0).value()
	if t == nil {
		return nil
	}
	var out []target
	ms := r.methodsOf(t, c.Name, 0)
	for _, d := range ms {
		out = append(out, target{d.key, Exact})
	}
	if t.Kind == "interface" && (len(out) == 0 || t.Language != lang.Go) {
		return nil
	}
	// A method of an interface (the type's, or one it embeds) dispatches
	// to the implementers' methods.
	seen := map[string]bool{}
	for _, d := range ms {
		owner := one(r.typeIndex().types[d.dir+"\x00"+d.Type])
		if d.Language != lang.Go || owner == nil || owner.Kind != "interface" {
			continue
		}
		for _, m := range r.implementers(owner, c.Name) {
			if !seen[m.key] {
				seen[m.key] = true
				out = append(out, target{m.key, NameOnly})
			}
		}
	}
	return out
}

// implementers is the methods named name of the Go types (not interfaces)
// that have every method iface names, its own and its embedded
// interfaces' (those the workspace defines).
func (r *resolver) implementers(iface *Def, name string) []*Def {
	ix := r.typeIndex()
	k := iface.key + "\x00" + name
	if ds, ok := ix.impls[k]; ok {
		return ds
	}
	need := r.interfaceMethods(iface, 0)
	var out []*Def
	for _, d := range r.pyIndex().methods["go\x00"+name] {
		td := one(ix.types[d.dir+"\x00"+d.Type])
		if td == nil || td.Kind == "interface" {
			continue
		}
		// A type embedded in another gives its methods to a type that may
		// implement the interface with other methods of its own.
		ok := true
		if r.embedded()[td.key] {
			need = nil
		}
		for _, m := range need {
			if len(r.methodsOf(td, m, 0)) == 0 {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, d)
		}
		need = r.interfaceMethods(iface, 0)
	}
	ix.impls[k] = out
	return out
}

// embedded is the keys of the types some type embeds.
func (r *resolver) embedded() map[string]bool {
	ix := r.typeIndex()
	if ix.embeddedTypes == nil {
		ix.embeddedTypes = map[string]bool{}
		for _, es := range ix.embeds {
			for _, e := range es {
				if u := r.typeOf(e.f, e.in, e.expr, 1).value(); u != nil {
					ix.embeddedTypes[u.key] = true
				}
			}
		}
	}
	return ix.embeddedTypes
}

// interfaceMethods is the names of an interface's methods, its own and
// those of the interfaces it embeds.
func (r *resolver) interfaceMethods(iface *Def, depth int) []string {
	if depth > maxInfer {
		return nil
	}
	ix := r.typeIndex()
	names := append([]string(nil), ix.methodNames[iface.dir+"\x00"+iface.Name]...)
	for _, e := range ix.embeds[iface.key] {
		if u := r.typeOf(e.f, e.in, e.expr, depth+1).value(); u != nil && u != iface && u.Kind == "interface" {
			names = append(names, r.interfaceMethods(u, depth+1)...)
		}
	}
	return names
}

// keepRefs drops the references a file's own bindings explain: a name
// bound in the function (or file) it is used in is a variable, not a
// function; a selector on anything but an imported package or the
// receiver (self) is a field read far more often than a method value.
// What is left is what resolution can link, at a fraction of the index.
// passed holds the indexes (in f.Calls) of selectors on a variable passed
// as an argument, kept: a method value handed to a callee
// (t.Run(name, tc.test)) is a dependency a test selection must see.
func (f *File) keepRefs(in []int32, passed map[int]bool) {
	bound := map[string]bool{}
	for _, b := range f.Binds {
		if b.Kind == 'v' {
			bound[localKey(b.In, b.Name)] = true
		}
	}
	imported := map[string]bool{}
	for _, imp := range f.Imports {
		imported[imp.Alias] = true
	}
	kept := f.Calls[:0]
	for i, c := range f.Calls {
		if c.Ref && !passed[i] {
			def := -1
			if c.Line < len(in) {
				def = int(in[c.Line])
			}
			switch {
			case c.Qualifier == "":
				if bound[localKey(def, c.Name)] || bound[localKey(-1, c.Name)] && f.Language == lang.Python {
					continue
				}
			case imported[c.Qualifier]:
			case def >= 0 && (c.Qualifier == f.Defs[def].recv && c.Qualifier != "" || c.Qualifier == "self" && f.Language == lang.Python):
			default:
				if f.Language == lang.Go && isIdent(c.Qualifier) && !bound[localKey(def, c.Qualifier)] {
					break // pkg.F of a package imported under its declared name
				}
				continue
			}
		}
		kept = append(kept, c)
	}
	f.Calls = kept
}
