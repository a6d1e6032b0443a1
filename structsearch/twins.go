package structsearch

import (
	"bytes"
	"slices"
)

// A pattern that names a metavariable twice with one literal run between,
// `P $X R $X` (`if $X != nil { return $X }`, `self.$A = $A`), can refuse
// more files than its runs alone: in a match the text between P and R is
// the first capture, and the text right after R starts with the second,
// the same tokens. Most files that hold the runs (`if err != nil { return
// nil, err }`) hold no such pair, and parsing them is most of a search.
//
// The texts are compared with layout and separators taken out (what the
// matcher does not count between tokens). Comments are not taken out:
// telling a comment from a string that holds `//` needs the language's
// lexer, so a capture that might hold one (its text holds the comment
// character) is not compared, and the file may match.

// twinRuns names the runs of `P $X R $X`: indexes into Pattern.runs.
type twinRuns struct{ prev, mid int }

// flatItem is one leaf of a pattern in document order, for finding twins:
// a token of run run, a metavariable, or something no filler can be
// skipped up to (a string's text).
type flatItem struct {
	run     int // the run a token belongs to; -1 otherwise
	meta    string
	multi   bool
	barrier bool
}

// findTwin looks for `P $X R $X` among the pattern's leaves: $X a single
// capturing metavariable that is no string content, P and R literal runs
// with nothing else between them and the two occurrences.
func findTwin(flat []flatItem) *twinRuns {
	for i, a := range flat {
		if a.meta == "" || a.meta == "_" || a.multi || a.barrier || i == 0 || i+1 >= len(flat) {
			continue
		}
		prev, mid := flat[i-1].run, flat[i+1].run
		if prev < 0 || mid < 0 || prev == mid {
			continue
		}
		j := i + 1
		for j < len(flat) && flat[j].run == mid {
			j++
		}
		if j < len(flat) && flat[j].meta == a.meta && !flat[j].multi && !flat[j].barrier {
			return &twinRuns{prev: prev, mid: mid}
		}
	}
	return nil
}

// twinBudget bounds the bytes compared per byte of a file; past it the
// file is let through (it may match).
const twinBudget = 64

// twinsAgree says whether src could hold `P $X R $X`: an occurrence of R,
// and one of P before it, with the text between (the first capture) also
// right after R. It never says no to a file that holds a match.
func (p *Pattern) twinsAgree(src []byte) bool {
	t := p.twin
	type span struct{ start, end int }
	var mids []span
	p.eachRunSpan(src, p.runs[t.mid], func(s, e int) bool {
		mids = append(mids, span{s, e})
		return true
	})
	var prevEnds []int
	p.eachRunSpan(src, p.runs[t.prev], func(s, e int) bool {
		if glued(src, s, e) {
			return true // inside a longer word: not the tokens of a match
		}
		prevEnds = append(prevEnds, e)
		return true
	})
	if len(mids) == 0 || len(prevEnds) == 0 {
		return false
	}
	slices.Sort(prevEnds)

	// Offsets in the text with layout taken out.
	marks := make([]int, 0, 2*len(mids)+len(prevEnds))
	for _, m := range mids {
		marks = append(marks, m.start, m.end)
	}
	marks = append(marks, prevEnds...)
	norm, at := normalize(src, marks)
	comment := byte('/')
	if p.Lang.LineComment == "#" {
		comment = '#'
	}
	// The ends of P by the first character after them: a capture that
	// starts with another than the one after R is not the same, unless a
	// comment comes first. Each list is in the order of the text.
	var byFirst [256][]int
	var atEnd []int // P ends with nothing after them
	for _, pe := range prevEnds {
		np := at(pe)
		if np == len(norm) {
			atEnd = append(atEnd, np)
			continue
		}
		byFirst[norm[np]] = append(byFirst[norm[np]], np)
	}
	budget := twinBudget*len(src) + 1<<20
	for _, m := range mids {
		ns, ne := at(m.start), at(m.end)
		if len(atEnd) > 0 && atEnd[0] <= ns {
			return true // an empty capture: a missing node in broken code
		}
		lists := [][]int{byFirst[comment]}
		if ne < len(norm) && norm[ne] != comment {
			lists = append(lists, byFirst[norm[ne]])
		} else {
			lists = byFirst[:] // a comment after R: any capture may follow it
		}
		for _, list := range lists {
			for _, np := range list {
				if np > ns {
					break
				}
				if budget--; budget < 0 {
					return true
				}
				if p.twinPair(norm, np, ns, ne, comment, &budget) {
					return true
				}
			}
		}
	}
	return false
}

