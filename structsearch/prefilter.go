package structsearch

import (
	"bytes"
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
	return true
}

// runOccurs finds the run's tokens in sequence, starting from each
// occurrence of its first token.
func (p *Pattern) runOccurs(src []byte, run []string) bool {
	first := []byte(run[0])
	for off := 0; ; {
		i := bytes.Index(src[off:], first)
		if i < 0 {
			return false
		}
		at := off + i + len(first)
		ok := true
		for _, tok := range run[1:] {
			at = p.skipFiller(src, at)
			if !bytes.HasPrefix(src[at:], []byte(tok)) {
				ok = false
				break
			}
			at += len(tok)
		}
		if ok {
			return true
		}
		off += i + 1
	}
}

// skipFiller skips what the matcher ignores between tokens: whitespace,
// separators and comments in the language's syntax.
func (p *Pattern) skipFiller(src []byte, at int) int {
	hash := p.Lang.Name == "python"
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
			end := bytes.Index(src[at+2:], []byte("*/"))
			if end < 0 {
				return len(src)
			}
			at += 2 + end + 2
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
