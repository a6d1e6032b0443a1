package blast

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// jsBlock is one call of a test or suite function in a JavaScript or
// TypeScript test file: describe('t', fn), it.only('t', fn),
// test.each(table)('t %s', fn). The runners name a test by its title and
// its suites' titles, joined by spaces; the code graph keeps titles cut
// short and knows nothing of suites it does not name, so the titles and
// the nesting are read here, from the file's text.
type jsBlock struct {
	fn      string // the function called: it, test, describe, context, …
	title   string // the title, as the runner reads it
	raw     string // the title as written, between its quotes
	dynamic bool   // a title made at run time: a variable, a template with ${}, .each, .for
	start   int    // the line of the function's name
	end     int    // the line of the call's closing parenthesis
	parent  int    // the enclosing block's index, -1 at the top
	nested  bool   // other blocks are inside it
	each    bool   // a table of tests (.each, .for): its titles are made from rows
}

// jsTestFns are the functions the four runners and tape define tests and
// suites with.
var jsTestFns = map[string]bool{
	"describe": true, "it": true, "test": true, "context": true, "specify": true, "suite": true,
	"fdescribe": true, "xdescribe": true, "fit": true, "xit": true, "xtest": true, "xcontext": true, "xspecify": true,
}

// jsSuiteFns are those of jsTestFns that make suites, whose tests are
// inside.
var jsSuiteFns = map[string]bool{"describe": true, "context": true, "suite": true, "fdescribe": true, "xdescribe": true, "xcontext": true}

// jsEachFns are the modifiers that make one call a table of tests, each
// with a title made from a row.
var jsEachFns = map[string]bool{"each": true, "for": true}

// jsToken is one token of the scan: a name, a punctuator, or a string
// (str set, value in text; ok false when it holds an escape the scan
// does not decode or a substitution).
type jsToken struct {
	kind byte // 'n' name, 'p' punctuator, 's' string or template, 'o' other (a number, a regular expression)
	text string
	raw  string
	ok   bool
	line int
	// tpl numbers a template with substitutions, on its 's' token and on
	// the "`" token that ends it after its last substitution.
	tpl int
}

// scanJSTests reads the test and suite blocks of a file. It is not a
// parser: it tokenizes (strings, templates, comments, regular
// expressions) and follows brackets; ok is false when the brackets do not
// balance, and the caller then takes the file whole.
func scanJSTests(src []byte) (blocks []jsBlock, ok bool) {
	toks, ok := jsTokens(string(src))
	if !ok {
		return nil, false
	}
	type open struct {
		ch    byte
		block int // the block whose arguments it opens, or -1
	}
	var stack []open
	// pending is the block whose first call just closed (it.each(table),
	// it.skipIf(x)): a ( right after opens its real arguments.
	pending := -1
	current := func() int {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].block >= 0 {
				return stack[i].block
			}
		}
		return -1
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == 'p' {
			switch t.text {
			case "(", "[", "{", "${":
				b := -1
				if t.text == "(" && pending >= 0 {
					b = pending
					inherited := blocks[b].each || blocks[b].parent >= 0 && blocks[blocks[b].parent].dynamic
					blocks[b].title, blocks[b].raw, blocks[b].dynamic = jsTitle(toks, i+1, inherited)
				}
				pending = -1
				stack = append(stack, open{ch: t.text[len(t.text)-1], block: b})
				continue
			case "`":
				continue // a template's end
			case ")", "]", "}":
				if len(stack) == 0 || stack[len(stack)-1].ch != map[string]byte{")": '(', "]": '[', "}": '{'}[t.text] {
					return nil, false
				}
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				pending = -1
				if top.block >= 0 {
					blocks[top.block].end = t.line
					if i+1 < len(toks) && toks[i+1].kind == 'p' && toks[i+1].text == "(" {
						pending = top.block // curried: the title comes next
					}
				}
				continue
			}
		}
		pending = -1
		if t.kind != 'n' || !jsTestFns[t.text] || i > 0 && (toks[i-1].text == "." || toks[i-1].text == "function" || toks[i-1].text == "?.") {
			continue
		}
		// name(.modifier)* then ( or a tagged template then (.
		j := i + 1
		dynamic := false
		for j+1 < len(toks) && toks[j].text == "." && toks[j+1].kind == 'n' {
			if jsEachFns[toks[j+1].text] {
				dynamic = true
			}
			j += 2
		}
		if j < len(toks) && toks[j].kind == 's' && dynamic {
			// it.each`table`: past the template, substitutions and all.
			if tpl := toks[j].tpl; tpl != 0 {
				for j++; j < len(toks) && !(toks[j].text == "`" && toks[j].tpl == tpl); j++ {
				}
			}
			j++
		}
		if j >= len(toks) || toks[j].text != "(" {
			continue
		}
		b := jsBlock{fn: t.text, start: t.line, end: t.line, parent: current(), dynamic: dynamic, each: dynamic}
		if b.parent >= 0 {
			blocks[b.parent].nested = true
			b.dynamic = b.dynamic || blocks[b.parent].dynamic
		}
		blocks = append(blocks, b)
		n := len(blocks) - 1
		if j > i+1 && (toks[j-1].kind == 's' || toks[j-1].text == "`") {
			// it.each`table`(title, fn): the title is in the next call.
			// (The table's brackets balance: they are skipped.)
			i = j - 1
			pending = n
			continue
		}
		blocks[n].title, blocks[n].raw, blocks[n].dynamic = jsTitle(toks, j+1, dynamic || blocks[n].dynamic)
		stack = append(stack, open{ch: '(', block: n})
		i = j
	}
	if len(stack) != 0 {
		return nil, false
	}
	return blocks, true
}

