package locate

import (
	"bytes"
	"fmt"
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// lineMatcher finds the lines of a buffer that a grep pattern matches. It is
// the pure core of grep: bytes in, line spans out; no files, no output.
//
// A pattern is matched line by line, as grep and ripgrep do: it is compiled
// so that it cannot match a newline ('.', '\s', '[^x]' stop at line ends;
// '^' and '$' are line anchors), which makes one pass over a whole buffer
// equivalent to matching every line on its own. When every match must
// contain some literal text, the buffer is scanned for that literal (a
// memchr on its rarest byte) and only the lines that contain it are
// checked; otherwise a lazy DFA runs over the whole buffer.
//
// A lineMatcher is not safe for concurrent use; clone it per goroutine.
type lineMatcher struct {
	prog  *syntax.Prog
	lit   []byte // a literal every match contains; nil if there is none
	fold  bool   // lit is matched ASCII-case-insensitively (lit is lower case)
	rare  int    // index in lit of the byte to scan for
	exact bool   // a line matches iff it contains lit: no check needed
	// also are the other literals every match contains: a candidate line
	// without one of them is rejected before the DFA runs.
	also []scanner
	dfa  *lineDFA
	// alts are the strings of a pattern that matches one of a few (see
	// required), for a token index.
	alts [][][]byte
}

// compileMatcher compiles pattern (RE2 syntax, or literal text) for
// line-by-line matching.
func compileMatcher(pattern string, literal, ignoreCase bool) (*lineMatcher, error) {
	flags := syntax.Perl
	if literal {
		flags |= syntax.Literal
	}
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, err
	}
	if err := oneLine(tree); err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	prog, err := syntax.Compile(tree)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{prog: prog, alts: alternativesOf(tree)}
	lits := scannableLiterals(tree)
	if len(lits) > 0 {
		best := lits[0]
		m.lit, m.fold, m.rare = best.lit, best.fold, best.rare
		m.exact = isWholeLiteral(tree, best.lit, best.fold)
		for _, l := range lits[1:] {
			if !bytes.Contains(best.lit, l.lit) {
				m.also = append(m.also, l)
			}
		}
	}
	m.dfa = newLineDFA(prog)
	return m, nil
}

// required lists what a token index is asked: alternatives (every match
// holds every literal of at least one of them), each a list of literals
// of three bytes or more, case-insensitive ones in lower case. A pattern
// that matches one of a few strings (`foo|bar`, `fs(en|de)code`) has one
// alternative per string; any other, the one list of literals every match
// holds. nil when no match needs any literal a filter can answer for.
func (m *lineMatcher) required() [][][]byte {
	if alts := m.alts; alts != nil {
		return alts
	}
	var out [][]byte
	if len(m.lit) >= 3 {
		out = append(out, m.lit)
	}
	for _, s := range m.also {
		if len(s.lit) >= 3 {
			out = append(out, s.lit)
		}
	}
	if out == nil {
		return nil
	}
	return [][][]byte{out}
}

// maxAlternatives bounds the strings literalSet expands a pattern into.
const maxAlternatives = 16

// literalSet returns every string re matches, when they are at most
// maxAlternatives (zero-width assertions match the empty string, as in
// literalOf).
func literalSet(re *syntax.Regexp) ([][]litRune, bool) {
	if l, ok := literalOf(re); ok {
		return [][]litRune{l}, true
	}
	switch re.Op {
	case syntax.OpCapture:
		return literalSet(re.Sub[0])
	case syntax.OpAlternate:
		var out [][]litRune
		for _, sub := range re.Sub {
			set, ok := literalSet(sub)
			if !ok || len(out)+len(set) > maxAlternatives {
				return nil, false
			}
			out = append(out, set...)
		}
		return out, true
	case syntax.OpConcat:
		out := [][]litRune{nil}
		for _, sub := range re.Sub {
			set, ok := literalSet(sub)
			if !ok || len(out)*len(set) > maxAlternatives {
				return nil, false
			}
			var next [][]litRune
			for _, a := range out {
				for _, b := range set {
					next = append(next, append(append([]litRune(nil), a...), b...))
				}
			}
			out = next
		}
		return out, true
	}
	return nil, false
}

