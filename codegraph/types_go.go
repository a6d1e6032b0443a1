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
	s, fl := r.ids.sym, r.ids.field
	ident, fieldIdent := s[1], s[3]
	fieldDecl, paramDecl, variadic, shortVar, varSpec := s[7], s[8], s[9], s[10], s[11]
	typeSpec, funcDecl, methodDecl, paramList, exprList, fieldList := s[12], s[13], s[14], s[15], s[16], s[17]
	structType, rangeClause, typeIdent, typeSwitch, receive := s[18], s[19], s[21], s[22], s[23]
	fAlias := fl[12]
	argList, litElem, keyed, litValue, ret := s[24], s[25], s[26], s[27], s[28]
	selector, fOperand, fField := s[2], fl[1], fl[2]
	methodElem, ifaceType, typeElem, pkgClause, pkgIdent := s[30], s[31], s[32], s[33], s[5]
	fName := fl[3]
	fType, fLeft, fRight, fValue, fResult := fl[5], fl[6], fl[7], fl[8], fl[9]
	nodes := r.nodes
	fr := newFactReader(r, f)
	in, inAt, add, typeOf := fr.in, fr.inAt, fr.add, fr.typeOf
	// children are the children of p in field (any field: 0 takes all named).
	children := func(p uint32, field uint16, sym uint16) []uint32 {
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
	vars := func(at uint32, lefts, rights []uint32) {
		for k, l := range lefts {
			name := r.text(l)
			if name == "_" {
				continue
			}
			expr := ""
			switch {
			case len(rights) == len(lefts):
				expr = simplify(r.text(rights[k]))
			case len(rights) == 1 && k == 0:
				expr = simplify(r.text(rights[0]))
			}
			add(Bind{In: inAt(at), Kind: 'v', Name: name, Expr: expr})
		}
	}
	// asValue says whether node at is in a place where a function named
	// there is taken as a value: an argument, a literal's element or a
	// keyed element's value, the right of an assignment, a result.
	asValue := func(at uint32) bool {
		p := nodes[at].Parent
		if p == syntax.NoParent {
			return false
		}
		switch nodes[p].Symbol {
		case argList:
			return true
		case litElem:
			pp := nodes[p].Parent
			if pp == syntax.NoParent {
				return false
			}
			switch nodes[pp].Symbol {
			case litValue:
				return true
			case keyed:
				return p != pp+1 // the key is the keyed element's first child
			}
		case exprList:
			pp := nodes[p].Parent
			return nodes[p].Field == fRight || nodes[p].Field == fValue || pp != syntax.NoParent && nodes[pp].Symbol == ret
		}
		return false
	}
	passed := map[int]bool{}
	ref := fr.ref
	for i := range nodes {
		n := &nodes[i]
		at := uint32(i)
		switch n.Symbol {
		case ident:
			if asValue(at) && r.text(at) != "_" {
				ref(at, syntax.NoParent)
			}
		case selector:
			if asValue(at) {
				if op, fd := r.child(at, fOperand), r.child(at, fField); op != syntax.NoParent && fd != syntax.NoParent && nodes[fd].Symbol == fieldIdent {
					if p := n.Parent; p != syntax.NoParent && nodes[p].Symbol == argList && nodes[op].Symbol == ident {
						passed[len(f.Calls)] = true // x.m passed: perhaps a method value (t.Run(name, tc.test))
					}
					ref(fd, op)
				}
			}
		case fieldDecl:
			list, ok := r.parentIs(at, fieldList)
			if !ok {
				continue
			}
			st, ok := r.parentIs(list, structType)
			if !ok || nodes[st].Field != fType {
				continue
			}
			spec, ok := r.parentIs(st, typeSpec)
			if !ok {
				continue
			}
			owner := r.child(spec, fName)
			if owner == syntax.NoParent || nodes[owner].Symbol != typeIdent {
				continue
			}
			typ := typeOf(r.child(at, fType))
			names := children(at, fName, fieldIdent)
			if len(names) == 0 {
				if typ != "" {
					add(Bind{In: -1, Kind: 'e', Owner: r.text(owner), Expr: typ})
				}
				continue
			}
			for _, nm := range names {
				add(Bind{In: -1, Kind: 'f', Owner: r.text(owner), Name: r.text(nm), Expr: typ})
			}
		case paramDecl, variadic:
			list, ok := r.parentIs(at, paramList)
			if !ok {
				continue
			}
			typ := typeOf(r.child(at, fType))
			if n.Symbol == variadic {
				typ = "" // a slice
			}
			if nodes[list].Field == fResult {
				decl := nodes[list].Parent
				if decl == syntax.NoParent || nodes[decl].Symbol != funcDecl && nodes[decl].Symbol != methodDecl && nodes[decl].Symbol != methodElem {
					continue
				}
				if first := children(list, 0, 0); len(first) > 0 && first[0] == at && typ != "" {
					add(Bind{In: inAt(decl), Kind: 'r', Expr: typ})
				}
				for _, nm := range children(at, fName, ident) { // named results are variables
					add(Bind{In: inAt(at), Kind: 'v', Name: r.text(nm), Expr: typ})
				}
				continue
			}
			for _, nm := range children(at, fName, ident) {
				add(Bind{In: inAt(at), Kind: 'v', Name: r.text(nm), Expr: typ})
			}
		case pkgClause:
			for _, id := range children(at, 0, pkgIdent) {
				add(Bind{In: -1, Kind: 'p', Name: r.text(id)})
			}
		case typeElem:
			// An interface embedding another: its methods are the other's too.
			it, ok := r.parentIs(at, ifaceType)
			if !ok || nodes[it].Field != fType {
				continue
			}
			spec, ok := r.parentIs(it, typeSpec)
			if !ok {
				continue
			}
			owner := r.child(spec, fName)
			inner := children(at, 0, 0)
			if owner == syntax.NoParent || len(inner) != 1 {
				continue
			}
			if typ := typeOf(inner[0]); typ != "" {
				add(Bind{In: -1, Kind: 'e', Owner: r.text(owner), Expr: typ})
			}
		case funcDecl, methodDecl, methodElem:
			res := r.child(at, fResult)
			if res != syntax.NoParent && nodes[res].Symbol != paramList {
				if typ := typeOf(res); typ != "" {
					add(Bind{In: inAt(at), Kind: 'r', Expr: typ})
				}
			}
		case shortVar:
			l, rt := r.child(at, fLeft), r.child(at, fRight)
			if l == syntax.NoParent || rt == syntax.NoParent || nodes[l].Symbol != exprList {
				continue
			}
			rights := children(rt, 0, 0)
			if nodes[rt].Symbol != exprList {
				rights = []uint32{rt}
			}
			vars(at, children(l, 0, ident), rights)
		case varSpec:
			names := children(at, fName, ident)
			if typ := typeOf(r.child(at, fType)); typ != "" || r.child(at, fType) != syntax.NoParent {
				for _, nm := range names {
					add(Bind{In: inAt(at), Kind: 'v', Name: r.text(nm), Expr: typ})
				}
				continue
			}
			v := r.child(at, fValue)
			var rights []uint32
			if v != syntax.NoParent {
				rights = children(v, 0, 0)
			}
			vars(at, names, rights)
		case rangeClause, typeSwitch, receive:
			field := fLeft
			if n.Symbol == typeSwitch {
				field = fAlias
			}
			l := r.child(at, field)
			if l == syntax.NoParent {
				continue
			}
			elem := "" // for _, v := range xs: v is an element of xs (a map's value: not told)
			if n.Symbol == rangeClause {
				if x := r.child(at, fRight); x != syntax.NoParent {
					if e := simplify(r.text(x)); e != "" {
						elem = e + "[]"
					}
				}
			}
			for k, id := range children(l, 0, ident) {
				if name := r.text(id); name != "_" {
					b := Bind{In: inAt(at), Kind: 'v', Name: name}
					if k == 1 {
						b.Expr = elem
					}
					add(b)
				}
			}
		}
	}
	f.keepRefs(in, passed)
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
