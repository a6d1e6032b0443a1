package structsearch

import (
	"context"
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
)

// candidates returns the nodes of root that the pattern could match, in
// document order (a node before the nodes inside it). It stops with ctx's
// error when ctx is done.
//
// A match holds every literal token of the pattern, so it is an ancestor
// of each place where one of the pattern's token runs occurs in src, and
// holds an occurrence of every other run. Visiting only the nodes on the
// paths from the root to the places of the rarest run, and only those that
// hold every run, visits a fraction of the tree a query would; only
// patterns without literal tokens, or whose every run occurs nearly
// everywhere, fall back to the query.
func (p *Pattern) candidates(ctx context.Context, root *sitter.Node, src []byte) ([]*sitter.Node, error) {
	if p.root.meta != "" || len(p.runs) == 0 {
		return p.kindCandidates(ctx, root, src)
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
			return nil, nil // a run that is nowhere: no match
		case anchors == nil || len(offs) < len(anchors):
			anchors = offs
		}
	}
	if anchors == nil {
		return p.kindCandidates(ctx, root, src)
	}
	w := &anchorWalk{g: grammarOf(p.Lang.Grammar), kinds: p.kinds, occ: occ, c: sitter.NewTreeCursor(root)}
	defer w.c.Close()
	if err := w.walk(ctx, anchors); err != nil {
		return nil, err
	}
	return w.out, nil
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

// walk visits the cursor's node and, below it, the children that hold one
// of offs (sorted, and all inside the node), and theirs, down to the
// anchors. It keeps the anchors still to visit under each node of the
// cursor's path on a stack of its own, not Go's: the path is as long as
// the code is deep, which a hostile file makes tens of thousands of
// levels.
func (w *anchorWalk) walk(ctx context.Context, offs []int) error {
	// pending[i] holds the anchors, inside the i-th node of the path, that
	// no child visited so far has held; the cursor is on a child of the
	// last of these nodes.
	var pending [][]int
	if !w.enter(offs, &pending) {
		return nil
	}
	done := false // the cursor's node has been visited
	for i := 0; len(pending) > 0; i++ {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		top := len(pending) - 1
		offs := pending[top]
		if done {
			// Go on with the child holding the next anchor, skipping the
			// children between in C, or leave the parent when there is
			// none.
			w.c.GoToParent()
			if len(offs) == 0 || w.c.GoToFirstChildForByte(uint32(offs[0])) < 0 {
				pending = pending[:top] // the cursor is on the parent, which is done
				continue
			}
			done = false
			continue
		}
		child := w.c.CurrentNode()
		start, end := int(child.StartByte()), int(child.EndByte())
		if end <= offs[0] {
			// tree-sitter's step can stop at a child that ends right at
			// the offset; it does not hold it.
			if !w.c.GoToNextSibling() {
				w.c.GoToParent()
				pending = pending[:top]
				done = true
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
		pending[top] = offs[k:]
		done = true
		if k > 0 && w.holdsAll(start, end) && w.enter(offs[:k], &pending) {
			done = false // the cursor is on the first child to look at
		}
	}
	return nil
}

// enter records the cursor's node if it has a candidate's kind, and moves
// to the child that holds the first of offs, pushing offs as the anchors
// under the node. It says whether there was such a child.
func (w *anchorWalk) enter(offs []int, pending *[][]int) bool {
	n := w.c.CurrentNode()
	if w.kinds[w.g.kind(n).name] {
		w.out = append(w.out, n)
	}
	if w.c.GoToFirstChildForByte(uint32(offs[0])) < 0 {
		return false
	}
	*pending = append(*pending, offs)
	return true
}

// queryDepth is the depth past which tree-sitter's query cursor is not
// to be trusted: it keeps the depth where a match starts in 16 bits, so
// past 65,535 levels it loses matches and slows to minutes. Only a file
// of that many levels (hostile, or generated) goes deeper; real code stays
// under a thousand.
const queryDepth = 60000

// shallowBytes is the size under which a file cannot nest queryDepth
// levels deep: every level of a tree takes at least a byte or two of
// text (a bracket, an operator).
const shallowBytes = queryDepth

// kindCandidates finds every node of the pattern root's kind (see
// queryCandidates): with a tree-sitter query, except in a file large
// enough to be nested deeper than the query can go, which is first
// measured and, if it is that deep, walked from Go.
func (p *Pattern) kindCandidates(ctx context.Context, root *sitter.Node, src []byte) ([]*sitter.Node, error) {
	if len(src) < shallowBytes {
		return p.queryCandidates(ctx, root)
	}
	if depth, _ := deepest(ctx, root); depth < queryDepth {
		return p.queryCandidates(ctx, root)
	}
	return p.walkCandidates(ctx, root)
}

// walkCandidates finds what queryCandidates does, with a cursor driven
// from Go: three times slower than the query on ordinary code, but
// correct at any depth. A pattern that is one metavariable takes every
// named node; a token's kind may also let in a named node of the same
// name, which matching then turns down.
func (p *Pattern) walkCandidates(ctx context.Context, root *sitter.Node) ([]*sitter.Node, error) {
	g := grammarOf(p.Lang.Grammar)
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	var out []*sitter.Node
	for i := 0; ; i++ {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		n := c.CurrentNode()
		if k := g.kind(n); p.kinds == nil && k.named || p.kinds[k.name] {
			out = append(out, n)
		}
		if c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return out, nil
			}
		}
	}
}

// queryCandidates finds every node of the pattern root's kind (every node,
// for a pattern that is one metavariable; every container, for a
// sequence) with a tree-sitter query.
func (p *Pattern) queryCandidates(ctx context.Context, root *sitter.Node) ([]*sitter.Node, error) {
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(p.query, root)
	var out []*sitter.Node
	for i := 0; ; i++ {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		qm, ok := qc.NextMatch()
		if !ok {
			return out, nil
		}
		for _, c := range qm.Captures {
			out = append(out, c.Node)
		}
	}
}
