package codegraph

import (
	"sort"

	"cchub/syntax"
)

// goFacts reads a Go file's type facts (types.go) from its flat tree:
// struct fields and embedded types, parameters and results, variables
// declared with := and var, and range variables (as unreadable: they
// shadow).
func goFacts(r *flatReader, f *File) {
	g := &goFactReader{factReader: newFactReader(r, f), id: goFactIDsOf(r.ids), passed: map[int]bool{}}
	for i := range r.nodes {
		g.node(uint32(i))
	}
	f.keepRefs(g.in, g.passed)
}

// goFactIDs are the Go grammar's symbol and field ids goFacts reads.
type goFactIDs struct {
	ident, fieldIdent, selector, pkgIdent                                  uint16
	fieldDecl, paramDecl, variadic, shortVar, varSpec                      uint16
	typeSpec, funcDecl, methodDecl, paramList, exprList, fieldList         uint16
	structType, rangeClause, typeIdent, typeSwitch, receive                uint16
	argList, litElem, keyed, litValue, ret                                 uint16
	methodElem, ifaceType, typeElem, pkgClause                             uint16
	fAlias, fOperand, fField, fName, fType, fLeft, fRight, fValue, fResult uint16
}

func goFactIDsOf(ids *nativeIDs) goFactIDs {
	s, fl := ids.sym, ids.field
	return goFactIDs{
		ident: s[1], fieldIdent: s[3], selector: s[2], pkgIdent: s[5],
		fieldDecl: s[7], paramDecl: s[8], variadic: s[9], shortVar: s[10], varSpec: s[11],
		typeSpec: s[12], funcDecl: s[13], methodDecl: s[14], paramList: s[15], exprList: s[16], fieldList: s[17],
		structType: s[18], rangeClause: s[19], typeIdent: s[21], typeSwitch: s[22], receive: s[23],
		argList: s[24], litElem: s[25], keyed: s[26], litValue: s[27], ret: s[28],
		methodElem: s[30], ifaceType: s[31], typeElem: s[32], pkgClause: s[33],
		fAlias: fl[12], fOperand: fl[1], fField: fl[2], fName: fl[3],
		fType: fl[5], fLeft: fl[6], fRight: fl[7], fValue: fl[8], fResult: fl[9],
	}
}

// goFactReader reads one Go file's facts, a node at a time.
type goFactReader struct {
	*factReader
	id     goFactIDs
	passed map[int]bool // calls after which x.m was passed as an argument
}

// node reads the facts of node at, by its kind.
func (g *goFactReader) node(at uint32) {
	r, id := g.r, &g.id
	n := &r.nodes[at]
	switch n.Symbol {
	case id.ident:
		if g.asValue(at) && r.text(at) != "_" {
			g.ref(at, syntax.NoParent)
		}
	case id.selector:
		if g.asValue(at) {
			if op, fd := r.child(at, id.fOperand), r.child(at, id.fField); op != syntax.NoParent && fd != syntax.NoParent && r.nodes[fd].Symbol == id.fieldIdent {
				if p := n.Parent; p != syntax.NoParent && r.nodes[p].Symbol == id.argList && r.nodes[op].Symbol == id.ident {
					g.passed[len(g.f.Calls)] = true // x.m passed: perhaps a method value (t.Run(name, tc.test))
				}
				g.ref(fd, op)
			}
		}
	case id.fieldDecl:
		g.field(at)
	case id.paramDecl, id.variadic:
		g.param(at)
	case id.pkgClause:
		for _, pid := range g.children(at, 0, id.pkgIdent) {
			g.add(Bind{In: -1, Kind: 'p', Name: r.text(pid)})
		}
	case id.typeElem:
		g.embeddedInterface(at)
	case id.funcDecl, id.methodDecl, id.methodElem:
		res := r.child(at, id.fResult)
		if res != syntax.NoParent && r.nodes[res].Symbol != id.paramList {
			if typ := g.typeOf(res); typ != "" {
				g.add(Bind{In: g.inAt(at), Kind: 'r', Expr: typ})
			}
		}
	case id.shortVar:
		l, rt := r.child(at, id.fLeft), r.child(at, id.fRight)
		if l == syntax.NoParent || rt == syntax.NoParent || r.nodes[l].Symbol != id.exprList {
			return
		}
		rights := g.children(rt, 0, 0)
		if r.nodes[rt].Symbol != id.exprList {
			rights = []uint32{rt}
		}
		g.vars(at, g.children(l, 0, id.ident), rights)
	case id.varSpec:
		g.varSpec(at)
	case id.rangeClause, id.typeSwitch, id.receive:
		g.rangeVars(at)
	}
}

