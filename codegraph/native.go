package codegraph

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"cchub/lang"
	"cchub/syntax"

	sitter "github.com/smacker/go-tree-sitter"
)

// Native readers: a language's query file written out in Go, run over a
// flat tree (syntax.Flatten) instead of through a query cursor. A query
// cursor walks every node of the tree, calling into C and keeping match
// states at each, which costs about half a parse; a flat tree is read in
// one call and walked in Go. A native reader finds exactly the matches its query
// file does, in the same order (tree-sitter finishes a match on entering
// the node of its last step; a native reader finds each match at that
// node, walking in preorder), and turns them into calls and imports as
// extract does.
//
// Each is tied to the content of the query file it was written from: when
// the file changes, the language is read with its query again (and
// TestNativeReadsAsTheQuery fails until the reader is brought up to date).

// nativeLang is one language's native reader.
type nativeLang struct {
	scm    string   // SHA-256 of queries/<name>.scm, hex
	names  []string // the named node types it needs, by index
	fields []string // the fields it needs, by index
	// fieldsIn are the node types (of names) whose children's fields it
	// reads: Flatten reads no other node's field (NoField). Every field
	// read compares the field of a child of one of these, or of a node
	// whose parent's type is checked to be one of these after.
	fieldsIn []string
	read     func(r *flatReader, f *File)
}

// natives are the languages read natively, by query file name.
var natives = map[string]*nativeLang{
	lang.Go:     &goNative,
	lang.Python: &pythonNative,
}

// nativeIDs are a native reader's symbols and fields in one language.
type nativeIDs struct {
	sym, field []uint16
	fieldsIn   []bool // by symbol: true for the types of fieldsIn
}

var nativeIDCache sync.Map // language name → *nativeIDs

// nativeFor returns the native reader of tree's language and the ids it
// needs, or nil when the language is read with its query.
func nativeFor(language string, root *sitter.Node) (*nativeLang, *nativeIDs) {
	nl := natives[queryName(language)]
	if nl == nil || !nativeCurrent(queryName(language)) {
		return nil, nil
	}
	if ids, ok := nativeIDCache.Load(language); ok {
		return nl, ids.(*nativeIDs)
	}
	if !syntax.CanRead(root) {
		return nil, nil // the C values of nodes cannot be read here
	}
	ids := &nativeIDs{}
	for _, n := range nl.names {
		ids.sym = append(ids.sym, syntax.SymbolID(root, n, true))
	}
	for _, n := range nl.fields {
		ids.field = append(ids.field, syntax.FieldID(root, n))
	}
	for _, id := range ids.sym {
		if id == 0 {
			return nil, nil // a node the grammar does not have: the query would not compile
		}
	}
	for _, id := range ids.field {
		if id == 0 {
			return nil, nil
		}
	}
	for _, name := range nl.fieldsIn {
		id := syntax.SymbolID(root, name, true)
		if id == 0 {
			return nil, nil
		}
		if int(id) >= len(ids.fieldsIn) {
			ids.fieldsIn = append(ids.fieldsIn, make([]bool, int(id)+1-len(ids.fieldsIn))...)
		}
		ids.fieldsIn[id] = true
	}
	actual, _ := nativeIDCache.LoadOrStore(language, ids)
	return nl, actual.(*nativeIDs)
}

// nativeCurrent says whether the native reader of a query file was
// written from its present content.
func nativeCurrent(name string) bool {
	v, _ := nativeHashes.Load(name)
	if v == nil {
		b, err := queryFiles.ReadFile("queries/" + name + ".scm")
		h := sha256.Sum256(b)
		v = err == nil && natives[name] != nil && hex.EncodeToString(h[:]) == natives[name].scm
		nativeHashes.Store(name, v)
	}
	return v.(bool)
}

var nativeHashes sync.Map // query file name → bool

// flatReader walks a flat tree for a native reader.
type flatReader struct {
	nodes []syntax.FlatNode
	src   []byte
	ids   *nativeIDs
}

// text is the source of node i.
func (r *flatReader) text(i uint32) string {
	n := &r.nodes[i]
	return string(r.src[n.Start:n.End])
}

// child is the first child of p in field, or syntax.NoParent.
func (r *flatReader) child(p uint32, field uint16) uint32 {
	for c := p + 1; c < r.nodes[p].Next; c = r.nodes[c].Next {
		if r.nodes[c].Field == field {
			return c
		}
	}
	return syntax.NoParent
}