// twinPair says whether the text from np to ns (normalized offsets, P's
// end to R's start) could be the capture that also follows ne (R's end).
func (p *Pattern) twinPair(norm []byte, np, ns, ne int, comment byte, budget *int) bool {
	k := ns - np
	if k == 0 {
		return true // an empty capture: a missing node in broken code
	}
	// Up to a comment character on either side, the texts are what the
	// matcher compares: a difference there rules the pair out. From one
	// on, a comment may hide a difference. The second may be cut short
	// by the end of the file; then only a comment in the first can make
	// up the difference.
	first, second := norm[np:ns], norm[ne:min(ne+k, len(norm))]
	i := 0
	for i < len(second) && first[i] == second[i] && first[i] != comment {
		i++
	}
	*budget -= i
	if i == k {
		return true
	}
	if i < len(second) {
		return first[i] == comment || second[i] == comment
	}
	return bytes.IndexByte(first[i:], comment) >= 0
}

// normalize returns src without what the matcher never counts between
// tokens (whitespace, commas, semicolons, line continuations), and a
// function that gives the offset in that text of each offset of marks.
func normalize(src []byte, marks []int) ([]byte, func(int) int) {
	slices.Sort(marks)
	marks = slices.Compact(marks)
	pos := make([]int, len(marks))
	norm := make([]byte, 0, len(src))
	m := 0
	for i := 0; i <= len(src); i++ {
		for m < len(marks) && marks[m] == i {
			pos[m] = len(norm)
			m++
		}
		if i == len(src) {
			break
		}
		c := src[i]
		if !notCounted[c] || c == '\\' && (i+1 == len(src) || src[i+1] != '\n' && src[i+1] != '\r') {
			norm = append(norm, c)
		}
	}
	return norm, func(off int) int {
		i, _ := slices.BinarySearch(marks, off)
		return pos[i]
	}
}

// notCounted marks the bytes normalize leaves out: layout, separators,
// and the backslash of a line continuation (when a line break follows).
var notCounted = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\f': true, '\v': true, ',': true, ';': true, '\\': true}

// eachRunSpan calls fn with where each occurrence of run starts and ends,
// until fn returns false.
func (p *Pattern) eachRunSpan(src []byte, run []string, fn func(start, end int) bool) {
	p.eachOccurrence(src, run, func(start int) bool {
		return fn(start, p.runEnd(src, run, start))
	})
}

// runEnd is the end of the occurrence of run that starts at start.
func (p *Pattern) runEnd(src []byte, run []string, start int) int {
	at := start + len(run[0])
	for _, tok := range run[1:] {
		at = p.skipFiller(src, at) + len(tok)
	}
	return at
}

// wordByte says whether c can be part of a name or keyword (any byte of a
// non-ASCII character counts).
func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// glued says whether the text from s to e is part of a longer word: a
// letter or '_' right before a word that starts at s, or a word character
// right after one that ends at e. (A digit before is let be: Python reads
// `1if` as a number and a keyword.)
func glued(src []byte, s, e int) bool {
	if s > 0 && wordByte(src[s]) {
		if c := src[s-1]; wordByte(c) && (c < '0' || c > '9') {
			return true
		}
	}
	return e < len(src) && wordByte(src[e-1]) && wordByte(src[e])
}
