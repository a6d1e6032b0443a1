package textfmt

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible is s as a person's terminal may show it without being driven
// by it: every control character (C0 but tab, DEL, C1), every
// bidirectional control (which reorders what follows it on screen), and
// every byte that is not UTF-8 is written as a Go escape (\x1b, \r, \n,
// \u202e, \xff); the rest is unchanged, backslashes too (text already
// quoted, such as a command line's arguments, reads as it was). Text that came from a repository,
// an agent, a server or a database passes through it before it reaches
// a terminal: an escape sequence in a server's name cannot move the
// cursor, clear a line or paint over the line before it.
func Visible(s string) string { return escape(s, goEscapes, false) }

// VisibleLines is Visible for a text of lines, such as a command's whole
// output: its line feeds are kept, everything else Visible escapes is
// escaped the same way.
func VisibleLines(s string) string { return escape(s, goEscapes, true) }

// VisibleJSON is VisibleLines for JSON text: what Visible escapes is
// written as a JSON escape instead (\u001b, \u202e, \u007f; a byte that
// is not UTF-8 as \ufffd, what encoding/json makes of it). Inside a JSON
// string that is the same value, so the JSON still parses to exactly what
// it held; outside one, JSON has no such character to escape (the line
// feeds and tabs of its layout are kept).
func VisibleJSON(s string) string { return escape(s, jsonEscapes, true) }

type escapeStyle int

const (
	goEscapes   escapeStyle = iota // \x1b, \r, \u202e, \xff
	jsonEscapes                    // \u001b, \u000d, \u202e, \ufffd
)

// escape is s with what shown refuses written in style; a line feed is
// kept when keepLF says so.
func escape(s string, style escapeStyle, keepLF bool) string {
	if !needsEscape(s, keepLF) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case shown(r, n) || keepLF && r == '\n':
			b.WriteString(s[i : i+n])
		case style == jsonEscapes && r == utf8.RuneError && n <= 1:
			b.WriteString(`\ufffd`)
		case style == jsonEscapes:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 || n <= 1: // a C0 control or DEL, or a byte that is not UTF-8
			fmt.Fprintf(&b, `\x%02x`, s[i])
		default: // a C1 control or a bidirectional control
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// needsEscape says whether escape changes s.
func needsEscape(s string, keepLF bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !shown(r, n) && !(keepLF && r == '\n') {
			return true
		}
		i += n
	}
	return false
}

// shown says whether the rune r, n bytes long as decoded, is written as
// it is: not a byte of invalid UTF-8, not a control character but tab,
// not a bidirectional control.
func shown(r rune, n int) bool {
	return !(r == utf8.RuneError && n <= 1 || r < 0x20 && r != '\t' || r >= 0x7f && r < 0xa0 || bidiControl(r))
}

// bidiControl says whether r is a Unicode bidirectional formatting
// character: marks, embeddings, overrides and isolates.
func bidiControl(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