// alternativesOf is required's answer for a pattern of a few strings:
// each string's literals a filter can answer for; nil when the pattern
// is no such set, or one of its strings has none.
func alternativesOf(re *syntax.Regexp) [][][]byte {
	set, ok := literalSet(re)
	if !ok || len(set) < 2 {
		return nil
	}
	var out [][][]byte
	for _, str := range set {
		var lits [][]byte
		for _, chunk := range scannableChunks(str) {
			if b, _ := chunk.bytes(); len(b) >= 3 {
				lits = append(lits, b)
			}
		}
		if lits == nil {
			return nil // a string a filter cannot rule out
		}
		out = append(out, lits)
	}
	return out
}

// clone returns a matcher for another goroutine: the compiled pattern is
// shared, the DFA cache is its own.
func (m *lineMatcher) clone() *lineMatcher {
	c := *m
	c.dfa = newLineDFA(m.prog)
	return &c
}

// errNewline is returned for a pattern that can only match across lines.
var errNewline = fmt.Errorf("the pattern contains a newline, but grep matches one line at a time; search for each line's text separately")

// oneLine rewrites tree in place so that it never matches a newline, and
// so that ^, $, \A and \z anchor at line boundaries.
func oneLine(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return errNewline
			}
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		if len(out) == 0 {
			if len(re.Rune) > 0 {
				// The class held only '\n' (e.g. `[\n]`): the user meant
				// to match across lines.
				return errNewline
			}
			re.Op = syntax.OpNoMatch
		}
		re.Rune = out
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
		re.Flags &^= syntax.WasDollar
	}
	for _, s := range re.Sub {
		if err := oneLine(s); err != nil {
			return err
		}
	}
	return nil
}

// A litRune is one character of a literal the pattern requires, and whether
// it is matched case-insensitively.
type litRune struct {
	r    rune
	fold bool
}

// literalOf returns the one string re matches, if it matches exactly one
// (zero-width assertions count as the empty string: they consume nothing,
// so text on both sides of them is contiguous).
func literalOf(re *syntax.Regexp) ([]litRune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		out := make([]litRune, len(re.Rune))
		for i, r := range re.Rune {
			out[i] = litRune{r, re.Flags&syntax.FoldCase != 0}
		}
		return out, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, true
	case syntax.OpCapture:
		return literalOf(re.Sub[0])
	case syntax.OpConcat:
		var out []litRune
		for _, s := range re.Sub {
			l, ok := literalOf(s)
			if !ok {
				return nil, false
			}
			out = append(out, l...)
		}
		return out, true
	}
	return nil, false
}

// requiredLiterals lists strings that every match of re contains.
func requiredLiterals(re *syntax.Regexp) [][]litRune {
	if l, ok := literalOf(re); ok {
		if len(l) == 0 {
			return nil
		}
		return [][]litRune{l}
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var out [][]litRune
		var run []litRune
		for _, s := range re.Sub {
			if l, ok := literalOf(s); ok {
				run = append(run, l...)
				continue
			}
			if len(run) > 0 {
				out = append(out, run)
				run = nil
			}
			out = append(out, requiredLiterals(s)...)
		}
		if len(run) > 0 {
			out = append(out, run)
		}
		return out
	}
	return nil
}

// scannableLiterals lists the literals every match requires, as scanners,
// cheapest to scan for first: by the rarity of their rarest byte, and
// their length. Case-insensitive characters are only usable when all their
// case variants are ASCII ('k' is not: it folds to the Kelvin sign), so a
// literal is split at the others.
func scannableLiterals(re *syntax.Regexp) []scanner {
	var out []scanner
	var scores []int
	for _, req := range requiredLiterals(re) {
		for _, chunk := range scannableChunks(req) {
			b, f := chunk.bytes()
			k := rarestByte(b, f)
			out = append(out, scanner{lit: b, fold: f, rare: k})
			// A rare byte makes few candidates; a long literal makes few
			// of them survive to the DFA.
			scores = append(scores, 256-rankFold(b[k], f)+16*min(len(b), 8))
		}
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return scores[idx[i]] > scores[idx[j]] })
	sorted := make([]scanner, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted
}

type litChunk []litRune

