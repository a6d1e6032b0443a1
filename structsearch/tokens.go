package structsearch

import (
	"bytes"
	"hash/maphash"
	"math/bits"

	sitter "github.com/smacker/go-tree-sitter"
)

// A metavariable used twice must capture the same tokens both times.
// Comparing two captures token by token costs their size, and a pattern
// like `$A + $A` compares, at every level of a long chain of `+`, the
// whole chain below it with one operand: that is quadratic in the depth of
// the chain. So captures are compared by a fingerprint of their tokens
// first, which each node gets once per file (from its children's), and
// only fingerprints that agree are confirmed token by token.

// tokenSum is the fingerprint of a run of tokens: a polynomial hash of
// the tokens' own hashes modulo the prime 2^61-1, with the base raised to
// the number of tokens, which is what appending to the run needs.
type tokenSum struct{ h, pw uint64 }

const sumPrime = 1<<61 - 1

var (
	sumSeed = maphash.MakeSeed()
	// sumBase is random, so that no file can be written to make
	// fingerprints collide; a collision would only cost a comparison.
	sumBase  = maphash.Comparable(sumSeed, "base")%(sumPrime-1<<20) + 1<<20
	noTokens = tokenSum{h: 0, pw: 1}
)

// mulMod is a*b mod 2^61-1, for a and b below it.
func mulMod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	// a*b = hi*2^64 + lo; 2^64 = 8*2^61 ≡ 8.
	r := (lo & sumPrime) + (lo >> 61) + (hi << 3)
	for r >= sumPrime {
		r -= sumPrime
	}
	return r
}

// then is the fingerprint of the tokens of s followed by those of t.
func (s tokenSum) then(t tokenSum) tokenSum {
	h := mulMod(s.h, t.pw) + t.h
	if h >= sumPrime {
		h -= sumPrime
	}
	return tokenSum{h: h, pw: mulMod(s.pw, t.pw)}
}

func tokenOf(text []byte) tokenSum {
	return tokenSum{h: maphash.Bytes(sumSeed, text) % sumPrime, pw: sumBase}
}

// sumKey names a node within one tree. Two nodes with the same span and
// kind (one wrapping the other and nothing else) have the same tokens, so
// sharing a key does them no harm.
type sumKey struct {
	start, end uint32
	sym        sitter.Symbol
}

// sameTokens says whether the texts that count under a and under b are
// the same, token for token (leaves and text between children, without
// comments, separators and layout).
func (m *matcher) sameTokens(a, b []tkid) bool {
	if m.sumOf(a) != m.sumOf(b) || m.err != nil {
		return false
	}
	return m.equalTokens(a, b)
}

// sumOf is the fingerprint of the tokens under a run of tkids.
func (m *matcher) sumOf(ts []tkid) tokenSum {
	s := noTokens
	for _, t := range ts {
		s = s.then(m.sumOfOne(t))
	}
	return s
}

func (m *matcher) sumOfOne(t tkid) tokenSum {
	switch {
	case t.n == nil:
		return tokenOf(m.src[t.start:t.end])
	case t.kind.comment:
		return noTokens
	}
	return m.nodeSum(t)
}

// nodeSum is the fingerprint of the tokens under the node t, remembered
// for every node it visits. It walks the tree with a stack of its own, not
// Go's: a capture may be thousands of levels deep.
func (m *matcher) nodeSum(t tkid) tokenSum {
	if m.sums == nil {
		m.sums = map[sumKey]tokenSum{}
	}
	type frame struct {
		key  sumKey
		kids []tkid // still to add
		sum  tokenSum
	}
	var stack []frame
	// push starts on a node: a leaf's sum is known at once.
	push := func(t tkid) (tokenSum, bool) {
		key := sumKey{t.start, t.end, t.n.Symbol()}
		if s, ok := m.sums[key]; ok {
			return s, true
		}
		if t.n.ChildCount() == 0 {
			s := noTokens
			if t.kind.named || countsAsToken(m.src[t.start:t.end]) {
				s = tokenOf(m.src[t.start:t.end])
			}
			m.sums[key] = s
			return s, true
		}
		stack = append(stack, frame{key: key, kids: m.kids(t.n, t.kind), sum: noTokens})
		return tokenSum{}, false
	}
	if s, ok := push(t); ok {
		return s
	}
	for m.step(1) {
		top := &stack[len(stack)-1]
		if len(top.kids) == 0 {
			m.sums[top.key] = top.sum
			done := top.sum
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return done
			}
			parent := &stack[len(stack)-1]
			parent.sum = parent.sum.then(done)
			continue
		}
		k := top.kids[0]
		top.kids = top.kids[1:]
		if k.n == nil || k.kind.comment {
			top.sum = top.sum.then(m.sumOfOne(k))
			continue
		}
		if s, ok := push(k); ok {
			top = &stack[len(stack)-1] // push may have moved the stack
			top.sum = top.sum.then(s)
		}
	}
	return noTokens // stopped: the caller looks at m.err
}

// equalTokens compares the tokens under a and b one by one, walking both
// in step and stopping at the first difference.
func (m *matcher) equalTokens(a, b []tkid) bool {
	ta, tb := m.tokenWalk(a), m.tokenWalk(b)
	for {
		as, ae, aok := ta.next()
		bs, be, bok := tb.next()
		switch {
		case m.err != nil:
			return false
		case !aok || !bok:
			return aok == bok
		case !bytes.Equal(m.src[as:ae], m.src[bs:be]):
			return false
		}
	}
}

// tokenWalk lists the tokens under a run of nodes, one at a time, with an
// explicit stack.
type tokenWalk struct {
	m     *matcher
	stack [][]tkid // the siblings still to visit, at each level
}

func (m *matcher) tokenWalk(nodes []tkid) *tokenWalk {
	return &tokenWalk{m: m, stack: [][]tkid{nodes}}
}

// next returns the span of the next token, or false when there is none
// (or the matcher has stopped).
func (w *tokenWalk) next() (start, end uint32, ok bool) {
	m := w.m
	for len(w.stack) > 0 && m.step(1) {
		top := &w.stack[len(w.stack)-1]
		if len(*top) == 0 {
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		t := (*top)[0]
		*top = (*top)[1:]
		switch {
		case t.n == nil:
			return t.start, t.end, true
		case t.kind.comment:
		case t.n.ChildCount() == 0:
			if t.kind.named || countsAsToken(m.src[t.start:t.end]) {
				return t.start, t.end, true
			}
		default:
			w.stack = append(w.stack, m.kids(t.n, t.kind))
		}
	}
	return 0, 0, false
}
