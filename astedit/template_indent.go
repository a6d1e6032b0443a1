package astedit

import (
	"bytes"
	"strings"
)

// Indentation: how a template's own lines are made relative, and the
// file's style (tabs or a unit of spaces, line ending) they are written in.

// relativize makes the indentation of the lines after the first relative
// to the first line's, and finds the template's unit of indentation.
//
// The first line lands at the match's start, so the indentation it is
// written with is not its own. The lines after it may be flush left, or
// indented as the code they were copied from, often with the first line
// trimmed (as a match's text is). What they share is removed, and the
// first line, written without indentation, stands one level above them
// when it opens them (ends with `{`, `:`, `,` or an operator, or they
// start with `.`), unless one of them closes it at their shared
// indentation (`}`, `else`, `end`...); level with them otherwise.
func (t *Template) relativize() {
	var rest []int // the non-blank lines after the first
	for i, l := range t.lines {
		if i > 0 && !l.blank {
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 {
		t.unit = 4
		return
	}
	common := t.lines[rest[0]].indent
	for _, i := range rest {
		for !strings.HasPrefix(t.lines[i].indent, common) {
			common = common[:len(common)-1]
		}
	}
	first := t.lines[0]
	switch {
	case first.indent != "" && !first.blank:
		for !strings.HasPrefix(first.indent, common) {
			common = common[:len(common)-1]
		}
	case common != "" && !first.blank && t.opens(rest[0]) && !t.closes(rest, common):
		trail := len(common) - len(strings.TrimRight(common, " "))
		switch {
		case strings.HasSuffix(common, "\t"):
			common = common[:len(common)-1]
		default:
			common = common[:len(common)-min(trail, t.step(rest, 4))]
		}
	}
	for _, i := range rest {
		t.lines[i].indent = t.lines[i].indent[len(common):]
	}
	t.unit = t.step(append([]int{0}, rest...), 4)
}

// step is the smallest step in indentation from one of the lines to the
// next that is not one space (alignment, as a block comment's " * "), or
// else def. Lines indented with tabs do not count.
func (t *Template) step(lines []int, def int) int {
	unit, prev := 0, -1
	for _, i := range lines {
		ind := t.lines[i].indent
		if i == 0 {
			ind = ""
		}
		if strings.Contains(ind, "\t") {
			continue
		}
		if d := max(len(ind)-prev, prev-len(ind)); prev >= 0 && d >= 2 && (unit == 0 || d < unit) {
			unit = d
		}
		prev = len(ind)
	}
	if unit == 0 {
		return def
	}
	return unit
}

// opens says the first line continues into line next: it ends with an
// opening bracket, a colon, a comma or an operator, or next starts a
// method chain.
func (t *Template) opens(next int) bool {
	text := func(l tline) string {
		var b strings.Builder
		for _, s := range l.segs {
			b.WriteString(s.text + strings.Repeat("X", len(s.ref)))
		}
		return strings.TrimSpace(b.String())
	}
	first := text(t.lines[0])
	return strings.HasPrefix(text(t.lines[next]), ".") ||
		first != "" && strings.ContainsRune("{([:,=+-*/%&|<>\\", rune(first[len(first)-1]))
}

// closes says one of the lines at the indentation common closes what the
// first line opened, so the first line stood at common too.
func (t *Template) closes(lines []int, common string) bool {
	for _, i := range lines {
		l := t.lines[i]
		if l.indent != common || len(l.segs) == 0 || l.segs[0].ref != "" {
			continue
		}
		s := l.segs[0].text
		if strings.ContainsAny(s[:1], "})]") {
			return true
		}
		word := s[:len(s)-len(strings.TrimLeft(s, "abcdefghijklmnopqrstuvwxyz"))]
		switch word {
		case "else", "elif", "except", "finally", "catch", "end":
			return true
		}
	}
	return false
}

// style reads the file's indentation unit and line ending, when a
// template or capture first needs them: a one-line rewrite never does,
// and they cost a pass over the file.
func (x *expander) style() *expander {
	if x.nl == "" {
		x.unit, x.nl = indentUnit(x.src, x.base, x.m.Path), lineEnding(x.src)
	}
	return x
}

// convert writes a template line's relative indentation in the file's
// style: each run of spaces is so many of the template's levels (unit
// spaces each) and the rest, and each level, or tab, becomes one of the
// file's.
func (x *expander) convert(indent string, unit int) string {
	var b strings.Builder
	for indent != "" {
		n := len(indent) - len(strings.TrimLeft(indent, " "))
		if n == 0 { // a tab
			b.WriteString(x.unit)
			indent = indent[1:]
			continue
		}
		b.WriteString(strings.Repeat(x.unit, n/unit) + strings.Repeat(" ", n%unit))
		indent = indent[n:]
	}
	return b.String()
}

// indentUnit is one level of the file's indentation. It is a tab if the
// match's line starts with one or, at the top level, if most indented
// lines do (a line led by one space is a block comment's " * " and counts
// for neither; a Go file with none is gofmt's, tabs). Otherwise it is the
// most common step by which a line is indented deeper than the one before
// (2 to 8 spaces: fewer is alignment, more a continuation), the smaller on
// a tie, or 4.
func indentUnit(src []byte, base, path string) string {
	tabs, spaced, prev := 0, 0, -1
	var steps [9]int
	for _, l := range strings.Split(string(src), "\n") {
		ws := leadingSpace(l)
		switch {
		case strings.TrimSpace(l) == "":
			continue
		case strings.HasPrefix(ws, "\t"):
			tabs++
		case len(ws) >= 2:
			spaced++
		}
		if d := len(ws) - prev; prev >= 0 && d >= 2 && d < len(steps) {
			steps[d]++
		}
		prev = len(ws)
		if strings.Contains(ws, "\t") {
			prev = -1
		}
	}
	switch {
	case base != "" && base[0] == '\t', base == "" && tabs > spaced, base == "" && tabs == spaced && strings.HasSuffix(path, ".go"):
		return "\t"
	}
	best := 4
	for d := 8; d >= 2; d-- {
		if steps[d] >= steps[best] && steps[d] > 0 {
			best = d
		}
	}
	return strings.Repeat(" ", best)
}

// lineEnding is CRLF if the file's first line ends with one.
func lineEnding(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// lineStart is the offset of the start of the line holding offset at.
func lineStart(src []byte, at int) int {
	return bytes.LastIndexByte(src[:at], '\n') + 1
}

// leadingSpace is s's leading run of spaces and tabs.
func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}
