package syntax

import sitter "github.com/smacker/go-tree-sitter"

// A flat tree is a parsed file's visible nodes in one array, read from
// the C library in one call: walking it in Go costs no call into C per
// node, which is what makes it cheaper than a query cursor.

// FlatNode is one node of a flat tree. C writes it (sx_flat in cnode.go):
// its fields and their order are that struct's.
type FlatNode struct {
	Start, End   uint32 // bytes
	Row, Col     uint32 // where it starts, 0-based, as tree-sitter counts
	Parent, Next uint32 // indexes: the parent (NoParent: none), just past the node's subtree
	Symbol       uint16
	Field        uint16 // the field the node is in: 0 none, NoField not read (see Flatten)
	Named        bool
	_            [3]uint8
}

// NoField is the field of a node whose field Flatten did not read.
const NoField = 0xFFFF

// ErrorSymbol is the symbol of an ERROR node.
const ErrorSymbol = 0xFFFF

// NoParent is the root's parent: no index.
const NoParent = ^uint32(0)

// flatBufs are flat trees' arrays kept for reuse: a few, of up to
// maxKeptFlat nodes each (a sync.Pool would drop them at every garbage
// collection, and they are wanted for every file). A larger file's array
// is allocated in C, and freed when given back.
var flatBufs = make(chan []FlatNode, 4)

const (
	minFlat     = 1 << 14 // 512 KiB
	maxKeptFlat = 1 << 16 // 2 MiB
)

// Flatten returns the nodes of the tree under root (a node of a tree the
// caller holds), in preorder, in an array the caller must give back with
// ReleaseFlat; ok is false when the tree cannot be read so (then the
// caller reads it through go-tree-sitter). The field of a node is read
// only when fieldsIn (indexed by symbol) is set for its parent's symbol:
// NoField otherwise.
func Flatten(root *sitter.Node, fieldsIn []bool) (nodes []FlatNode, ok bool) {
	if !flatLayoutOK() || !CanRead(root) {
		return nil, false
	}
	want := descendants(root)
	size := want + want/4
	var buf []FlatNode
	if size > maxKeptFlat {
		if buf = allocFlat(size); buf == nil {
			return nil, false
		}
	} else {
		select {
		case buf = <-flatBufs:
		default:
		}
		if cap(buf) < size {
			// Most files fit in the smallest array made.
			buf = make([]FlatNode, max(size, minFlat))
		}
		buf = buf[:cap(buf)]
	}
	n, ok := flattenInto(root, buf, fieldsIn)
	if !ok {
		ReleaseFlat(buf)
		return nil, false
	}
	return buf[:n], true
}

// ReleaseFlat gives back an array Flatten returned.
func ReleaseFlat(nodes []FlatNode) {
	if cap(nodes) > maxKeptFlat { // allocated in C
		freeFlat(nodes)
		return
	}
	select {
	case flatBufs <- nodes[:0]:
	default:
	}
}
