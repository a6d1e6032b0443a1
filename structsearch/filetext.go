package structsearch

import (
	"strings"
	"unicode/utf8"
)

// fileText is a file's source as the one string that all its matches'
// texts are cut from, with what places a match without reading its whole
// line again: on a long line (minified code, or thousands of nested
// matches on one line) counting the characters before each match, or
// looking for the end of its line, would cost the line's length per match.
type fileText struct {
	s string
	// Built when first needed, for lines longer than textBlock: the
	// first line break at or after the start of each block of textBlock
	// bytes, and characters counted up to rune boundaries near the start
	// of each block.
	breaks []int
	marks  []runeMark
}

// runeMark says how many characters come before off, a rune boundary.
type runeMark struct{ off, runes int }

// textBlock is how far a position is found by reading the text itself
// before the indexes are used.
const textBlock = 256

func newFileText(src []byte) *fileText {
	return &fileText{s: string(src)}
}

// column turns tree-sitter's byte column at offset off into a 1-based
// character column.
func (f *fileText) column(off, byteCol int) int {
	lineStart := off - byteCol
	if lineStart < 0 || off > len(f.s) {
		return byteCol + 1
	}
	if byteCol <= textBlock {
		return utf8.RuneCountInString(f.s[lineStart:off]) + 1
	}
	return f.runesBefore(off) - f.runesBefore(lineStart) + 1
}

// runesBefore counts the characters before off, as utf8.RuneCountInString
// would from the start of the file (a byte that is not UTF-8 is one).
func (f *fileText) runesBefore(off int) int {
	if f.marks == nil {
		f.marks = runeMarks(f.s)
	}
	i := min(off/textBlock, len(f.marks)-1)
	for f.marks[i].off > off {
		i-- // a mark moved forward to a rune boundary past off
	}
	return f.marks[i].runes + utf8.RuneCountInString(f.s[f.marks[i].off:off])
}

// runeMarks places a mark at the first rune boundary at or after each
// multiple of textBlock, decoding as RuneCountInString does.
func runeMarks(s string) []runeMark {
	marks := make([]runeMark, 0, len(s)/textBlock+1)
	runes := 0
	for off := 0; ; {
		marks = append(marks, runeMark{off, runes})
		next := (off/textBlock + 1) * textBlock
		if next >= len(s) {
			return marks
		}
		for off < next {
			if s[off] < utf8.RuneSelf {
				off++
			} else {
				_, size := utf8.DecodeRuneInString(s[off:])
				off += size
			}
			runes++
		}
		if off >= len(s) {
			return marks
		}
	}
}

// lineEnd is the offset of the first '\n' or '\r' at or after off, or the
// end of the file.
func (f *fileText) lineEnd(off int) int {
	near := f.s[off:min(off+textBlock, len(f.s))]
	if i := strings.IndexAny(near, "\r\n"); i >= 0 {
		return off + i
	}
	if off+len(near) == len(f.s) {
		return len(f.s)
	}
	if f.breaks == nil {
		f.breaks = lineBreaks(f.s)
	}
	// near reached past the end of off's block, so the break is at or
	// after the start of the next.
	return f.breaks[off/textBlock+1]
}

// lineBreaks finds, for each block of textBlock bytes, the first line
// break at or after its start (len(s) when there is none); the last entry
// is for the block that starts at or past the end.
func lineBreaks(s string) []int {
	n := len(s)/textBlock + 1
	breaks := make([]int, n+1)
	breaks[n] = len(s)
	for b := n - 1; b >= 0; b-- {
		start := b * textBlock
		end := min(start+textBlock, len(s))
		if i := strings.IndexAny(s[start:end], "\r\n"); i >= 0 {
			breaks[b] = start + i
		} else {
			breaks[b] = breaks[b+1]
		}
	}
	return breaks
}
