package syntax

/*
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

// The part of tree-sitter's API (api.h of the runtime that
// github.com/smacker/go-tree-sitter compiles and links) that this file
// reads nodes with. The layouts are that version's; sitterLayoutOK checks
// them at run time.
typedef uint16_t TSSymbol;
typedef uint16_t TSFieldId;
typedef struct TSLanguage TSLanguage;
typedef struct TSTree TSTree;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

extern TSTreeCursor ts_tree_cursor_new(TSNode);
extern void ts_tree_cursor_delete(TSTreeCursor *);
extern bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
extern bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
extern bool ts_tree_cursor_goto_parent(TSTreeCursor *);
extern TSNode ts_tree_cursor_current_node(const TSTreeCursor *);
extern TSFieldId ts_tree_cursor_current_field_id(const TSTreeCursor *);
extern TSSymbol ts_node_symbol(TSNode);
extern const char *ts_node_type(TSNode);
extern uint32_t ts_node_start_byte(TSNode);
extern uint32_t ts_node_end_byte(TSNode);
extern TSPoint ts_node_start_point(TSNode);
extern TSPoint ts_node_end_point(TSNode);
extern bool ts_node_is_null(TSNode);
extern bool ts_node_is_named(TSNode);
extern bool ts_node_is_missing(TSNode);
extern bool ts_node_has_error(TSNode);
extern uint32_t ts_node_child_count(TSNode);
extern TSNode ts_node_child(TSNode, uint32_t);
extern TSNode ts_node_named_child(TSNode, uint32_t);
extern TSNode ts_node_child_by_field_id(TSNode, TSFieldId);
extern uint32_t ts_node_descendant_count(TSNode);
extern const TSLanguage *ts_tree_language(const TSTree *);
extern TSSymbol ts_language_symbol_for_name(const TSLanguage *, const char *, uint32_t, bool);
extern TSFieldId ts_language_field_id_for_name(const TSLanguage *, const char *, uint32_t);
extern const char *ts_language_field_name_for_id(const TSLanguage *, TSFieldId);
extern uint32_t ts_language_field_count(const TSLanguage *);
extern uint32_t ts_language_symbol_count(const TSLanguage *);
extern const char *ts_language_symbol_name(const TSLanguage *, TSSymbol);

static uint32_t sx_start_byte(TSNode n) { return ts_node_start_byte(n); }
static uint32_t sx_end_byte(TSNode n) { return ts_node_end_byte(n); }
static TSSymbol sx_symbol(TSNode n) { return ts_node_symbol(n); }

// ---- Flat trees (flat.go) ----

// sx_flat is one node of a flattened tree; FlatNode is its Go twin.
typedef struct {
	uint32_t start_byte, end_byte;
	uint32_t start_row, start_col;
	uint32_t parent; // index of the parent, UINT32_MAX for the root
	uint32_t next;   // index just past the node's subtree
	TSSymbol symbol;
	TSFieldId field; // the field the node is in (0: none), or NO_FIELD
	bool named;
	uint8_t pad[3];
} sx_flat;

// The offsets of sx_flat's fields, for flatLayoutOK to compare with
// FlatNode's.
enum {
	SX_FLAT_START_BYTE = offsetof(sx_flat, start_byte),
	SX_FLAT_END_BYTE = offsetof(sx_flat, end_byte),
	SX_FLAT_START_ROW = offsetof(sx_flat, start_row),
	SX_FLAT_START_COL = offsetof(sx_flat, start_col),
	SX_FLAT_PARENT = offsetof(sx_flat, parent),
	SX_FLAT_NEXT = offsetof(sx_flat, next),
	SX_FLAT_SYMBOL = offsetof(sx_flat, symbol),
	SX_FLAT_FIELD = offsetof(sx_flat, field),
	SX_FLAT_NAMED = offsetof(sx_flat, named),
};

// NO_FIELD is the field of a node whose field was not read.
#define NO_FIELD 0xFFFF

// sx_put reads the node at c, a child of parent. Its field (which costs
// most to read) is read only when the parent's symbol is in fields_in.
static void sx_put(sx_flat *o, const TSTreeCursor *c, uint32_t parent, TSSymbol parent_symbol, const bool *fields_in, uint32_t nfields_in) {
	TSNode x = ts_tree_cursor_current_node(c);
	TSPoint s = ts_node_start_point(x);
	o->start_byte = ts_node_start_byte(x);
	o->end_byte = ts_node_end_byte(x);
	o->start_row = s.row;
	o->start_col = s.column;
	o->parent = parent;
	o->next = 0;
	o->symbol = ts_node_symbol(x);
	o->field = parent_symbol < nfields_in && fields_in[parent_symbol] ? ts_tree_cursor_current_field_id(c) : NO_FIELD;
	o->named = ts_node_is_named(x);
}

// sx_flatten writes the visible nodes under root (root first) in
// preorder, as a tree cursor walks them, to out; it returns how many
// there are, or UINT32_MAX if out cannot hold them. The field of a node
// is read when fields_in (indexed by symbol) is set for its parent's.
static uint32_t sx_flatten(TSNode root, sx_flat *out, uint32_t cap, const bool *fields_in, uint32_t nfields_in) {
	if (cap == 0) return UINT32_MAX;
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t n = 1, cur = 0;
	sx_put(&out[0], &c, UINT32_MAX, NO_FIELD, fields_in, 0);
	out[0].field = 0;
	for (;;) {
		if (ts_tree_cursor_goto_first_child(&c)) {
			if (n == cap) { ts_tree_cursor_delete(&c); return UINT32_MAX; }
			sx_put(&out[n], &c, cur, out[cur].symbol, fields_in, nfields_in);
			cur = n++;
			continue;
		}
		for (;;) {
			out[cur].next = n;
			if (ts_tree_cursor_goto_next_sibling(&c)) {
				if (n == cap) { ts_tree_cursor_delete(&c); return UINT32_MAX; }
				uint32_t p = out[cur].parent;
				sx_put(&out[n], &c, p, out[p].symbol, fields_in, nfields_in);
				cur = n++;
				break;
			}
			if (!ts_tree_cursor_goto_parent(&c)) {
				ts_tree_cursor_delete(&c);
				return n;
			}
			cur = out[cur].parent;
		}
	}
}

static uint32_t sx_descendants(TSNode root) { return ts_node_descendant_count(root); }

static TSSymbol sx_symbol_for_name(TSNode root, _GoString_ name, bool named) {
	return ts_language_symbol_for_name(ts_tree_language(root.tree), _GoStringPtr(name), _GoStringLen(name), named);
}

static TSFieldId sx_field_for_name(TSNode root, _GoString_ name) {
	return ts_language_field_id_for_name(ts_tree_language(root.tree), _GoStringPtr(name), _GoStringLen(name));
}

// ---- Nodes read one at a time (node.go) ----

// sx_node is what Node holds of a node, read in one call.
typedef struct {
	uint32_t ctx[4];
	uintptr_t id, tree; // a TSNode
	uintptr_t type;     // the C string ts_node_type returns
	uint32_t start_byte, end_byte;
	TSPoint start, end;
	uint32_t child_count;
	TSSymbol symbol;
	TSFieldId field;
	uint8_t named, missing, has_error, pad;
} sx_node;

static TSNode sx_ts(const sx_node *n) {
	TSNode t = {{n->ctx[0], n->ctx[1], n->ctx[2], n->ctx[3]}, (const void *)n->id, (const TSTree *)n->tree};
	return t;
}

static void sx_fill(sx_node *o, TSNode x) {
	for (int i = 0; i < 4; i++) o->ctx[i] = x.context[i];
	o->id = (uintptr_t)x.id;
	o->tree = (uintptr_t)x.tree;
	o->type = (uintptr_t)ts_node_type(x);
	o->start_byte = ts_node_start_byte(x);
	o->end_byte = ts_node_end_byte(x);
	o->start = ts_node_start_point(x);
	o->end = ts_node_end_point(x);
	o->child_count = ts_node_child_count(x);
	o->symbol = ts_node_symbol(x);
	o->field = 0;
	o->named = ts_node_is_named(x);
	o->missing = ts_node_is_missing(x);
	o->has_error = ts_node_has_error(x);
}

// sx_read fills o from x.
static void sx_read(TSNode x, sx_node *o) { sx_fill(o, x); }

// sx_children writes the children of n (what a tree cursor visits) with
// the field each is in to out, and returns how many there are (more than
// cap: only cap were written).
static uint32_t sx_children(const sx_node *n, sx_node *out, uint32_t cap) {
	TSTreeCursor c = ts_tree_cursor_new(sx_ts(n));
	uint32_t i = 0;
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			if (i < cap) {
				sx_fill(&out[i], ts_tree_cursor_current_node(&c));
				out[i].field = ts_tree_cursor_current_field_id(&c);
			}
			i++;
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return i;
}

// sx_child_by_field writes n's child in field to out; false: none.
static bool sx_child_by_field(const sx_node *n, TSFieldId field, sx_node *out) {
	TSNode c = ts_node_child_by_field_id(sx_ts(n), field);
	if (ts_node_is_null(c)) return false;
	sx_fill(out, c);
	return true;
}

// sx_named_child writes n's i-th named child to out; false: none.
static bool sx_named_child(const sx_node *n, uint32_t i, sx_node *out) {
	TSNode c = ts_node_named_child(sx_ts(n), i);
	if (ts_node_is_null(c)) return false;
	sx_fill(out, c);
	return true;
}

static bool sx_is_comment(const char *t) {
	return strcmp(t, "comment") == 0 || strcmp(t, "line_comment") == 0 || strcmp(t, "block_comment") == 0;
}

// sx_end_line is the 1-based last line of n: a node that ends at the start
// of a line ends on the line before.
static uint32_t sx_end_line(TSNode n) {
	TSPoint s = ts_node_start_point(n), e = ts_node_end_point(n);
	if (e.column == 0 && e.row > s.row) return e.row;
	return e.row + 1;
}

// sx_last_code_line is Node.LastCodeLine: from n, down the last child
// that is not a comment, to a leaf or to a node with only comments, and
// that node's last line.
static uint32_t sx_last_code_line(const sx_node *start) {
	TSNode n = sx_ts(start);
	for (;;) {
		// ts_node_child(n, i) skips over hidden subtrees that do not
		// hold child i: looking from the end costs little.
		uint32_t count = ts_node_child_count(n), i = count;
		TSNode last = n;
		bool found = false;
		while (i > 0 && !found) {
			last = ts_node_child(n, --i);
			found = !sx_is_comment(ts_node_type(last));
		}
		if (!found) return sx_end_line(n);
		if (ts_node_child_count(last) == 0) return sx_end_line(last);
		n = last;
	}
}

static const char *sx_string(uintptr_t p) { return (const char *)p; }

static const TSLanguage *sx_language(const sx_node *n) { return ts_tree_language((const TSTree *)n->tree); }
*/
import "C"