// jsTitle reads a call's first argument from toks[i]: a title when it is
// one string followed by , or ); dynamic otherwise, or when already so.
func jsTitle(toks []jsToken, i int, dynamic bool) (title, raw string, dyn bool) {
	if i+1 >= len(toks) || toks[i].kind != 's' || toks[i+1].text != "," && toks[i+1].text != ")" {
		return "", "", true
	}
	return toks[i].text, toks[i].raw, dynamic || !toks[i].ok
}

// jsKeywordsBeforeExpr are the words after which a / starts a regular
// expression, not a division.
var jsKeywordsBeforeExpr = map[string]bool{
	"return": true, "typeof": true, "case": true, "do": true, "else": true, "in": true, "instanceof": true,
	"new": true, "delete": true, "void": true, "throw": true, "yield": true, "await": true, "of": true,
}

// jsTokens splits JavaScript (or TypeScript) into tokens; ok is false on
// an unterminated string, template or comment.
func jsTokens(s string) (toks []jsToken, ok bool) {
	line := 1
	// templates holds, for each ${ open, the depth of braces inside it
	// (its closing } resumes the template) and the template's number.
	type subst struct{ depth, tpl int }
	var templates []subst
	tpls := 0
	regexAllowed := func() bool {
		if len(toks) == 0 {
			return true
		}
		t := toks[len(toks)-1]
		switch t.kind {
		case 'n':
			return jsKeywordsBeforeExpr[t.text]
		case 's', 'o':
			return false
		}
		return t.text != ")" && t.text != "]" && t.text != "}"
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, false
			}
			line += strings.Count(s[i:i+2+end], "\n")
			i += end + 4
		case c == '\'' || c == '"':
			start := line
			j, val, good := jsString(s, i, c)
			if j < 0 {
				return nil, false
			}
			line += strings.Count(s[i:j], "\n")
			toks = append(toks, jsToken{kind: 's', text: val, raw: s[i+1 : j-1], ok: good, line: start})
			i = j
		case c == '`' || c == '}' && len(templates) > 0 && templates[len(templates)-1].depth == 0:
			// A template, or its part after a substitution: up to ` or ${.
			resumed := c == '}'
			tpl := 0
			if resumed {
				tpl = templates[len(templates)-1].tpl
				templates = templates[:len(templates)-1]
				toks = append(toks, jsToken{kind: 'p', text: "}", line: line})
			}
			start := line
			j, val, more, good := jsTemplate(s, i+1)
			if j < 0 {
				return nil, false
			}
			line += strings.Count(s[i:j], "\n")
			if !resumed {
				if more {
					tpls++
					tpl = tpls
				}
				// With a substitution, the template's value is not known.
				toks = append(toks, jsToken{kind: 's', text: val, raw: s[i+1 : j-1], ok: good && !more, line: start, tpl: tpl})
			}
			if more {
				// The substitution's expression follows, as tokens of a
				// bracket of its own.
				toks = append(toks, jsToken{kind: 'p', text: "${", line: line})
				templates = append(templates, subst{tpl: tpl})
			} else if resumed {
				toks = append(toks, jsToken{kind: 'p', text: "`", line: line, tpl: tpl})
			}
			i = j
		case c == '/' && regexAllowed():
			j := jsRegex(s, i)
			if j < 0 {
				return nil, false
			}
			toks = append(toks, jsToken{kind: 'o', text: s[i:j], line: line})
			i = j
		case c == '_' || c == '$' || c < utf8.RuneSelf && unicode.IsLetter(rune(c)) || c >= utf8.RuneSelf:
			j := i
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				j += n
			}
			if j == i { // a character no name holds
				_, n := utf8.DecodeRuneInString(s[i:])
				j = i + n
				toks = append(toks, jsToken{kind: 'o', text: s[i:j], line: line})
			} else {
				toks = append(toks, jsToken{kind: 'n', text: s[i:j], line: line})
			}
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] == '.' || s[j] == '_' || s[j] < utf8.RuneSelf && (unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])))) {
				j++
			}
			toks = append(toks, jsToken{kind: 'o', text: s[i:j], line: line})
			i = j
		default:
			p := string(c)
			if strings.HasPrefix(s[i:], "?.") && !(i+2 < len(s) && s[i+2] >= '0' && s[i+2] <= '9') {
				p = "?."
			}
			if len(templates) > 0 {
				switch c {
				case '{':
					templates[len(templates)-1].depth++
				case '}':
					templates[len(templates)-1].depth--
				}
			}
			toks = append(toks, jsToken{kind: 'p', text: p, line: line})
			i += len(p)
		}
	}
	return toks, len(templates) == 0
}

