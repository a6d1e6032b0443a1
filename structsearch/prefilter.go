package structsearch

import (
	"bytes"

	"cchub/lang"
)

// MayMatch says whether src could hold a match, without parsing it: every
// literal token of the pattern must occur in src, and tokens that stand
// next to each other in the pattern must stand next to each other in src
// with only whitespace, comments or separators between (nothing else can
// come between them in a match). It never says no to a file that matches.
func (p *Pattern) MayMatch(src []byte) bool {
	for _, run := range p.runs {
		for _, tok := range run {
			if !bytes.Contains(src, []byte(tok)) {
				return false
			}
		}
	}
	for _, run := range p.runs {
		if len(run) > 1 && !p.runOccurs(src, run) {
			return false
		}
	}
	return p.twin == nil || p.twinsAgree(src)
}

// runOccurs finds the run's tokens in sequence, starting from each
// occurrence of its first token.
func (p *Pattern) runOccurs(src []byte, run []string) bool {
	found := false
	p.eachOccurrence(src, run, func(int) bool {
		found = true
		return false
	})
	return found
}

// eachOccurrence calls fn with the offset of each place the run occurs in
// src, until fn returns false.
func (p *Pattern) eachOccurrence(src []byte, run []string, fn func(off int) bool) {
	first := []byte(run[0])
	for off := 0; off < len(src); {
		i := bytes.Index(src[off:], first)
		if i < 0 {
			return
		}
		start := off + i
		at := start + len(first)
		ok := true
		for _, tok := range run[1:] {
			at = p.skipFiller(src, at)
			if !bytes.HasPrefix(src[at:], []byte(tok)) {
				ok = false
				break
			}
			at += len(tok)
		}
		if ok && !fn(start) {
			return
		}
		off = start + 1
	}
}

// occurrences returns, for each run, where in src it starts, in order;
// a run found more than limit times gets nil (too common to say much).
func (p *Pattern) occurrences(src []byte, limit int) [][]int {
	occ := make([][]int, len(p.runs))
	for i, run := range p.runs {
		offs := []int{}
		p.eachOccurrence(src, run, func(off int) bool {
			offs = append(offs, off)
			return len(offs) <= limit
		})
		if len(offs) <= limit {
			occ[i] = offs
		}
	}
	return occ
}

// skipFiller skips what the matcher ignores between tokens: whitespace,
// separators and comments in the language's syntax.
func (p *Pattern) skipFiller(src []byte, at int) int {
	hash := p.Lang.LineComment == "#"
	for at < len(src) {
		c := src[at]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == ',' || c == ';':
			at++
		case c == '\\' && at+1 < len(src) && (src[at+1] == '\n' || src[at+1] == '\r'):
			at += 2 // a line continuation
		case hash && c == '#':
			at = lineEnd(src, at)
		case !hash && c == '/' && at+1 < len(src) && src[at+1] == '/':
			at = lineEnd(src, at)
		case !hash && c == '/' && at+1 < len(src) && src[at+1] == '*':
			at = blockCommentEnd(src, at, p.Lang.Name == lang.Rust)
		default:
			return at
		}
	}
	return at
}

func lineEnd(src []byte, at int) int {
	if i := bytes.IndexByte(src[at:], '\n'); i >= 0 {
		return at + i
	}
	return len(src)
}

// blockCommentEnd returns the offset after the block comment that starts
// at at; nested comments (Rust's) close only with their last `*/`.
func blockCommentEnd(src []byte, at int, nested bool) int {
	depth := 0
	for i := at; i+1 < len(src); i++ {
		switch {
		case src[i] == '/' && src[i+1] == '*' && (nested || depth == 0):
			depth++
			i++
		case src[i] == '*' && src[i+1] == '/':
			depth--
			i++
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(src)
}
