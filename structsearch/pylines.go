package structsearch

import "bytes"

// Python's logical lines, found without parsing: where each statement's
// text starts and ends, telling strings, f-string fields, comments,
// brackets and line continuations apart as tree-sitter's Python lexer does.
// Partial parsing (partial.go) parses only the lines that can hold a
// match.

// pyLine is one logical line of Python source.
type pyLine struct {
	start int // the start of its first physical line
	code  int // its first byte of code (past the indentation)
	end   int // past the newline that ends it (or the end of the source)
	// header: its last token is a ':' outside brackets, so a block
	// follows on the lines after it (`if x:`, `def f():`).
	header bool
}

// pyLogicalLines splits src into logical lines (blank and comment-only
// lines are none). It says false for source it does not read as Python's
// lexer would: a string left open, a bracket closed that was never
// opened, a backslash outside a string that ends no line, a lone '\r' for
// a line break; or that tree-sitter may read otherwise (see mayEnd).
func pyLogicalLines(src []byte, lines []pyLine) ([]pyLine, bool) {
	lines = lines[:0]
	n := len(src)
	i := 0
	for i < n {
		start := i
		for i < n && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f') {
			i++
		}
		if i == n {
			break
		}
		switch src[i] {
		case '\n':
			i++
			continue
		case '\r':
			if i+1 < n && src[i+1] == '\n' {
				i += 2
				continue
			}
			return nil, false
		case '#':
			i = lineEnd(src, i)
			continue
		}
		l := pyLine{start: start, code: i}
		depth := 0
		var last byte   // the last byte of code outside brackets ('a': a word)
		var word []byte // that word, when last is 'a'
		lastEnd := i    // past the last punctuation outside brackets
	line:
		for i < n {
			c := src[i]
			switch {
			case c == '\n':
				i++
				if depth == 0 {
					break line
				}
			case c == ' ' || c == '\t' || c == '\f':
				i++
			case c == '\r':
				if i+1 >= n || src[i+1] != '\n' {
					return nil, false
				}
				i++
			case c == '#':
				i = lineEnd(src, i)
			case c == '\\':
				switch {
				case i+1 < n && src[i+1] == '\n':
					i += 2
				case i+2 < n && src[i+1] == '\r' && src[i+2] == '\n':
					i += 3
				default:
					return nil, false
				}
			case c == '(' || c == '[' || c == '{':
				depth++
				i++
			case c == ')' || c == ']' || c == '}':
				if depth--; depth < 0 {
					return nil, false
				}
				i++
				if depth == 0 {
					last = c
				}
			case c == '"' || c == '\'' || c == '`':
				var ok bool
				if i, ok = skipPyString(src, i); !ok {
					return nil, false
				}
				if depth == 0 {
					last = c
				}
			case wordByte(c):
				j, str, ok := skipPyWord(src, i)
				if !ok {
					return nil, false
				}
				switch {
				case depth > 0:
				case str:
					last = '"'
				default:
					last, word = 'a', src[i:j]
				}
				i = j
			default:
				i++
				if depth == 0 {
					last, lastEnd = c, i
				}
			}
		}
		if depth != 0 {
			return nil, false // a bracket left open at the end
		}
		if !mayEnd(src[l.code:lastEnd], last, word) {
			return nil, false
		}
		if last == ':' && !pyHeads[firstWord(src, l.code)] {
			// Not a block's header, but a ':' tree-sitter reads on
			// from (`A:` then `0` as the annotation `A: 0`).
			return nil, false
		}
		l.end = i
		l.header = last == ':'
		lines = append(lines, l)
	}
	return lines, true
}

// mayEnd says whether a line whose last token outside brackets is last
// (a byte; 'a' for a word, word) ends where Python ends it for
// tree-sitter too. tree-sitter reads a line break as the end of a
// statement only where the statement may end; after a token that cannot
// end one, it reads on into the next line (`A.` then `b = c` as
// `A.b = c`, `A,` then `b = c` as `A, b = c`). Python refuses the first
// and ends the second; a file of either is left to the whole parse.
func mayEnd(text []byte, last byte, word []byte) bool {
	switch last {
	case 'a':
		return !pyGoesOn[string(word)]
	case ')', ']', '}', '"', '\'', '`', ':', ';':
		return true
	case '.':
		if bytes.HasSuffix(text, []byte("...")) {
			return true // Ellipsis
		}
		j := len(text) - 1
		for j > 0 && wordByte(text[j-1]) {
			j--
		}
		return j < len(text)-1 && text[j] >= '0' && text[j] <= '9' // a number, `1.`
	case '*':
		return bytes.HasSuffix(bytes.TrimRight(text[:len(text)-1], " \t\f"), []byte("import"))
	}
	return false // an operator, a comma
}

