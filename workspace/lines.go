package workspace

import (
	"bytes"
	"strconv"
	"strings"
)

// Every tool writes a place and a listed line the same way, so a model
// learns one scheme: a place is path:LINE, path:START-END or
// path:LINE:COL (1-based, inclusive); a listed source line is its number,
// a tab, and its text.

// Span writes the line range start..end as "START-END", or "LINE" when it
// is one line.
func Span(start, end int) string {
	if end <= start {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "-" + strconv.Itoa(end)
}

// Place writes path:START-END (or path:LINE).
func Place(path string, start, end int) string {
	return path + ":" + Span(start, end)
}

// WriteLine appends one listed source line: "N\ttext\n".
func WriteLine(b *strings.Builder, n int, text string) {
	b.WriteString(strconv.Itoa(n))
	b.WriteByte('\t')
	b.WriteString(text)
	b.WriteByte('\n')
}

// NumberedLines lists lines start..end of src (1-based, inclusive), a
// trailing CR dropped from each.
func NumberedLines(src []byte, start, end int) string {
	var b strings.Builder
	line := 1
	for i := 0; i < len(src) && line <= end; line++ {
		next := len(src)
		text := src[i:]
		if j := bytes.IndexByte(text, '\n'); j >= 0 {
			text, next = src[i:i+j], i+j+1
		}
		if line >= start {
			WriteLine(&b, line, strings.TrimSuffix(string(text), "\r"))
		}
		i = next
	}
	return b.String()
}
