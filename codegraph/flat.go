package codegraph

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

// The part of tree-sitter's API (api.h of the runtime that
// github.com/smacker/go-tree-sitter compiles and links) that flatten
// uses. The layouts are that version's; flatOK checks them at run time.
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
extern uint32_t ts_node_start_byte(TSNode);
extern uint32_t ts_node_end_byte(TSNode);
extern TSPoint ts_node_start_point(TSNode);
extern bool ts_node_is_named(TSNode);
extern uint32_t ts_node_descendant_count(TSNode);
extern const TSLanguage *ts_tree_language(const TSTree *);
extern TSSymbol ts_language_symbol_for_name(const TSLanguage *, const char *, uint32_t, bool);
extern TSFieldId ts_language_field_id_for_name(const TSLanguage *, const char *, uint32_t);

// cg_node is one node of a flattened tree; flatNode is its Go twin.
typedef struct {
	uint32_t start_byte, end_byte;
	uint32_t start_row, start_col;
	uint32_t parent; // index of the parent, UINT32_MAX for the root
	uint32_t next;   // index just past the node's subtree
	TSSymbol symbol;
	TSFieldId field; // the field the node is in (0: none), or NO_FIELD
	uint8_t named;
	uint8_t pad[3];
} cg_node;

// NO_FIELD is the field of a node whose field was not read.
#define NO_FIELD 0xFFFF