func (c litChunk) bytes() ([]byte, bool) {
	var b []byte
	fold := false
	for _, lr := range c {
		r := lr.r
		if lr.fold && r < utf8.RuneSelf && unicode.IsLetter(r) {
			fold = true
			r = unicode.ToLower(r)
		}
		b = utf8.AppendRune(b, r)
	}
	if fold {
		// The scan folds ASCII letters only; it then over-matches the
		// case-sensitive letters of the chunk, which the regexp corrects.
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
	}
	return b, fold
}

// scannableChunks splits a required literal at the characters a byte scan
// cannot find reliably.
func scannableChunks(req []litRune) []litChunk {
	var out []litChunk
	start := 0
	for i := 0; i <= len(req); i++ {
		if i < len(req) && scannable(req[i]) {
			continue
		}
		if i > start {
			out = append(out, litChunk(req[start:i]))
		}
		start = i + 1
	}
	return out
}

func scannable(lr litRune) bool {
	if !lr.fold {
		return lr.r != utf8.RuneError
	}
	// Every case variant must be ASCII, so an ASCII fold finds them all.
	for f := unicode.SimpleFold(lr.r); f != lr.r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf || lr.r >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isWholeLiteral reports whether the pattern is exactly lit: a line matches
// iff it contains lit, so no regexp needs to run.
func isWholeLiteral(re *syntax.Regexp, lit []byte, fold bool) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpLiteral {
		return false
	}
	ignore := re.Flags&syntax.FoldCase != 0
	want := string(re.Rune)
	if ignore {
		if !fold {
			// A case-insensitive pattern without letters has no case to fold.
			return want == string(lit) && !strings.ContainsFunc(want, unicode.IsLetter)
		}
		return strings.ToLower(want) == string(lit)
	}
	return !fold && want == string(lit)
}

// rarestByte returns the index of lit's least common byte.
func rarestByte(lit []byte, fold bool) int {
	best := 0
	for i, c := range lit {
		if rankFold(c, fold) < rankFold(lit[best], fold) {
			best = i
		}
	}
	return best
}

func rankFold(c byte, fold bool) int {
	r := int(byteRank[c])
	if fold && 'a' <= c && c <= 'z' {
		// Scanning for a letter means scanning for two bytes.
		r = max(r, int(byteRank[c-'a'+'A'])) + 8
	}
	return r
}