import (
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// This file is the one place that knows how tree-sitter lays out a node in
// C and how go-tree-sitter wraps it: a *sitter.Node costs a call into C
// for each thing read of it (and its tree's map of nodes an entry), and
// reading many nodes through it cost a good part of a parse. Reading the
// C values directly, many at a time, does not.

// sitterLayoutOK says whether a sitter.Node is the TSNode it wraps
// followed by its tree's pointer, as this file reads it. Checked once;
// each root read is checked again against go-tree-sitter's own reading of
// it (CanRead, readRoot).
var sitterLayoutOK = sync.OnceValue(func() bool {
	return unsafe.Sizeof(sitter.Node{}) == C.sizeof_TSNode+unsafe.Sizeof(uintptr(0))
})

// flatLayoutOK says whether a FlatNode is an sx_flat, field by field.
var flatLayoutOK = sync.OnceValue(func() bool {
	var f FlatNode
	return unsafe.Sizeof(f) == C.sizeof_sx_flat &&
		unsafe.Offsetof(f.Start) == C.SX_FLAT_START_BYTE &&
		unsafe.Offsetof(f.End) == C.SX_FLAT_END_BYTE &&
		unsafe.Offsetof(f.Row) == C.SX_FLAT_START_ROW &&
		unsafe.Offsetof(f.Col) == C.SX_FLAT_START_COL &&
		unsafe.Offsetof(f.Parent) == C.SX_FLAT_PARENT &&
		unsafe.Offsetof(f.Next) == C.SX_FLAT_NEXT &&
		unsafe.Offsetof(f.Symbol) == C.SX_FLAT_SYMBOL &&
		unsafe.Offsetof(f.Field) == C.SX_FLAT_FIELD &&
		unsafe.Offsetof(f.Named) == C.SX_FLAT_NAMED
})

// cNode is the C value of n: a sitter.Node starts with it. Only for a
// node whose layout was checked (CanRead).
func cNode(n *sitter.Node) C.TSNode { return *(*C.TSNode)(unsafe.Pointer(n)) }

// CanRead says whether the C value of root, a node of a tree the caller
// holds, can be read here: a sitter.Node is laid out as this file reads
// it, and what is read of root is what go-tree-sitter reads of it.
// SymbolID and FieldID need it; Flatten checks it itself, and Nodes.Root
// panics without it.
func CanRead(root *sitter.Node) bool {
	if !sitterLayoutOK() {
		return false
	}
	c := cNode(root)
	return uint32(C.sx_start_byte(c)) == root.StartByte() && uint32(C.sx_end_byte(c)) == root.EndByte() &&
		uint16(C.sx_symbol(c)) == uint16(root.Symbol())
}

// flattenInto writes the nodes under root to buf (see sx_flatten); false
// when buf cannot hold them.
func flattenInto(root *sitter.Node, buf []FlatNode, fieldsIn []bool) (int, bool) {
	n := C.sx_flatten(cNode(root), (*C.sx_flat)(unsafe.Pointer(unsafe.SliceData(buf))), C.uint32_t(len(buf)),
		(*C.bool)(unsafe.Pointer(unsafe.SliceData(fieldsIn))), C.uint32_t(len(fieldsIn)))
	if uint32(n) == ^uint32(0) {
		return 0, false
	}
	return int(n), true
}

// descendants is tree-sitter's count of the nodes under root, root
// included: what Flatten sizes its array by.
func descendants(root *sitter.Node) int { return int(C.sx_descendants(cNode(root))) }

// allocFlat allocates n FlatNodes in C, for a tree too large to keep its
// array for reuse; nil when C has no memory for them.
func allocFlat(n int) []FlatNode {
	p := C.malloc(C.size_t(n) * C.sizeof_sx_flat)
	if p == nil {
		return nil
	}
	return unsafe.Slice((*FlatNode)(p), n)
}

// freeFlat frees an array allocFlat returned.
func freeFlat(nodes []FlatNode) { C.free(unsafe.Pointer(unsafe.SliceData(nodes))) }

// SymbolID is the symbol a query names name by in the language of the
// tree under root (0 when the language has no such node). root must pass
// CanRead.
func SymbolID(root *sitter.Node, name string, named bool) uint16 {
	return uint16(C.sx_symbol_for_name(cNode(root), name, C.bool(named)))
}

// FieldID is the id of a field name in the language of the tree under
// root (0 when it has no such field). root must pass CanRead.
func FieldID(root *sitter.Node, name string) uint16 {
	return uint16(C.sx_field_for_name(cNode(root), name))
}

// nodeData is what a Node holds of its node (sx_node).
type nodeData = C.sx_node

// readRoot reads root into o. It panics when root cannot be read: the
// outline has no other way to read a tree.
func readRoot(root *sitter.Node, o *nodeData) {
	if !sitterLayoutOK() {
		panic("syntax: github.com/smacker/go-tree-sitter's Node is not the TSNode and tree pointer syntax was written for")
	}
	C.sx_read(cNode(root), o)
	if uint32(o.start_byte) != root.StartByte() || uint32(o.end_byte) != root.EndByte() || uint16(o.symbol) != uint16(root.Symbol()) {
		panic("syntax: github.com/smacker/go-tree-sitter's Node does not start with its TSNode")
	}
}

// readChildren writes the children of n to out and returns how many there
// are: more than len(out) means only len(out) were written.
func readChildren(n *nodeData, out []nodeData) int {
	return int(C.sx_children(n, unsafe.SliceData(out), C.uint32_t(len(out))))
}

// readChildByField writes n's child in field to out; false: none.
func readChildByField(n *nodeData, field uint16, out *nodeData) bool {
	return bool(C.sx_child_by_field(n, C.TSFieldId(field), out))
}

// readNamedChild writes n's i-th named child to out; false: none.
func readNamedChild(n *nodeData, i int, out *nodeData) bool {
	return bool(C.sx_named_child(n, C.uint32_t(i), out))
}

// lastCodeLine is sx_last_code_line.
func lastCodeLine(n *nodeData) int { return int(C.sx_last_code_line(n)) }

// langInfoOf returns what Nodes reads once of the language of n's tree.
func langInfoOf(n *nodeData) *langInfo {
	l := C.sx_language(n)
	if li, ok := langInfos.Load(uintptr(unsafe.Pointer(l))); ok {
		return li.(*langInfo)
	}
	count := int(C.ts_language_field_count(l))
	li := &langInfo{fieldIDs: make(map[string]uint16, count), fieldNames: make([]string, count+1)}
	for id := 1; id <= count; id++ {
		if p := C.ts_language_field_name_for_id(l, C.TSFieldId(id)); p != nil {
			name := C.GoString(p)
			li.fieldNames[id] = name
			if _, dup := li.fieldIDs[name]; !dup {
				li.fieldIDs[name] = uint16(id)
			}
		}
	}
	symbols := int(C.ts_language_symbol_count(l))
	li.typePtrs, li.typeNames = make([]uintptr, symbols), make([]string, symbols)
	for s := range symbols {
		if p := C.ts_language_symbol_name(l, C.TSSymbol(s)); p != nil {
			li.typePtrs[s], li.typeNames[s] = uintptr(unsafe.Pointer(p)), C.GoString(p)
		}
	}
	actual, _ := langInfos.LoadOrStore(uintptr(unsafe.Pointer(l)), li)
	return actual.(*langInfo)
}

// goString is the C string at p as a Go string.
func goString(p uintptr) string { return C.GoString(C.sx_string(C.uintptr_t(p))) }