// parentIs says whether node i has a parent of symbol sym, and returns it.
func (r *flatReader) parentIs(i uint32, sym uint16) (uint32, bool) {
	p := r.nodes[i].Parent
	return p, p != syntax.NoParent && r.nodes[p].Symbol == sym
}

// wildcard says whether node i, a child of the node a pattern's step is
// at, matches (_) there: named, and not an ERROR. A missing child
// (syntax.NoParent) does not.
func (r *flatReader) wildcard(i uint32) bool {
	return i != syntax.NoParent && r.nodes[i].Named && r.nodes[i].Symbol != syntax.ErrorSymbol
}

// call adds the call of name (what it is called on: qualifier, or
// syntax.NoParent), as readCall reads it.
func (r *flatReader) call(f *File, name, qualifier uint32) {
	c := Call{Name: r.text(name)}
	if qualifier != syntax.NoParent {
		c.Qualifier = r.text(qualifier)
	}
	n := &r.nodes[name]
	c.Line, c.Col = int(n.Row)+1, int(n.Col)+1
	if c.Name != "" {
		f.Calls = append(f.Calls, c)
	}
}

// imp adds an import, as readImports reads it (syntax.NoParent: not
// captured).
func (r *flatReader) imp(f *File, imp, alias, from uint32) {
	text := func(i uint32) string {
		if i == syntax.NoParent {
			return ""
		}
		return r.text(i)
	}
	f.Imports = append(f.Imports, importOf(f.Language, text(alias), text(imp), text(from)))
}

// goNative is queries/go.scm:
//
//	(call_expression function: (identifier) @name) @call
//	(call_expression function: (selector_expression operand: (_) @qualifier field: (field_identifier) @name)) @call
//	(import_spec name: (package_identifier) @alias path: (interpreted_string_literal) @import)
//	(import_spec !name path: (interpreted_string_literal) @import)
var goNative = nativeLang{
	scm: "bc2ca6448e9a78b981501cbea92bde44d8d3840797af1ca9502bfbb71fe5ea2d",
	names: []string{"call_expression", "identifier", "selector_expression", "field_identifier", "import_spec", "package_identifier", "interpreted_string_literal",
		// type facts (goFacts)
		"field_declaration", "parameter_declaration", "variadic_parameter_declaration", "short_var_declaration", "var_spec",
		"type_spec", "function_declaration", "method_declaration", "parameter_list", "expression_list", "field_declaration_list",
		"struct_type", "range_clause", "func_literal", "type_identifier", "type_switch_statement", "receive_statement",
		"argument_list", "literal_element", "keyed_element", "literal_value", "return_statement", "assignment_statement",
		"method_elem", "interface_type", "type_elem", "package_clause"},
	fields: []string{"function", "operand", "field", "name", "path",
		"type", "left", "right", "value", "result", "receiver", "parameters", "alias"},
	fieldsIn: []string{"call_expression", "selector_expression", "import_spec",
		"field_declaration", "parameter_declaration", "variadic_parameter_declaration", "short_var_declaration", "var_spec",
		"type_spec", "function_declaration", "method_declaration", "range_clause", "func_literal", "type_switch_statement", "receive_statement", "assignment_statement", "method_elem"},
	read: goRead,
}

func goRead(r *flatReader, f *File) {
	s, fl := r.ids.sym, r.ids.field
	callExpr, ident, selector, fieldIdent, importSpec, pkgIdent, strLit := s[0], s[1], s[2], s[3], s[4], s[5], s[6]
	fFunction, fOperand, fField, fName, fPath := fl[0], fl[1], fl[2], fl[3], fl[4]
	nodes := r.nodes
	for i := range nodes {
		n := &nodes[i]
		at := uint32(i)
		switch n.Symbol {
		case ident:
			if n.Field != fFunction {
				continue
			}
			if _, ok := r.parentIs(at, callExpr); ok {
				r.call(f, at, syntax.NoParent)
			}
		case fieldIdent:
			if n.Field != fField {
				continue
			}
			sel, ok := r.parentIs(at, selector)
			if !ok || nodes[sel].Field != fFunction {
				continue
			}
			if _, ok := r.parentIs(sel, callExpr); !ok {
				continue
			}
			if op := r.child(sel, fOperand); op < at && r.wildcard(op) {
				r.call(f, at, op)
			}
		case strLit:
			if n.Field != fPath {
				continue
			}
			spec, ok := r.parentIs(at, importSpec)
			if !ok {
				continue
			}
			switch name := r.child(spec, fName); {
			case name == syntax.NoParent:
				r.imp(f, at, syntax.NoParent, syntax.NoParent)
			case name < at && nodes[name].Symbol == pkgIdent:
				r.imp(f, at, name, syntax.NoParent)
			}
		}
	}
	goFacts(r, f)
}

