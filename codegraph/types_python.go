package codegraph

import "cchub/syntax"

// pythonFacts reads a Python file's type facts (types.go) from its flat
// tree: self.attr = value in a method (a field of its class), name =
// value and annotated names, annotated parameters, return annotations,
// base classes; for and unpacking targets as unreadable (they shadow).
func pythonFacts(r *flatReader, f *File) {
	s, fl := r.ids.sym, r.ids.field
	ident, attribute := s[1], s[2]
	assignment, typedParam, typedDefault, funcDef, classDef := s[7], s[8], s[9], s[10], s[11]
	argList, forStmt, patternList, tuplePattern := s[12], s[13], s[14], s[15]
	fObject, fAttribute, fName := fl[1], fl[2], fl[3]
	fLeft, fRight, fType, fReturn, fSuper := fl[6], fl[7], fl[8], fl[9], fl[10]
	kwArg, ret, list, tuple, pair := s[17], s[18], s[19], s[20], s[21]
	fValue := fl[11]
	nodes := r.nodes
	fr := newFactReader(r, f)
	in, inAt, add, typeOf := fr.in, fr.inAt, fr.add, fr.typeOf
	named := func(p uint32, sym uint16) []uint32 {
		var out []uint32
		for c := p + 1; c < nodes[p].Next; c = nodes[c].Next {
			if nodes[c].Named && (sym == 0 || nodes[c].Symbol == sym) {
				out = append(out, c)
			}
		}
		return out
	}
	unreadable := func(at, target uint32) {
		switch nodes[target].Symbol {
		case ident:
			add(Bind{In: inAt(at), Kind: 'v', Name: r.text(target)})
		case patternList, tuplePattern:
			for _, id := range named(target, ident) {
				add(Bind{In: inAt(at), Kind: 'v', Name: r.text(id)})
			}
		}
	}
	// asValue says whether node at is where a function named there is
	// taken as a value: an argument, a keyword argument's value, the right
	// of an assignment, a result, an element of a list, tuple or dict.
	asValue := func(at uint32) bool {
		p := nodes[at].Parent
		if p == syntax.NoParent {
			return false
		}
		switch nodes[p].Symbol {
		case argList, ret, list, tuple:
			return true
		case kwArg, pair:
			return nodes[at].Field == fValue
		case assignment:
			return nodes[at].Field == fRight
		}
		return false
	}
	ref := fr.ref
	for i := range nodes {
		n := &nodes[i]
		at := uint32(i)
		switch n.Symbol {
		case ident:
			if asValue(at) {
				ref(at, syntax.NoParent)
			}
		case attribute:
			if asValue(at) {
				if obj, attr := r.child(at, fObject), r.child(at, fAttribute); obj != syntax.NoParent && attr != syntax.NoParent && nodes[attr].Symbol == ident {
					ref(attr, obj)
				}
			}
		case assignment:
			left, right, typ := r.child(at, fLeft), r.child(at, fRight), r.child(at, fType)
			if left == syntax.NoParent {
				continue
			}
			expr := ""
			if typ != syntax.NoParent {
				expr = typeOf(typ)
			} else if right != syntax.NoParent {
				expr = simplify(r.text(right))
			}
			switch nodes[left].Symbol {
			case ident:
				add(Bind{In: inAt(at), Kind: 'v', Name: r.text(left), Expr: expr})
			case attribute:
				obj, attr := r.child(left, fObject), r.child(left, fAttribute)
				m := inAt(at)
				if obj == syntax.NoParent || attr == syntax.NoParent || r.text(obj) != "self" || m < 0 || f.Defs[m].Type == "" {
					continue
				}
				add(Bind{In: m, Kind: 'f', Owner: f.Defs[m].Type, Name: r.text(attr), Expr: expr})
			default:
				unreadable(at, left)
			}
		case forStmt:
			if left := r.child(at, fLeft); left != syntax.NoParent {
				unreadable(at, left)
			}
		case typedParam, typedDefault:
			name := r.child(at, fName)
			if name == syntax.NoParent {
				if ids := named(at, ident); len(ids) > 0 && nodes[ids[0]].Field != fType {
					name = ids[0]
				}
			}
			if name == syntax.NoParent || nodes[name].Symbol != ident {
				continue
			}
			add(Bind{In: inAt(at), Kind: 'v', Name: r.text(name), Expr: typeOf(r.child(at, fType))})
		case funcDef:
			if typ := typeOf(r.child(at, fReturn)); typ != "" {
				add(Bind{In: inAt(at), Kind: 'r', Expr: typ})
			}
		case classDef:
			name, sup := r.child(at, fName), r.child(at, fSuper)
			if name == syntax.NoParent || sup == syntax.NoParent || nodes[sup].Symbol != argList {
				continue
			}
			for _, b := range named(sup, 0) {
				if t := typeOf(b); t != "" && (nodes[b].Symbol == ident || nodes[b].Symbol == attribute) {
					add(Bind{In: -1, Kind: 'e', Owner: r.text(name), Expr: t})
				}
			}
		}
	}
	f.keepRefs(in, nil)
}
