package lspmux

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Finding a known name in text goes by bytes: any non-ASCII byte may be
// part of an identifier, so a name is never found inside a longer one.

// IsIdentByte says whether b may be part of an identifier: an ASCII
// letter, digit or underscore, or any byte of a non-ASCII character.
func IsIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// IdentIndex is the byte offset of name as a whole identifier in s, or -1.
func IdentIndex(s, name string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], name)
		if i < 0 {
			return -1
		}
		i += off
		if (i == 0 || !IsIdentByte(s[i-1])) && (i+len(name) == len(s) || !IsIdentByte(s[i+len(name)])) {
			return i
		}
		off = i + 1
	}
}

// The place checks name what stands on a line by characters (Unicode
// letters and digits, columns in runes), as a model reads the line.

// ident is an identifier on a line and its 1-based rune column.
type ident struct {
	name string
	col  int
}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func isIdentRune(r rune) bool  { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
func isSpace(r rune) bool      { return r == ' ' || r == '\t' || r == '\r' }

// keywords are words of the common languages that name nothing a
// server answers about.
var keywords = map[string]bool{
	"func": true, "return": true, "if": true, "else": true, "for": true, "var": true, "const": true,
	"type": true, "package": true, "import": true, "range": true, "go": true, "defer": true,
	"switch": true, "case": true, "default": true, "break": true, "continue": true, "struct": true,
	"interface": true, "map": true, "chan": true, "select": true, "def": true, "class": true,
	"from": true, "as": true, "in": true, "not": true, "and": true, "or": true, "is": true,
	"pass": true, "lambda": true, "with": true, "yield": true, "async": true, "await": true,
	"let": true, "function": true, "export": true, "new": true, "while": true, "try": true,
	"except": true, "catch": true, "finally": true, "raise": true, "throw": true,
}

// lineIdents lists the identifiers of text (words starting with a letter
// or underscore, keywords left out), in order.
func lineIdents(text string) []ident {
	var out []ident
	rs := []rune(text)
	for i := 0; i < len(rs); {
		if !isIdentRune(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && isIdentRune(rs[j]) {
			j++
		}
		if w := string(rs[i:j]); isIdentStart(rs[i]) && !keywords[w] {
			out = append(out, ident{w, i + 1})
		}
		i = j
	}
	return out
}

// identAt is the identifier at col (on it, or just after its end, as
// servers take it), and its column.
func identAt(text string, col int) (string, int) {
	for _, id := range lineIdents(text) {
		if col >= id.col && col <= id.col+utf8.RuneCountInString(id.name) {
			return id.name, id.col
		}
	}
	return "", 0
}

// identNear says whether col is on an identifier or just after one.
func identNear(text string, col int) bool {
	w, _ := identAt(text, col)
	return w != ""
}

// nearestIdent is the identifier of text nearest to col (zero if none).
func nearestIdent(text string, col int) ident {
	var best ident
	bestD := -1
	for _, id := range lineIdents(text) {
		end := id.col + utf8.RuneCountInString(id.name) - 1
		d := 0
		switch {
		case col < id.col:
			d = id.col - col
		case col > end:
			d = col - end
		}
		if bestD < 0 || d < bestD {
			best, bestD = id, d
		}
	}
	return best
}

// identCols are the columns where name stands as a whole word in text.
func identCols(text, name string) []int {
	var cols []int
	for _, id := range lineIdents(text) {
		if id.name == name {
			cols = append(cols, id.col)
		}
	}
	return cols
}