// pythonNative is queries/python.scm:
//
//	(call function: (identifier) @name) @call
//	(call function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @call
//	(import_statement name: (dotted_name) @import)
//	(import_statement name: (aliased_import name: (dotted_name) @import alias: (identifier) @alias))
//	(import_from_statement module_name: (_) @from name: (dotted_name) @import)
//	(import_from_statement module_name: (_) @from name: (aliased_import name: (dotted_name) @import alias: (identifier) @alias))
//	(import_from_statement module_name: (_) @from (wildcard_import) @import)
var pythonNative = nativeLang{
	scm: "a12188989225377cece0b04b4f699b4ef10b60dc1ae189b8dbbac924595335a5",
	names: []string{"call", "identifier", "attribute", "import_statement", "import_from_statement", "dotted_name", "aliased_import",
		// type facts (pythonFacts)
		"assignment", "typed_parameter", "typed_default_parameter", "function_definition", "class_definition",
		"argument_list", "for_statement", "pattern_list", "tuple_pattern", "type",
		"keyword_argument", "return_statement", "list", "tuple", "pair",
		"wildcard_import"}, // last: the facts' symbols keep their places
	fields: []string{"function", "object", "attribute", "name", "alias", "module_name",
		"left", "right", "type", "return_type", "superclasses", "value"},
	fieldsIn: []string{"call", "attribute", "import_statement", "import_from_statement", "aliased_import",
		"assignment", "typed_parameter", "typed_default_parameter", "function_definition", "class_definition", "for_statement", "keyword_argument", "pair"},
	read: pythonRead,
}

func pythonRead(r *flatReader, f *File) {
	s, fl := r.ids.sym, r.ids.field
	call, ident, attribute, importStmt, fromStmt, dotted, aliased := s[0], s[1], s[2], s[3], s[4], s[5], s[6]
	wildcardImport := s[len(s)-1]
	fFunction, fObject, fAttribute, fName, fAlias, fModule := fl[0], fl[1], fl[2], fl[3], fl[4], fl[5]
	nodes := r.nodes
	// from is the module an import_from_statement's name at reads from,
	// or false when the statement does not match (no module before it).
	from := func(stmt, at uint32) (uint32, bool) {
		m := r.child(stmt, fModule)
		return m, m < at && r.wildcard(m)
	}
	for i := range nodes {
		n := &nodes[i]
		at := uint32(i)
		switch n.Symbol {
		case ident:
			switch n.Field {
			case fFunction:
				if _, ok := r.parentIs(at, call); ok {
					r.call(f, at, syntax.NoParent)
				}
			case fAttribute:
				attr, ok := r.parentIs(at, attribute)
				if !ok || nodes[attr].Field != fFunction {
					continue
				}
				if _, ok := r.parentIs(attr, call); !ok {
					continue
				}
				if obj := r.child(attr, fObject); obj < at && r.wildcard(obj) {
					r.call(f, at, obj)
				}
			case fAlias:
				al, ok := r.parentIs(at, aliased)
				if !ok || nodes[al].Field != fName {
					continue
				}
				name := r.child(al, fName)
				if name > at || nodes[name].Symbol != dotted {
					continue // syntax.NoParent is > at too
				}
				stmt := nodes[al].Parent
				switch {
				case stmt == syntax.NoParent:
				case nodes[stmt].Symbol == importStmt:
					r.imp(f, name, at, syntax.NoParent)
				case nodes[stmt].Symbol == fromStmt:
					if m, ok := from(stmt, al); ok {
						r.imp(f, name, at, m)
					}
				}
			}
		case dotted:
			if n.Field != fName {
				continue
			}
			stmt := n.Parent
			switch {
			case stmt == syntax.NoParent:
			case nodes[stmt].Symbol == importStmt:
				r.imp(f, at, syntax.NoParent, syntax.NoParent)
			case nodes[stmt].Symbol == fromStmt:
				if m, ok := from(stmt, at); ok {
					r.imp(f, at, syntax.NoParent, m)
				}
			}
		case wildcardImport:
			if stmt, ok := r.parentIs(at, fromStmt); ok {
				if m, ok := from(stmt, at); ok {
					r.imp(f, at, syntax.NoParent, m)
				}
			}
		}
	}
	pythonFacts(r, f)
}
