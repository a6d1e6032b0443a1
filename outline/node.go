package outline

/*
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

// The part of tree-sitter's API (api.h of the runtime that
// github.com/smacker/go-tree-sitter compiles and links) the outline
// walks with. The layouts are that version's; rootNode checks them.
typedef uint16_t TSSymbol;
typedef uint16_t TSFieldId;
typedef struct TSLanguage TSLanguage;
typedef struct TSTree TSTree;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

extern TSTreeCursor ts_tree_cursor_new(TSNode);
extern void ts_tree_cursor_delete(TSTreeCursor *);
extern void ts_tree_cursor_reset(TSTreeCursor *, TSNode);
extern bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
extern bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
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
extern const TSLanguage *ts_tree_language(const TSTree *);
extern TSFieldId ts_language_field_id_for_name(const TSLanguage *, const char *, uint32_t);
extern const char *ts_language_field_name_for_id(const TSLanguage *, TSFieldId);
extern uint32_t ts_language_field_count(const TSLanguage *);
extern uint32_t ts_language_symbol_count(const TSLanguage *);
extern const char *ts_language_symbol_name(const TSLanguage *, TSSymbol);

// ol_node is what the outline reads of a node, in one call; node holds it
// on the Go side.
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
} ol_node;

static TSNode ol_ts(const ol_node *n) {
	TSNode t = {{n->ctx[0], n->ctx[1], n->ctx[2], n->ctx[3]}, (const void *)n->id, (const TSTree *)n->tree};
	return t;
}

static void ol_fill(ol_node *o, TSNode x) {
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

// ol_read fills n from the TSNode it holds.
static void ol_read(ol_node *n) { ol_fill(n, ol_ts(n)); }

// ol_children writes the children of n (what a tree cursor visits) with
// the field each is in to out, and returns how many there are (more than
// cap: only cap were written).
static uint32_t ol_children(const ol_node *n, ol_node *out, uint32_t cap) {
	TSTreeCursor c = ts_tree_cursor_new(ol_ts(n));
	uint32_t i = 0;
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			if (i < cap) {
				ol_fill(&out[i], ts_tree_cursor_current_node(&c));
				out[i].field = ts_tree_cursor_current_field_id(&c);
			}
			i++;
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return i;
}

// ol_child_by_field writes n's child in field to out; false: none.
static bool ol_child_by_field(const ol_node *n, TSFieldId field, ol_node *out) {
	TSNode c = ts_node_child_by_field_id(ol_ts(n), field);
	if (ts_node_is_null(c)) return false;
	ol_fill(out, c);
	return true;
}

static bool ol_is_comment(const char *t) {
	return strcmp(t, "comment") == 0 || strcmp(t, "line_comment") == 0 || strcmp(t, "block_comment") == 0;
}

// ol_end_line is endLine in C.
static uint32_t ol_end_line(TSNode n) {
	TSPoint s = ts_node_start_point(n), e = ts_node_end_point(n);
	if (e.column == 0 && e.row > s.row) return e.row;
	return e.row + 1;
}

// ol_last_code_line is the Python outline's lastCodeLine in C: from n,
// down the last child that is not a comment, to a leaf or to a node with
// only comments, and that node's last line.
static uint32_t ol_last_code_line(const ol_node *start) {
	TSNode n = ol_ts(start);
	for (;;) {
		// ts_node_child(n, i) skips over hidden subtrees that do not
		// hold child i: looking from the end costs little.
		uint32_t count = ts_node_child_count(n), i = count;
		TSNode last = n;
		bool found = false;
		while (i > 0 && !found) {
			last = ts_node_child(n, --i);
			found = !ol_is_comment(ts_node_type(last));
		}
		if (!found) return ol_end_line(n);
		if (ts_node_child_count(last) == 0) return ol_end_line(last);
		n = last;
	}
}

// ol_named_child writes n's i-th named child to out; false: none.
static bool ol_named_child(const ol_node *n, uint32_t i, ol_node *out) {
	TSNode c = ts_node_named_child(ol_ts(n), i);
	if (ts_node_is_null(c)) return false;
	ol_fill(out, c);
	return true;
}

static const char *ol_string(uintptr_t p) { return (const char *)p; }

static const TSLanguage *ol_language(const ol_node *n) { return ts_tree_language((const TSTree *)n->tree); }
*/
import "C"

