package locate

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// lineDFA answers one question fast: which lines of a buffer contain a
// match? It is a lazily built DFA over the regexp's compiled program
// (regexp/syntax.Prog), with a state per set of NFA threads plus what the
// previous character was (for ^ and \b), built on first use and cached in
// a byte-indexed transition table. Go's regexp has no DFA; its backtracker
// and NFA run at a fraction of the speed on text that has no literal to
// scan for, and a line-match question needs neither match positions nor
// submatches.
//
// Characters that are not ASCII step through the program without the byte
// table (cached per state by rune); invalid UTF-8 decodes as U+FFFD, as in
// Go's regexp. A lineDFA is not safe for concurrent use: each grep worker
// has its own. When its cache outgrows maxDFAStates it starts over.
type lineDFA struct {
	prog *syntax.Prog
	// trans maps state+byte to the next state or a dfa* sentinel. A state
	// is its index in states times 256, so a step is one load and one add.
	trans  []int32
	states []dfaState
	index  map[string]int32
	gen    int // counts resets, which invalidate state ids

	// blind says the program has no empty-width test (^, $, \b, \B):
	// what the previous character was does not matter, and is not kept,
	// so a line's bytes that start no match all lead back to state 0.
	blind bool
	// idle, when set, lists the bytes on which state 0 stays in state 0
	// (blind programs whose start few bytes leave): the search skips
	// them with loads that do not wait on one another, instead of a
	// table step per byte, each waiting on the one before.
	idle *[256]bool

	// scratch for transitions
	stack []uint32
	seen  []bool
	next  []uint32
	key   []byte
}

type dfaState struct {
	pcs  []uint32 // threads waiting at this position, before empty-width closure
	prev byte     // what the previous character was: prevLine, prevWord or prevOther
	end  int8     // whether a match ends at end of input: 0 unknown, 1 yes, -1 no
	wide map[rune]int32
}

const (
	prevLine  = 0 // start of a line (or of the input)
	prevWord  = 1 // an ASCII word character
	prevOther = 2
)

// Transition sentinels; real states are >= 0.
const (
	dfaUnknown = -1 // not computed yet
	dfaMatch   = -2 // a match ends before this byte
	dfaWide    = -3 // a byte >= 0x80: decode a rune and use the slow path
)

// maxDFAStates bounds the cache (1 KiB of table per state).
const maxDFAStates = 4096

// newLineDFA returns a DFA for prog, a program compiled from a regexp that
// cannot match '\n' (see oneLine).
func newLineDFA(prog *syntax.Prog) *lineDFA {
	d := &lineDFA{prog: prog, seen: make([]bool, len(prog.Inst)), blind: true}
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth {
			d.blind = false
		}
	}
	d.reset()
	if d.blind {
		var idle [256]bool
		n := 0
		for c := 0; c < utf8.RuneSelf; c++ {
			if d.byteStep(0, byte(c)) == 0 {
				idle[c] = true
				n++
			}
		}
		// Worth it when most bytes of text stay: a pattern that starts
		// with a class as wide as \w or . would leave at once.
		if n >= utf8.RuneSelf/2 {
			d.idle = &idle
		}
	}
	return d
}

func (d *lineDFA) reset() {
	d.gen++
	d.trans = d.trans[:0]
	d.states = d.states[:0]
	d.index = map[string]int32{}
	d.intern([]uint32{uint32(d.prog.Start)}, d.prevOf('\n')) // state 0: start of a line
}

func (d *lineDFA) intern(pcs []uint32, prev byte) int32 {
	d.key = d.key[:0]
	d.key = append(d.key, prev)
	for _, pc := range pcs {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if id, ok := d.index[string(d.key)]; ok {
		return id
	}
	id := int32(len(d.states)) << 8
	d.states = append(d.states, dfaState{pcs: slices.Clone(pcs), prev: prev})
	d.index[string(d.key)] = id
	for c := 0; c < 256; c++ {
		if c < utf8.RuneSelf {
			d.trans = append(d.trans, dfaUnknown)
		} else {
			d.trans = append(d.trans, dfaWide)
		}
	}
	return id
}

// step computes the transition of state s on rune r (-1: end of input).
// It returns dfaMatch when a match ends before r.
func (d *lineDFA) step(s int32, r rune) int32 {
	st := &d.states[s>>8]
	prevRune := rune(' ')
	switch st.prev {
	case prevLine:
		prevRune = '\n'
	case prevWord:
		prevRune = 'a'
	}
	flags := syntax.EmptyOpContext(prevRune, r)
	clear(d.seen)
	d.stack = append(d.stack[:0], st.pcs...)
	d.next = d.next[:0]
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] {
			continue
		}
		d.seen[pc] = true
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			return dfaMatch
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^flags == 0 {
				d.stack = append(d.stack, in.Out)
			}
		case syntax.InstRune:
			if r >= 0 && in.MatchRune(r) {
				d.next = append(d.next, in.Out)
			}
		case syntax.InstRune1:
			if r == in.Rune[0] {
				d.next = append(d.next, in.Out)
			}
		case syntax.InstRuneAny:
			if r >= 0 {
				d.next = append(d.next, in.Out)
			}
		case syntax.InstRuneAnyNotNL:
			if r >= 0 && r != '\n' {
				d.next = append(d.next, in.Out)
			}
		}
	}
	if r < 0 {
		return dfaUnknown // end of input without a match; no next state
	}
	// A new thread starts at every position: the search is unanchored.
	d.next = append(d.next, uint32(d.prog.Start))
	slices.Sort(d.next)
	d.next = slices.Compact(d.next)
	prev := d.prevOf(r)
	if len(d.states) >= maxDFAStates {
		next := slices.Clone(d.next)
		d.reset()
		return d.intern(next, prev)
	}
	return d.intern(d.next, prev)
}