// cg_put reads the node at c, a child of parent. Its field (which costs
// most to read) is read only when the parent's symbol is in fields_in.
static void cg_put(cg_node *o, const TSTreeCursor *c, uint32_t parent, TSSymbol parent_symbol, const uint8_t *fields_in, uint32_t nfields_in) {
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

// cg_flatten writes the visible nodes under root (root first) in
// preorder, as a tree cursor walks them, to out; it returns how many
// there are, or UINT32_MAX if out cannot hold them. The field of a node
// is read when fields_in (indexed by symbol) is set for its parent's.
static uint32_t cg_flatten(TSNode root, cg_node *out, uint32_t cap, const uint8_t *fields_in, uint32_t nfields_in) {
	if (cap == 0) return UINT32_MAX;
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t n = 1, cur = 0;
	cg_put(&out[0], &c, UINT32_MAX, NO_FIELD, fields_in, 0);
	out[0].field = 0;
	for (;;) {
		if (ts_tree_cursor_goto_first_child(&c)) {
			if (n == cap) { ts_tree_cursor_delete(&c); return UINT32_MAX; }
			cg_put(&out[n], &c, cur, out[cur].symbol, fields_in, nfields_in);
			cur = n++;
			continue;
		}
		for (;;) {
			out[cur].next = n;
			if (ts_tree_cursor_goto_next_sibling(&c)) {
				if (n == cap) { ts_tree_cursor_delete(&c); return UINT32_MAX; }
				uint32_t p = out[cur].parent;
				cg_put(&out[n], &c, p, out[p].symbol, fields_in, nfields_in);
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

static uint32_t cg_count(TSNode root) { return ts_node_descendant_count(root); }

static TSSymbol cg_symbol(TSNode root, _GoString_ name, bool named) {
	return ts_language_symbol_for_name(ts_tree_language(root.tree), _GoStringPtr(name), _GoStringLen(name), named);
}

static TSFieldId cg_field(TSNode root, _GoString_ name) {
	return ts_language_field_id_for_name(ts_tree_language(root.tree), _GoStringPtr(name), _GoStringLen(name));
}

static uint32_t cg_start_byte(TSNode n) { return ts_node_start_byte(n); }
static uint32_t cg_end_byte(TSNode n) { return ts_node_end_byte(n); }
static TSSymbol cg_node_symbol(TSNode n) { return ts_node_symbol(n); }
*/
import "C"

import (
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// A flat tree is a parsed file's visible nodes in one array, read from
// the C library in one call: walking it in Go costs no call into C per
// node, which is what makes it cheaper than a query cursor.

// flatNode is one node of a flat tree (cg_node in C).
type flatNode struct {
	start, end   uint32 // bytes
	row, col     uint32 // where it starts, 0-based, as tree-sitter counts
	parent, next uint32 // next: the index past the node's subtree
	sym          uint16
	field        uint16 // 0: none; noField: not read (see flatten)
	named        uint8
	_            [3]uint8
}

// noField is the field of a node whose field flatten did not read.
const noField = 0xFFFF

// errorSymbol is the symbol of an ERROR node.
const errorSymbol = 0xFFFF

// noParent is the root's parent.
const noParent = ^uint32(0)

// cNode is the C value of n: a sitter.Node starts with it.
func cNode(n *sitter.Node) C.TSNode { return *(*C.TSNode)(unsafe.Pointer(n)) }

// flatOK says whether the layouts flatten relies on hold: a flatNode is a
// cg_node, and a sitter.Node starts with the TSNode it wraps. Checked
// once; when they do not hold, the graph reads files with its queries.
var flatOK = sync.OnceValue(func() bool {
	return unsafe.Sizeof(flatNode{}) == C.sizeof_cg_node &&
		unsafe.Sizeof(sitter.Node{}) == C.sizeof_TSNode+unsafe.Sizeof(uintptr(0))
})

// sameNode says whether the C value read from n is the node n is.
func sameNode(n *sitter.Node) bool {
	c := cNode(n)
	return uint32(C.cg_start_byte(c)) == n.StartByte() && uint32(C.cg_end_byte(c)) == n.EndByte() &&
		uint16(C.cg_node_symbol(c)) == uint16(n.Symbol())
}

// flatBufs are flat trees' arrays kept for reuse: a few, of up to
// maxKeptFlat nodes each (a sync.Pool would drop them at every garbage
// collection, and they are wanted for every file). A larger file's array
// is allocated in C, and freed when given back.
var flatBufs = make(chan []flatNode, 4)

const (
	minFlat     = 1 << 14 // 512 KiB
	maxKeptFlat = 1 << 16 // 2 MiB
)

// flatten returns the nodes of the tree under root, in preorder, in an
// array the caller must give back with putFlat; ok is false when the
// tree could not be read so. The field of a node is read only when
// fieldsIn (by symbol) is set for its parent's symbol: noField otherwise.
func flatten(root *sitter.Node, fieldsIn []uint8) (nodes []flatNode, ok bool) {
	if !flatOK() || !sameNode(root) {
		return nil, false
	}
	c := cNode(root)
	want := int(C.cg_count(c))
	size := want + want/4
	var buf []flatNode
	if size > maxKeptFlat {
		p := C.malloc(C.size_t(size) * C.sizeof_cg_node)
		if p == nil {
			return nil, false
		}
		buf = unsafe.Slice((*flatNode)(p), size)
	} else {
		select {
		case buf = <-flatBufs:
		default:
		}
		if cap(buf) < size {
			// Most files fit in the smallest array made.
			buf = make([]flatNode, max(size, minFlat))
		}
		buf = buf[:cap(buf)]
	}
	n := C.cg_flatten(c, (*C.cg_node)(unsafe.Pointer(unsafe.SliceData(buf))), C.uint32_t(len(buf)),
		(*C.uint8_t)(unsafe.SliceData(fieldsIn)), C.uint32_t(len(fieldsIn)))
	if uint32(n) == ^uint32(0) {
		putFlat(buf)
		return nil, false
	}
	return buf[:n], true
}

// putFlat gives back an array flatten returned.
func putFlat(nodes []flatNode) {
	if cap(nodes) > maxKeptFlat { // allocated in C
		C.free(unsafe.Pointer(unsafe.SliceData(nodes)))
		return
	}
	select {
	case flatBufs <- nodes[:0]:
	default:
	}
}

// symbolID is the symbol a query names name by, in the language of the
// tree under root (0 when the language has no such node).
func symbolID(root *sitter.Node, name string, named bool) uint16 {
	return uint16(C.cg_symbol(cNode(root), name, C.bool(named)))
}

// fieldID is the id of a field name in the language of the tree under
// root (0 when it has no such field).
func fieldID(root *sitter.Node, name string) uint16 {
	return uint16(C.cg_field(cNode(root), name))
}