// children are the named children of p in field (0: any field) of symbol
// sym (0: any).
func (g *goFactReader) children(p uint32, field uint16, sym uint16) []uint32 {
	nodes := g.r.nodes
	var out []uint32
	for c := p + 1; c < nodes[p].Next; c = nodes[c].Next {
		if (field == 0 || nodes[c].Field == field) && (sym == 0 || nodes[c].Symbol == sym) && nodes[c].Named {
			out = append(out, c)
		}
	}
	return out
}

// vars binds the names of lefts to the values of rights, pairwise, or
// the first to a single value (x, err := f()); the others unreadable.
func (g *goFactReader) vars(at uint32, lefts, rights []uint32) {
	for k, l := range lefts {
		name := g.r.text(l)
		if name == "_" {
			continue
		}
		expr := ""
		switch {
		case len(rights) == len(lefts):
			expr = simplify(g.r.text(rights[k]))
		case len(rights) == 1 && k == 0:
			expr = simplify(g.r.text(rights[0]))
		}
		g.add(Bind{In: g.inAt(at), Kind: 'v', Name: name, Expr: expr})
	}
}

// asValue says whether node at is in a place where a function named
// there is taken as a value: an argument, a literal's element or a
// keyed element's value, the right of an assignment, a result.
func (g *goFactReader) asValue(at uint32) bool {
	nodes, id := g.r.nodes, &g.id
	p := nodes[at].Parent
	if p == syntax.NoParent {
		return false
	}
	switch nodes[p].Symbol {
	case id.argList:
		return true
	case id.litElem:
		pp := nodes[p].Parent
		if pp == syntax.NoParent {
			return false
		}
		switch nodes[pp].Symbol {
		case id.litValue:
			return true
		case id.keyed:
			return p != pp+1 // the key is the keyed element's first child
		}
	case id.exprList:
		pp := nodes[p].Parent
		return nodes[p].Field == id.fRight || nodes[p].Field == id.fValue || pp != syntax.NoParent && nodes[pp].Symbol == id.ret
	}
	return false
}

// field reads a struct's field declaration: its fields, or the type it
// embeds.
func (g *goFactReader) field(at uint32) {
	r, id := g.r, &g.id
	list, ok := r.parentIs(at, id.fieldList)
	if !ok {
		return
	}
	st, ok := r.parentIs(list, id.structType)
	if !ok || r.nodes[st].Field != id.fType {
		return
	}
	spec, ok := r.parentIs(st, id.typeSpec)
	if !ok {
		return
	}
	owner := r.child(spec, id.fName)
	if owner == syntax.NoParent || r.nodes[owner].Symbol != id.typeIdent {
		return
	}
	typ := g.typeOf(r.child(at, id.fType))
	names := g.children(at, id.fName, id.fieldIdent)
	if len(names) == 0 {
		if typ != "" {
			g.add(Bind{In: -1, Kind: 'e', Owner: r.text(owner), Expr: typ})
		}
		return
	}
	for _, nm := range names {
		g.add(Bind{In: -1, Kind: 'f', Owner: r.text(owner), Name: r.text(nm), Expr: typ})
	}
}

// param reads a parameter or result declaration: its names as
// variables, and a function's first result type.
func (g *goFactReader) param(at uint32) {
	r, id := g.r, &g.id
	list, ok := r.parentIs(at, id.paramList)
	if !ok {
		return
	}
	typ := g.typeOf(r.child(at, id.fType))
	if r.nodes[at].Symbol == id.variadic {
		typ = "" // a slice
	}
	if r.nodes[list].Field == id.fResult {
		decl := r.nodes[list].Parent
		if decl == syntax.NoParent || r.nodes[decl].Symbol != id.funcDecl && r.nodes[decl].Symbol != id.methodDecl && r.nodes[decl].Symbol != id.methodElem {
			return
		}
		if first := g.children(list, 0, 0); len(first) > 0 && first[0] == at && typ != "" {
			g.add(Bind{In: g.inAt(decl), Kind: 'r', Expr: typ})
		}
	}
	for _, nm := range g.children(at, id.fName, id.ident) { // named results are variables too
		g.add(Bind{In: g.inAt(at), Kind: 'v', Name: r.text(nm), Expr: typ})
	}
}