// prevOf is what a state after the character r keeps of it.
func (d *lineDFA) prevOf(r rune) byte {
	switch {
	case d.blind:
		return prevOther
	case r == '\n':
		return prevLine
	case r < utf8.RuneSelf && syntax.IsWordChar(r):
		return prevWord
	}
	return prevOther
}

// skipIdle returns the first position at or after i where buf leaves the
// idle state 0 (len(buf) if it never does).
func (d *lineDFA) skipIdle(buf []byte, i int) int {
	idle := d.idle
	for ; i+8 <= len(buf); i += 8 {
		b := buf[i : i+8 : i+8]
		if idle[b[0]] && idle[b[1]] && idle[b[2]] && idle[b[3]] && idle[b[4]] && idle[b[5]] && idle[b[6]] && idle[b[7]] {
			continue
		}
		for idle[buf[i]] {
			i++
		}
		return i
	}
	for i < len(buf) && idle[buf[i]] {
		i++
	}
	return i
}

// byteStep is the transition of s on ASCII byte c, cached.
func (d *lineDFA) byteStep(s int32, c byte) int32 {
	gen := d.gen
	n := d.step(s, rune(c))
	if d.gen == gen {
		d.trans[int(s)+int(c)] = n
	}
	return n
}

// runeStep is the transition of s on a rune >= 0x80, cached per state.
func (d *lineDFA) runeStep(s int32, r rune) int32 {
	if n, ok := d.states[s>>8].wide[r]; ok {
		return n
	}
	gen := d.gen
	n := d.step(s, r)
	if d.gen == gen {
		st := &d.states[s>>8]
		if st.wide == nil {
			st.wide = map[rune]int32{}
		}
		if len(st.wide) < 256 {
			st.wide[r] = n
		}
	}
	return n
}

// endMatches reports whether a match ends at the end of input in state s.
func (d *lineDFA) endMatches(s int32) bool {
	st := &d.states[s>>8]
	if st.end == 0 {
		st.end = -1
		if d.step(s, -1) == dfaMatch {
			st.end = 1
		}
	}
	return st.end == 1
}

// eachLine calls fn with the start and end (before the '\n') of every line
// of buf that has a match, in order, until fn returns false.
func (d *lineDFA) eachLine(buf []byte, fn func(start, end int) bool) {
	trans := d.trans
	s := int32(0)
	i := 0
	if d.idle != nil {
		i = d.skipIdle(buf, 0)
	}
	for i < len(buf) {
		c := buf[i]
		t := trans[int(s)+int(c)]
		if t > 0 {
			s = t
			i++
			continue
		}
		if t == 0 {
			s = 0
			i++
			if d.idle != nil {
				i = d.skipIdle(buf, i)
			}
			continue
		}
		w := 1
		switch t {
		case dfaUnknown:
			t = d.byteStep(s, c)
		case dfaWide:
			var r rune
			r, w = utf8.DecodeRune(buf[i:])
			t = d.runeStep(s, r)
		}
		if t == dfaMatch {
			// The match ends before buf[i], in the line that holds i.
			start := bytes.LastIndexByte(buf[:i], '\n') + 1
			end := len(buf)
			if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
				end = i + j
			}
			if !fn(start, end) {
				return
			}
			s, i = 0, end+1
			trans = d.trans
			continue
		}
		s = t
		i += w
		trans = d.trans
	}
	// i == len(buf) unless the last line was already reported.
	if i == len(buf) && len(buf) > 0 && buf[len(buf)-1] != '\n' && d.endMatches(s) {
		fn(bytes.LastIndexByte(buf, '\n')+1, len(buf))
	}
}

// matchLine reports whether line (without its '\n') has a match.
func (d *lineDFA) matchLine(line []byte) bool {
	s := int32(0)
	for i := 0; i < len(line); {
		c := line[i]
		t := d.trans[int(s)+int(c)]
		if t >= 0 {
			s = t
			i++
			continue
		}
		w := 1
		switch t {
		case dfaUnknown:
			t = d.byteStep(s, c)
		case dfaWide:
			var r rune
			r, w = utf8.DecodeRune(line[i:])
			t = d.runeStep(s, r)
		}
		if t == dfaMatch {
			return true
		}
		s = t
		i += w
	}
	return d.endMatches(s)
}
