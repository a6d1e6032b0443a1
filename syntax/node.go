package syntax

import (
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// Node is a syntax node read for a walk that looks at most nodes of a
// tree once, as an outline does: what it is and where, read from the C
// library in one call, and its children, read in one more on first need.
// A *sitter.Node costs a call into C for each of these (and the tree's map
// of nodes an entry for each), which made outlining a file cost a good
// part of parsing it. Its methods are those of sitter.Node, for the
// things it reads.
//
// A Node is valid while the tree it was read from is held and the Nodes
// that read it is not closed.
type Node struct {
	c        nodeData
	typ      string
	a        *Nodes
	kids     []*Node
	kidsRead bool
}

// langInfo is what Nodes reads once of a language: its field names and
// ids, and the names of its node types.
type langInfo struct {
	fieldIDs   map[string]uint16
	fieldNames []string  // by id
	typePtrs   []uintptr // by symbol: the C string ts_node_type returns
	typeNames  []string  // by symbol: typePtrs as Go strings
}

var langInfos sync.Map // TSLanguage pointer → *langInfo

// typeName is the Go string of a node type's C string: by the node's
// symbol when that is the string, else converted once.
func (li *langInfo) typeName(sym uint16, p uintptr) string {
	if int(sym) < len(li.typePtrs) && li.typePtrs[sym] == p {
		return li.typeNames[sym]
	}
	if p == 0 {
		return ""
	}
	if s, ok := otherTypeNames.Load(p); ok {
		return s.(string)
	}
	s, _ := otherTypeNames.LoadOrStore(p, goString(p))
	return s.(string)
}

var otherTypeNames sync.Map // C string → string

// Nodes reads the nodes of one tree and allocates them, and holds the
// buffer children are read into. The zero value is ready to use; Close
// gives the buffer back. A Nodes is used by one goroutine at a time.
type Nodes struct {
	slab    []Node
	slabLen int         // the size of the last slab: they grow to 128 nodes
	buf     *[]nodeData // from childBufs
	one     nodeData    // a node read alone, before alloc copies it
	lang    *langInfo
}

// childBufs are the buffers children are read into, reused across trees
// (an sx_node holds no pointer the garbage collector follows).
var childBufs = sync.Pool{New: func() any { b := make([]nodeData, 256); return &b }}

func (a *Nodes) alloc(c *nodeData) *Node {
	if len(a.slab) == 0 {
		// A tree's first nodes come 16 at a time (a small file needs
		// few), then more, up to 128 (under 32 KiB: not a large object).
		a.slabLen = min(max(2*a.slabLen, 16), 128)
		a.slab = make([]Node, a.slabLen)
	}
	n := &a.slab[0]
	a.slab = a.slab[1:]
	n.c = *c
	n.typ = a.lang.typeName(uint16(c.symbol), uintptr(c._type))
	n.a = a
	return n
}

// Close gives back the buffer children were read into. The Nodes read
// stay valid while their tree is held.
func (a *Nodes) Close() {
	if a.buf != nil && cap(*a.buf) <= 1<<16 {
		childBufs.Put(a.buf)
	}
	a.buf = nil
	a.slab = nil
}

// Root is the node of root, a node of a tree the caller holds. It panics
// when go-tree-sitter's nodes are not laid out as this package reads them
// (see CanRead): a walk has no other way to read the tree.
func (a *Nodes) Root(root *sitter.Node) *Node {
	c := &a.one
	readRoot(root, c)
	a.lang = langInfoOf(c)
	return a.alloc(c)
}

// Children returns all children of n, named or not, as a tree cursor
// visits them, read once. The slice is n's own: callers must not change
// it.
func (n *Node) Children() []*Node {
	if n.kidsRead {
		return n.kids
	}
	n.kidsRead = true
	want := int(n.c.child_count)
	if want == 0 {
		return nil
	}
	a := n.a
	if a.buf == nil {
		a.buf = childBufs.Get().(*[]nodeData)
	}
	for {
		if len(*a.buf) < want {
			b := make([]nodeData, want)
			a.buf = &b
		}
		buf := *a.buf
		got := readChildren(&n.c, buf)
		if got > len(buf) {
			want = got
			continue
		}
		kids := make([]*Node, got)
		for i := range got {
			kids[i] = a.alloc(&buf[i])
		}
		n.kids = kids[:got:got] // full: an append copies
		return n.kids
	}
}

// ChildByFieldName is n's child in the named field, or nil, as
// ts_node_child_by_field_name finds it.
func (n *Node) ChildByFieldName(name string) *Node {
	id, ok := n.a.lang.fieldIDs[name]
	if !ok {
		return nil
	}
	if !readChildByField(&n.c, id, &n.a.one) {
		return nil
	}
	return n.a.alloc(&n.a.one)
}

// NamedChild is the i-th of n's named children, or nil, read without
// reading the others (unless they were read already).
func (n *Node) NamedChild(i int) *Node {
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
	if !readNamedChild(&n.c, i, &n.a.one) {
		return nil
	}
	return n.a.alloc(&n.a.one)
}

// LastCodeLine is the last line (1-based) of n that is not in a trailing
// comment: from n, down its last child that is not a comment, to a leaf
// or to a node with only comments, and that node's last line (a node
// that ends at the start of a line ends on the line before). In one call
// into C, however deep it goes.
func (n *Node) LastCodeLine() int { return lastCodeLine(&n.c) }

// FieldName is the name of the field n is in within its parent, "" for
// none. It is known only of a node read by Children.
func (n *Node) FieldName() string {
	if int(n.c.field) < len(n.a.lang.fieldNames) {
		return n.a.lang.fieldNames[n.c.field]
	}
	return ""
}

// The methods of sitter.Node.

func (n *Node) Type() string      { return n.typ }
func (n *Node) StartByte() uint32 { return uint32(n.c.start_byte) }
func (n *Node) EndByte() uint32   { return uint32(n.c.end_byte) }
func (n *Node) StartPoint() sitter.Point {
	return sitter.Point{Row: uint32(n.c.start.row), Column: uint32(n.c.start.column)}
}
func (n *Node) EndPoint() sitter.Point {
	return sitter.Point{Row: uint32(n.c.end.row), Column: uint32(n.c.end.column)}
}
func (n *Node) IsNamed() bool      { return n.c.named != 0 }
func (n *Node) IsMissing() bool    { return n.c.missing != 0 }
func (n *Node) HasError() bool     { return n.c.has_error != 0 }
func (n *Node) IsError() bool      { return n.c.symbol == ErrorSymbol }
func (n *Node) ChildCount() uint32 { return uint32(n.c.child_count) }
