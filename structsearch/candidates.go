package structsearch

import (
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
)

// candidates returns the nodes of root that the pattern could match, in
// document order (a node before the nodes inside it).
//
// A match holds every literal token of the pattern, so it is an ancestor
// of each place where one of the pattern's token runs occurs in src, and
// holds an occurrence of every other run. Visiting only the nodes on the
// paths from the root to the places of the rarest run, and only those that
// hold every run, visits a fraction of the tree a query would; only
// patterns without literal tokens, or whose every run occurs nearly
// everywhere, fall back to the query.
func (p *Pattern) candidates(root *sitter.Node, src []byte) []*sitter.Node {
	if p.root.meta != "" || len(p.runs) == 0 {
		return p.queryCandidates(root)
	}
	// Past about one occurrence per 64 bytes, the paths cover most of the
	// tree, and walking it in C is cheaper than from Go.
	occ := p.occurrences(src, len(src)/64+1)
	var anchors []int
	for _, offs := range occ {
		switch {
		case offs == nil:
			continue // too common to anchor on
		case len(offs) == 0:
			return nil // a run that is nowhere: no match
		case anchors == nil || len(offs) < len(anchors):
			anchors = offs
		}
	}
	if anchors == nil {
		return p.queryCandidates(root)
	}
	w := &anchorWalk{g: grammarOf(p.Lang.Grammar), kinds: p.kinds, occ: occ, c: sitter.NewTreeCursor(root)}
	defer w.c.Close()
	w.visit(anchors)
	return w.out
}

// anchorWalk visits the nodes that hold an anchor (the union of the paths
// from the root down to each), each node once, in document order.
type anchorWalk struct {
	g     *grammar
	kinds map[string]bool // the kinds of candidate
	occ   [][]int         // where each run occurs (nil: everywhere)
	c     *sitter.TreeCursor
	out   []*sitter.Node
}

// holdsAll says whether [start, end) holds an occurrence of every run, as
// a match and so every node above one must.
func (w *anchorWalk) holdsAll(start, end int) bool {
	for _, offs := range w.occ {
		if offs == nil {
			continue
		}
		i, _ := slices.BinarySearch(offs, start)
		if i == len(offs) || offs[i] >= end {
			return false
		}
	}
	return true
}

// visit records the cursor's node if it has a candidate's kind, and
// visits those of its children that hold one of offs (sorted, and all
// inside the node). It leaves the cursor where it found it.
func (w *anchorWalk) visit(offs []int) {
	n := w.c.CurrentNode()
	if w.kinds[w.g.kind(n).name] {
		w.out = append(w.out, n)
	}
	if w.c.GoToFirstChildForByte(uint32(offs[0])) < 0 {
		return
	}
	for {
		child := w.c.CurrentNode()
		start, end := int(child.StartByte()), int(child.EndByte())
		if end <= offs[0] {
			// tree-sitter's step can stop at a child that ends right at
			// the offset; it does not hold it.
			if !w.c.GoToNextSibling() {
				break
			}
			continue
		}
		for len(offs) > 0 && offs[0] < start {
			offs = offs[1:] // between children: no child holds it
		}
		k := 0
		for k < len(offs) && offs[k] < end {
			k++
		}
		if k > 0 {
			if w.holdsAll(start, end) {
				w.visit(offs[:k])
			}
			offs = offs[k:]
		}
		if len(offs) == 0 {
			break
		}
		// Jump to the child holding the next anchor, skipping the
		// children between in C.
		w.c.GoToParent()
		if w.c.GoToFirstChildForByte(uint32(offs[0])) < 0 {
			return
		}
	}
	w.c.GoToParent()
}

// queryCandidates finds every node of the pattern root's kind (every node,
// for a pattern that is one metavariable; every container, for a
// sequence) with a tree-sitter query.
func (p *Pattern) queryCandidates(root *sitter.Node) []*sitter.Node {
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(p.query, root)
	var out []*sitter.Node
	for {
		qm, ok := qc.NextMatch()
		if !ok {
			return out
		}
		for _, c := range qm.Captures {
			out = append(out, c.Node)
		}
	}
}