import (
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// node is a syntax node as the outline reads it: what it is and where,
// read from the C library in one call, and its children, read in one more
// on first need. A *sitter.Node costs a call into C for each of these (and
// the tree's map of nodes an entry for each), which made outlining a file
// cost a good part of parsing it.
type node struct {
	c        C.ol_node
	typ      string
	a        *nodeArena
	kids     []*node
	kidsRead bool
}

// langInfo is what the outline reads once of a language: its field names
// and ids, and the names of its node types.
type langInfo struct {
	fieldIDs   map[string]C.TSFieldId
	fieldNames []string      // by id
	typePtrs   []C.uintptr_t // by symbol: the C string ts_node_type returns
	typeNames  []string      // by symbol: typePtrs as Go strings
}

var langInfos sync.Map // TSLanguage pointer → *langInfo

func langInfoOf(n *C.ol_node) *langInfo {
	l := C.ol_language(n)
	if li, ok := langInfos.Load(uintptr(unsafe.Pointer(l))); ok {
		return li.(*langInfo)
	}
	count := int(C.ts_language_field_count(l))
	li := &langInfo{fieldIDs: make(map[string]C.TSFieldId, count), fieldNames: make([]string, count+1)}
	for id := 1; id <= count; id++ {
		if p := C.ts_language_field_name_for_id(l, C.TSFieldId(id)); p != nil {
			name := C.GoString(p)
			li.fieldNames[id] = name
			if _, dup := li.fieldIDs[name]; !dup {
				li.fieldIDs[name] = C.TSFieldId(id)
			}
		}
	}
	symbols := int(C.ts_language_symbol_count(l))
	li.typePtrs, li.typeNames = make([]C.uintptr_t, symbols), make([]string, symbols)
	for s := range symbols {
		if p := C.ts_language_symbol_name(l, C.TSSymbol(s)); p != nil {
			li.typePtrs[s], li.typeNames[s] = C.uintptr_t(uintptr(unsafe.Pointer(p))), C.GoString(p)
		}
	}
	actual, _ := langInfos.LoadOrStore(uintptr(unsafe.Pointer(l)), li)
	return actual.(*langInfo)
}

// typeName is the Go string of a node type's C string: by the node's
// symbol when that is the string, else converted once.
func (li *langInfo) typeName(sym C.TSSymbol, p C.uintptr_t) string {
	if int(sym) < len(li.typePtrs) && li.typePtrs[sym] == p {
		return li.typeNames[sym]
	}
	if p == 0 {
		return ""
	}
	if s, ok := otherTypeNames.Load(p); ok {
		return s.(string)
	}
	s, _ := otherTypeNames.LoadOrStore(p, C.GoString(C.ol_string(p)))
	return s.(string)
}

var otherTypeNames sync.Map // C string → string

// nodeArena allocates the nodes of one outline, and holds the buffer
// children are read into. close gives the buffer back.
type nodeArena struct {
	slab    []node
	slabLen int          // the size of the last slab: they grow to 128 nodes
	buf     *[]C.ol_node // from childBufs
	one     C.ol_node    // a node read alone, before alloc copies it
	lang    *langInfo
}

// childBufs are the buffers children are read into, reused across files
// (an ol_node holds no pointer the garbage collector follows).
var childBufs = sync.Pool{New: func() any { b := make([]C.ol_node, 256); return &b }}

func (a *nodeArena) alloc(c *C.ol_node) *node {
	if len(a.slab) == 0 {
		// A file's first nodes come 16 at a time (a small file needs
		// few), then more, up to 128 (under 32 KiB: not a large object).
		a.slabLen = min(max(2*a.slabLen, 16), 128)
		a.slab = make([]node, a.slabLen)
	}
	n := &a.slab[0]
	a.slab = a.slab[1:]
	n.c = *c
	n.typ = a.lang.typeName(c.symbol, c._type)
	n.a = a
	return n
}

func (a *nodeArena) close() {
	if a.buf != nil && cap(*a.buf) <= 1<<16 {
		childBufs.Put(a.buf)
	}
	a.buf = nil
	a.slab = nil
}

// rootNode is the node of root, a node of a tree the caller holds.
func (a *nodeArena) rootNode(root *sitter.Node) *node {
	if unsafe.Sizeof(sitter.Node{}) != C.sizeof_TSNode+unsafe.Sizeof(uintptr(0)) {
		panic("outline: github.com/smacker/go-tree-sitter's Node is not the TSNode and tree pointer outline was written for")
	}
	ts := (*C.TSNode)(unsafe.Pointer(root))
	c := &a.one
	for i := range 4 {
		c.ctx[i] = ts.context[i]
	}
	c.id, c.tree = C.uintptr_t(uintptr(ts.id)), C.uintptr_t(uintptr(unsafe.Pointer(ts.tree)))
	C.ol_read(c)
	if uint32(c.start_byte) != root.StartByte() || uint32(c.end_byte) != root.EndByte() || uint16(c.symbol) != uint16(root.Symbol()) {
		panic("outline: github.com/smacker/go-tree-sitter's Node does not start with its TSNode")
	}
	a.lang = langInfoOf(c)
	return a.alloc(c)
}

// children reads the children of n once.
func (a *nodeArena) children(n *node) []*node {
	if n.kidsRead {
		return n.kids
	}
	n.kidsRead = true
	want := int(n.c.child_count)
	if want == 0 {
		return nil
	}
	if a.buf == nil {
		a.buf = childBufs.Get().(*[]C.ol_node)
	}
	for {
		if len(*a.buf) < want {
			b := make([]C.ol_node, want)
			a.buf = &b
		}
		buf := *a.buf
		got := int(C.ol_children(&n.c, unsafe.SliceData(buf), C.uint32_t(len(buf))))
		if got > len(buf) {
			want = got
			continue
		}
		kids := make([]*node, got)
		for i := range got {
			kids[i] = a.alloc(&buf[i])
		}
		n.kids = kids[:got:got] // full: an append copies
		return n.kids
	}
}

// ChildByFieldName is n's child in the named field, or nil, as
// ts_node_child_by_field_name finds it.
func (n *node) ChildByFieldName(name string) *node {
	id, ok := n.a.lang.fieldIDs[name]
	if !ok {
		return nil
	}
	if !C.ol_child_by_field(&n.c, id, &n.a.one) {
		return nil
	}
	return n.a.alloc(&n.a.one)
}

// namedChild is the i-th of n's named children (x.named(n)[i]), or nil,
// read without reading the others.
func (n *node) namedChild(i int) *node {
	if n.kidsRead {
		for _, c := range n.kids {
			if c.IsNamed() {
				if i == 0 {
					return c
				}
				i--
			}
		}
		return nil
	}
	if !C.ol_named_child(&n.c, C.uint32_t(i), &n.a.one) {
		return nil
	}
	return n.a.alloc(&n.a.one)
}

// lastCodeLine is the last line of n that is not a trailing comment: see
// the Python outline's lastCodeLine, which this is in one call into C.
func (n *node) lastCodeLine() int { return int(C.ol_last_code_line(&n.c)) }

// fieldName is the name of the field a child is in, "" for none.
func (n *node) fieldName() string {
	if int(n.c.field) < len(n.a.lang.fieldNames) {
		return n.a.lang.fieldNames[n.c.field]
	}
	return ""
}

// The methods of sitter.Node the outline uses.

func (n *node) Type() string      { return n.typ }
func (n *node) StartByte() uint32 { return uint32(n.c.start_byte) }
func (n *node) EndByte() uint32   { return uint32(n.c.end_byte) }
func (n *node) StartPoint() sitter.Point {
	return sitter.Point{Row: uint32(n.c.start.row), Column: uint32(n.c.start.column)}
}
func (n *node) EndPoint() sitter.Point {
	return sitter.Point{Row: uint32(n.c.end.row), Column: uint32(n.c.end.column)}
}
func (n *node) IsNamed() bool      { return n.c.named != 0 }
func (n *node) IsMissing() bool    { return n.c.missing != 0 }
func (n *node) HasError() bool     { return n.c.has_error != 0 }
func (n *node) IsError() bool      { return n.c.symbol == 0xFFFF }
func (n *node) ChildCount() uint32 { return uint32(n.c.child_count) }