// eachLine calls fn with the start and end (exclusive, before the '\n') of
// every line of buf that the pattern matches, in order, until fn returns
// false. An empty buffer has no lines, as for ripgrep.
func (m *lineMatcher) eachLine(buf []byte, fn func(start, end int) bool) {
	if m.lit == nil {
		m.dfa.eachLine(buf, fn)
		return
	}
	s := scanner{lit: m.lit, fold: m.fold, rare: m.rare, nl: -2, nu: -2}
	for pos := 0; pos < len(buf); {
		hit := s.indexFrom(buf, pos)
		if hit < 0 {
			return
		}
		start := pos + bytes.LastIndexByte(buf[pos:hit], '\n') + 1
		end := len(buf)
		if i := bytes.IndexByte(buf[hit:], '\n'); i >= 0 {
			end = hit + i
		}
		if m.exact || m.verify(buf[start:end]) {
			if !fn(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

func (m *lineMatcher) verify(line []byte) bool {
	for _, s := range m.also {
		if s.index(line) < 0 {
			return false
		}
	}
	return m.dfa.matchLine(line)
}

// scanner finds a literal in a buffer with a memchr on its rarest byte
// (both cases of it when folding), verifying each candidate.
type scanner struct {
	lit    []byte
	fold   bool
	rare   int
	nl, nu int // see indexFrom
}

// index returns the position of the first lit in hay, or -1.
func (s scanner) index(hay []byte) int {
	s.nl, s.nu = -2, -2
	return s.indexFrom(hay, 0)
}

// indexFrom returns the position of the first lit in buf at or after from,
// or -1. Successive calls on one buf must not go backwards: the scanner
// remembers how far it has looked, so that scanning for the two cases of a
// letter never reads the same bytes twice.
func (s *scanner) indexFrom(buf []byte, from int) int {
	lit, k := s.lit, s.rare
	c := lit[k]
	if !s.fold || c < 'a' || c > 'z' {
		fails := 0
		for i := from + k; i < len(buf); {
			j := bytes.IndexByte(buf[i:], c)
			if j < 0 {
				return -1
			}
			i += j
			start := i - k
			if start+len(lit) > len(buf) {
				return -1
			}
			if s.fold {
				if equalFoldASCII(buf[start:start+len(lit)], lit) {
					return start
				}
			} else if bytes.Equal(buf[start:start+len(lit)], lit) {
				return start
			}
			i++
			fails++
			if !s.fold && fails > 16+(i-from)>>5 {
				// The rare byte is not rare here: let the
				// standard library's substring search take over.
				if r := bytes.Index(buf[start+1:], lit); r >= 0 {
					return start + 1 + r
				}
				return -1
			}
		}
		return -1
	}
	// Two bytes to scan for, the letter's two cases: keep the next
	// position of each (-2: not looked for yet; -1: none left).
	upper := c - 'a' + 'A'
	for i := from + k; ; {
		if s.nl == -2 || (s.nl >= 0 && s.nl < i) {
			s.nl = indexFrom(buf, c, i)
		}
		if s.nu == -2 || (s.nu >= 0 && s.nu < i) {
			s.nu = indexFrom(buf, upper, i)
		}
		var at int
		switch {
		case s.nl < 0 && s.nu < 0:
			return -1
		case s.nl < 0:
			at = s.nu
		case s.nu < 0:
			at = s.nl
		default:
			at = min(s.nl, s.nu)
		}
		start := at - k
		if start+len(lit) > len(buf) {
			return -1
		}
		if equalFoldASCII(buf[start:start+len(lit)], lit) {
			return start
		}
		i = at + 1
	}
}

func indexFrom(hay []byte, c byte, from int) int {
	if from >= len(hay) {
		return -1
	}
	if j := bytes.IndexByte(hay[from:], c); j >= 0 {
		return from + j
	}
	return -1
}

// equalFoldASCII reports whether a equals lower (already lower case) when
// ASCII letters in a are lowered.
func equalFoldASCII(a, lower []byte) bool {
	for i, c := range a {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// byteRank orders bytes from rarest (0) to most common (255) in source
// code and prose, measured over Go, C, Python, JavaScript, Rust and Markdown
// files with each language weighted equally. Only the order matters.
var byteRank = [256]uint8{
	155, 61, 0, 1, 2, 3, 4, 48, 37, 240, 246, 38, 39, 113, 5, 6,
	7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
	255, 170, 236, 193, 185, 158, 179, 202, 232, 233, 190, 174, 239, 221, 230, 229,
	228, 225, 218, 207, 206, 191, 208, 183, 192, 182, 226, 213, 181, 222, 186, 160,
	157, 217, 194, 210, 211, 214, 184, 187, 176, 198, 159, 177, 212, 197, 203, 205,
	204, 169, 219, 224, 220, 178, 195, 171, 180, 172, 165, 189, 175, 188, 164, 241,
	173, 248, 227, 244, 243, 254, 238, 231, 234, 249, 166, 201, 245, 235, 252, 247,
	237, 167, 250, 251, 253, 242, 216, 196, 215, 223, 168, 199, 209, 200, 163, 23,
	153, 128, 150, 135, 121, 145, 146, 116, 148, 120, 104, 75, 140, 105, 88, 106,
	101, 76, 100, 132, 149, 142, 84, 124, 154, 133, 110, 80, 147, 143, 81, 111,
	141, 123, 71, 78, 107, 90, 117, 108, 91, 99, 95, 79, 122, 114, 83, 103,
	89, 139, 97, 87, 92, 86, 73, 161, 136, 152, 151, 98, 94, 93, 119, 96,
	24, 25, 162, 129, 59, 56, 45, 63, 54, 70, 74, 72, 77, 69, 137, 138,
	67, 65, 47, 51, 49, 66, 68, 125, 102, 109, 60, 62, 50, 40, 42, 46,
	131, 85, 156, 130, 118, 144, 134, 126, 115, 127, 64, 53, 58, 52, 41, 82,
	112, 43, 26, 27, 44, 28, 29, 30, 31, 32, 33, 34, 35, 36, 55, 57,
}