// jsString reads the string literal opening with q at s[i]: the index
// past its end (-1: unterminated), its value, and whether every escape
// in it was decoded.
func jsString(s string, i int, q byte) (int, string, bool) {
	var b strings.Builder
	good := true
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case q:
			return j + 1, b.String(), good
		case '\n':
			return -1, "", false
		case '\\':
			n, ok := jsEscape(s, j, &b)
			good = good && ok
			j = n - 1
		default:
			b.WriteByte(s[j])
		}
	}
	return -1, "", false
}

// jsTemplate reads a template's text from s[i] up to its closing ` or
// a ${: the index past it, its value, whether it stopped at a ${, and
// whether every escape was decoded.
func jsTemplate(s string, i int) (int, string, bool, bool) {
	var b strings.Builder
	good := true
	for j := i; j < len(s); j++ {
		switch {
		case s[j] == '`':
			return j + 1, b.String(), false, good
		case strings.HasPrefix(s[j:], "${"):
			return j + 2, b.String(), true, good
		case s[j] == '\\':
			n, ok := jsEscape(s, j, &b)
			good = good && ok
			j = n - 1
		case s[j] == '\r':
			// A template's line ends are line feeds.
		default:
			b.WriteByte(s[j])
		}
	}
	return -1, "", false, false
}

// jsEscape decodes the escape at s[j] (a backslash) into b: the index
// past it, and false for one it does not decode (an octal escape).
func jsEscape(s string, j int, b *strings.Builder) (int, bool) {
	if j+1 >= len(s) {
		return len(s), false
	}
	c := s[j+1]
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case '0':
		if j+2 < len(s) && s[j+2] >= '0' && s[j+2] <= '9' {
			return j + 2, false
		}
		b.WriteByte(0)
	case '\n':
		// A line continuation: nothing.
	case '\r':
		if j+2 < len(s) && s[j+2] == '\n' {
			return j + 3, true
		}
	case 'x':
		if j+4 <= len(s) {
			if v, err := strconv.ParseUint(s[j+2:j+4], 16, 8); err == nil {
				b.WriteRune(rune(v))
				return j + 4, true
			}
		}
		return j + 2, false
	case 'u':
		hex, next := "", j+6
		if j+2 < len(s) && s[j+2] == '{' {
			end := strings.IndexByte(s[j+2:], '}')
			if end < 0 {
				return j + 2, false
			}
			hex, next = s[j+3:j+2+end], j+3+end
		} else if j+6 <= len(s) {
			hex = s[j+2 : j+6]
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil || v >= 0xD800 && v < 0xE000 {
			return j + 2, false // a surrogate half: a pair the scan does not join
		}
		b.WriteRune(rune(v))
		return next, true
	default:
		if c >= '1' && c <= '9' {
			return j + 2, false
		}
		r, n := utf8.DecodeRuneInString(s[j+1:])
		b.WriteRune(r)
		return j + 1 + n, true
	}
	return j + 2, true
}

// jsRegex reads the regular expression literal at s[i]: the index past
// its flags, -1 when it does not end on its line.
func jsRegex(s string, i int) int {
	class := false
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\n':
			return -1
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				j++
				for j < len(s) && (s[j] >= 'a' && s[j] <= 'z') {
					j++
				}
				return j
			}
		}
	}
	return -1
}