// pyHeads are the words a line that opens a block starts with.
var pyHeads = map[string]bool{
	"if": true, "elif": true, "else": true, "for": true, "while": true, "try": true, "except": true, "finally": true,
	"with": true, "def": true, "class": true, "async": true, "match": true, "case": true,
}

// pyGoesOn are the keywords a statement cannot end with.
var pyGoesOn = map[string]bool{
	"and": true, "or": true, "not": true, "in": true, "is": true, "if": true, "else": true, "elif": true,
	"lambda": true, "import": true, "from": true, "as": true, "with": true, "for": true, "while": true,
	"del": true, "assert": true, "global": true, "nonlocal": true, "await": true, "async": true,
	"class": true, "def": true, "except": true, "try": true, "finally": true,
}

// skipPyWord returns the offset past the word at i, or past the string
// literal it is the prefix of (`rb"..."`); str says which.
func skipPyWord(src []byte, i int) (end int, str, ok bool) {
	j := i
	for j < len(src) && wordByte(src[j]) {
		j++
	}
	if j < len(src) && (src[j] == '"' || src[j] == '\'' || src[j] == '`') && stringPrefix(src[i:j]) {
		end, ok = skipPyString(src, i)
		return end, true, ok
	}
	return j, false, true
}

// stringPrefix says whether w, a word right before a quote, is a string's
// prefix, as tree-sitter reads one: any run of the letters f, r, b and u.
func stringPrefix(w []byte) bool {
	for _, c := range w {
		switch c {
		case 'f', 'F', 'r', 'R', 'b', 'B', 'u', 'U':
		default:
			return false
		}
	}
	return true
}

// skipPyString returns the offset past the string literal that starts at
// i (its prefix, if any, included).
func skipPyString(src []byte, i int) (int, bool) {
	format := false
	for i < len(src) && src[i] != '"' && src[i] != '\'' && src[i] != '`' {
		if src[i] == 'f' || src[i] == 'F' {
			format = true
		}
		i++
	}
	if i == len(src) {
		return i, false
	}
	q := src[i]
	triple := q != '`' && i+2 < len(src) && src[i+1] == q && src[i+2] == q
	if triple {
		i += 3
	} else {
		i++
	}
	return skipPyStringBody(src, i, q, triple, format)
}

// skipPyStringBody returns the offset past the closing quote of a string
// whose body starts at i. A backslash escapes the byte after it, in raw
// strings too (`r"\""` is one string). In an f-string, a field `{...}` is
// code, and may hold strings of its own, with any quotes.
func skipPyStringBody(src []byte, i int, q byte, triple, format bool) (int, bool) {
	n := len(src)
	for i < n {
		c := src[i]
		switch {
		case c == '\\':
			if i+2 < n && src[i+1] == '\r' && src[i+2] == '\n' {
				i += 3
			} else {
				i += 2
			}
		case c == q:
			if !triple {
				return i + 1, true
			}
			if i+2 < n && src[i+1] == q && src[i+2] == q {
				return i + 3, true
			}
			i++
		case c == '\n' && !triple:
			return i, false
		case format && c == '{':
			if i+1 < n && src[i+1] == '{' {
				i += 2
				continue
			}
			var ok bool
			if i, ok = skipPyField(src, i+1); !ok {
				return i, false
			}
		default:
			i++
		}
	}
	return n, false
}

// skipPyField returns the offset past the '}' that closes the f-string
// field whose code starts at i. A ':' outside the field's brackets starts
// its format spec: text, but for fields of its own.
func skipPyField(src []byte, i int) (int, bool) {
	n := len(src)
	depth := 0
	for i < n {
		c := src[i]
		switch {
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']':
			depth--
			i++
		case c == '}':
			if depth == 0 {
				return i + 1, true
			}
			depth--
			i++
		case c == ':' && depth == 0:
			return skipPySpec(src, i+1)
		case c == '"' || c == '\'' || c == '`':
			var ok bool
			if i, ok = skipPyString(src, i); !ok {
				return i, false
			}
		case wordByte(c):
			j, _, ok := skipPyWord(src, i)
			if !ok {
				return j, false
			}
			i = j
		default:
			i++
		}
	}
	return n, false
}

// skipPySpec returns the offset past the '}' that closes a field whose
// format spec starts at i.
func skipPySpec(src []byte, i int) (int, bool) {
	for i < len(src) {
		switch src[i] {
		case '{':
			var ok bool
			if i, ok = skipPyField(src, i+1); !ok {
				return i, false
			}
		case '}':
			return i + 1, true
		default:
			i++
		}
	}
	return len(src), false
}