// embeddedInterface reads an interface embedding another: its methods
// are the other's too.
func (g *goFactReader) embeddedInterface(at uint32) {
	r, id := g.r, &g.id
	it, ok := r.parentIs(at, id.ifaceType)
	if !ok || r.nodes[it].Field != id.fType {
		return
	}
	spec, ok := r.parentIs(it, id.typeSpec)
	if !ok {
		return
	}
	owner := r.child(spec, id.fName)
	inner := g.children(at, 0, 0)
	if owner == syntax.NoParent || len(inner) != 1 {
		return
	}
	if typ := g.typeOf(inner[0]); typ != "" {
		g.add(Bind{In: -1, Kind: 'e', Owner: r.text(owner), Expr: typ})
	}
}

// varSpec reads a var declaration: its names, of its type or bound to
// its values.
func (g *goFactReader) varSpec(at uint32) {
	r, id := g.r, &g.id
	names := g.children(at, id.fName, id.ident)
	if typ := g.typeOf(r.child(at, id.fType)); typ != "" || r.child(at, id.fType) != syntax.NoParent {
		for _, nm := range names {
			g.add(Bind{In: g.inAt(at), Kind: 'v', Name: r.text(nm), Expr: typ})
		}
		return
	}
	v := r.child(at, id.fValue)
	var rights []uint32
	if v != syntax.NoParent {
		rights = g.children(v, 0, 0)
	}
	g.vars(at, names, rights)
}

// rangeVars reads the variables a range clause, a type switch or a
// receive declares: a range's value is an element of what it ranges
// over.
func (g *goFactReader) rangeVars(at uint32) {
	r, id := g.r, &g.id
	sym := r.nodes[at].Symbol
	field := id.fLeft
	if sym == id.typeSwitch {
		field = id.fAlias
	}
	l := r.child(at, field)
	if l == syntax.NoParent {
		return
	}
	elem := "" // for _, v := range xs: v is an element of xs (a map's value: not told)
	if sym == id.rangeClause {
		if x := r.child(at, id.fRight); x != syntax.NoParent {
			if e := simplify(r.text(x)); e != "" {
				elem = e + "[]"
			}
		}
	}
	for k, vid := range g.children(l, 0, id.ident) {
		if name := r.text(vid); name != "_" {
			b := Bind{In: g.inAt(at), Kind: 'v', Name: name}
			if k == 1 {
				b.Expr = elem
			}
			g.add(b)
		}
	}
}

// factReader is what the native readers of type facts share: the
// definition each line is in, and the bindings read.
type factReader struct {
	r  *flatReader
	f  *File
	in []int32 // by line: the definition holding it (inByLine)
}

func newFactReader(r *flatReader, f *File) *factReader {
	return &factReader{r: r, f: f, in: f.inByLine()}
}

// inAt is the definition node i is in, -1 at the top level.
func (x *factReader) inAt(i uint32) int {
	if row := int(x.r.nodes[i].Row) + 1; row < len(x.in) {
		return int(x.in[row])
	}
	return -1
}

func (x *factReader) add(b Bind) { x.f.Binds = append(x.f.Binds, b) }

// ref adds a reference: the function name names as a value, on
// qualifier (syntax.NoParent: none).
func (x *factReader) ref(name, qualifier uint32) {
	c := Call{Name: x.r.text(name), Ref: true}
	if qualifier != syntax.NoParent {
		c.Qualifier = x.r.text(qualifier)
	}
	n := &x.r.nodes[name]
	c.Line, c.Col = int(n.Row)+1, int(n.Col)+1
	x.f.Calls = append(x.f.Calls, c)
}

// typeOf is the type expression at node i as a binding keeps it
// (":[]Remote"), or "" when it has no methods to find.
func (x *factReader) typeOf(i uint32) string {
	if i == syntax.NoParent {
		return ""
	}
	if t := typeText(x.r.text(i)); t != "" {
		return ":" + t
	}
	return ""
}

// inByLine is, for each line, the index of the innermost function,
// method or test holding it (-1: none), as enclosing finds it: the
// definitions painted in the order enclosing prefers them.
func (f *File) inByLine() []int32 {
	var order []int
	end := 0
	for i, d := range f.Defs {
		if d.Kind == "func" || d.Kind == "method" || d.Kind == "test" {
			order = append(order, i)
			end = max(end, d.End)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return f.Defs[order[a]].Start < f.Defs[order[b]].Start })
	in := make([]int32, end+1)
	for i := range in {
		in[i] = -1
	}
	for _, i := range order {
		d := &f.Defs[i]
		for l := max(d.Start, 0); l <= d.End; l++ {
			in[l] = int32(i)
		}
	}
	return in
}
