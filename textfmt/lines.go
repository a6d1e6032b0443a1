package textfmt

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
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
	return ShowPath(path) + ":" + Span(start, end)
}

// WriteLine appends one listed source line: "N\ttext\n".
func WriteLine(b *strings.Builder, n int, text string) {
	b.WriteString(strconv.Itoa(n))
	b.WriteByte('\t')
	b.WriteString(text)
	b.WriteByte('\n')
}

// MaxLineChars is the longest line a tool lists whole; a longer one is
// cut, and says so.
const MaxLineChars = 2000

// NumberedLines lists lines start..end of src (1-based, inclusive) as a
// tool shows them: a trailing CR dropped, the byte-order mark left out,
// and lines past MaxLineChars cut with a note.
func NumberedLines(src []byte, start, end int) string {
	var b strings.Builder
	src, _ = CutBOM(src)
	line := 1
	for i := 0; i < len(src) && line <= end; line++ {
		next := len(src)
		text := src[i:]
		if j := bytes.IndexByte(text, '\n'); j >= 0 {
			text, next = src[i:i+j], i+j+1
		}
		if line >= start {
			WriteLine(&b, line, ClipLine(string(TrimCR(text))))
		}
		i = next
	}
	return b.String()
}

// SplitLines splits a file's text into its lines, without their ends
// (\n or \r\n); an empty text has none.
func SplitLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// Clip cuts s to at most n bytes, at a character's start, ending in "…"
// when it was cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-len("…"), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ClipLine cuts a line longer than MaxLineChars characters, saying how
// long it was.
func ClipLine(s string) string {
	if len(s) <= MaxLineChars {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= MaxLineChars {
		return s
	}
	cut := 0
	for i := range s {
		if cut == MaxLineChars {
			return s[:i] + LineCutNote(n)
		}
		cut++
	}
	return s
}

// LineCutNote is what follows a line cut at MaxLineChars of its chars.
func LineCutNote(chars int) string {
	return " … [line cut: showing " + Thousands(MaxLineChars) + " of " + Thousands(chars) + " chars]"
}

// Thousands formats n with comma separators: 2345 → "2,345".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// ShowPath is rel as a line of a result shows it: as it is, unless it
// holds a line break, a tab or another control character (C1 and DEL
// too), a bidirectional control, or bytes that are not UTF-8, which would
// break the one-path-a-line layout or reorder it on screen; then it is
// quoted as a Go string ("a\nb.go", "a\u202eb.go"), a form every tool
// takes back.
func ShowPath(rel string) string {
	if needsEscape(rel, false) || strings.ContainsAny(rel, "\t\uFFFD") || strings.HasPrefix(rel, `"`) {
		return strconv.Quote(rel)
	}
	return rel
}

// UnquotePath undoes ShowPath: a path given in double quotes that is a
// valid Go string stands for its unquoted text.
func UnquotePath(p string) string {
	if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}

// Count is n things: "1 file", "1,204 files".
func Count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "ch") {
		return Thousands(n) + " " + what + "es"
	}
	return Thousands(n) + " " + what + "s"
}
