package textedit

import (
	"strings"
)

// candidate is one place old_string may mean: a byte range of the body and
// how new_string must be rewritten to land there.
type candidate struct {
	start, end int
	// old is old_string as the layer compared it (unescaped, without blank
	// boundary lines, ...).
	old string
	// lineWise is set when the match covers whole lines; then the change
	// from old to new_string is carried onto the file's own lines (see
	// transplant) instead of pasting new_string over them.
	lineWise bool
	// fixNew rewrites new_string the way the layer rewrote old_string; nil
	// leaves it as it is.
	fixNew func(string) string
	// carryNew and asWrittenNew, when set, are fixNew for a new_string
	// read as written wholly in old_string's form, or wholly in the
	// file's (the escape layer's: unescape all of it, or none).
	carryNew, asWrittenNew func(string) string
}

// blockSimilarity is how alike the middle lines of a block-anchored match
// must be (joined, whitespace-trimmed, edit-distance similarity). Peers that
// used 0 or 0.3 here replaced whole functions on the strength of two brace
// lines; TestBlockAnchorThreshold shows 0.85 rescues one or two misremembered
// tokens per line and refuses a different function with the same first and
// last lines.
const blockSimilarity = 0.85

// blockMargin: another anchored block whose middle is within this much of
// the best one's similarity makes the match ambiguous. Without it, a slip
// can make a look-alike block elsewhere the only one over the threshold,
// and the edit would land there. 0.15, not 0.1: in html/template/html.go,
// an entry table with one line left out scores 0.74 against itself and
// 0.88 against its sibling table, which has one line swapped.
const blockMargin = 0.15

// layers are tried in order; the first that finds any candidate decides.
// exactMatches stays first: findCandidates runs it before splitting lines.
var layers = []func(e *effort, body string, lines []line, old string) []candidate{
	exactMatches,
	trailingTrimmedMatches,
	blockAnchorMatches,
	collapsedWhitespaceMatches,
	indentFlexibleMatches,
	escapeNormalizedMatches,
	trimmedBoundaryMatches,
	contextAwareMatches,
}

// findCandidates runs the chain and returns the deciding layer's candidates
// (nil if none found old), in body order; they may overlap.
// It gives up, with nothing, when e stops it (see effort).
func findCandidates(e *effort, body, old string) []candidate {
	if cs := exactMatches(e, body, nil, old); len(cs) > 0 || !e.ok() {
		return cs // the common case needs no lines
	}
	lines := splitLines(body)
	e.spend(len(lines))
	for _, layer := range layers[1:] {
		cs := layer(e, body, lines, old)
		if !e.ok() {
			return nil
		}
		if len(cs) > 0 {
			return cs
		}
	}
	return nil
}

// exactMatches finds every occurrence, overlapping ones included: "}\n}"
// in "}\n}\n}" is two places, not one. An occurrence that starts or ends
// inside a run of blanks is not one: "\treturn" is not the last tab and
// the word of a line indented by two.
func exactMatches(e *effort, body string, _ []line, old string) []candidate {
	var cs []candidate
	startsBlank := isSpaceByte(old[0])
	endsBlank := isSpaceByte(old[len(old)-1])
	for off := 0; off <= len(body); {
		i := strings.Index(body[off:], old)
		if i < 0 {
			break
		}
		s, end := off+i, off+i+len(old)
		off = s + 1
		if !e.spend(len(old)/64 + 1) {
			return nil
		}
		if startsBlank && s > 0 && isSpaceByte(body[s-1]) || endsBlank && end < len(body) && isSpaceByte(body[end]) {
			continue
		}
		cs = append(cs, candidate{start: s, end: end, old: old})
	}
	return cs
}

// oldLines splits old_string into lines; a final newline is reported, not
// kept as an empty last line.
func oldLines(old string) (ls []string, trailingNL bool) {
	trailingNL = strings.HasSuffix(old, "\n")
	ls = strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	return ls, trailingNL
}

// windowMatches finds runs of len(want) body lines whose lines, as norm
// sees them, are want's, overlapping runs included. It takes time linear
// in the lines of both (see occurrences).
func windowMatches(e *effort, body string, lines []line, old string, norm func(string) string) []candidate {
	want, trailingNL := oldLines(old)
	if len(want) > len(lines) || !e.spend(len(lines)+len(want)) {
		return nil
	}
	wk := make([]string, len(want))
	for k, w := range want {
		wk[k] = norm(w)
	}
	fk := make([]string, len(lines))
	for i, l := range lines {
		fk[i] = norm(l.text)
	}
	var cs []candidate
	for _, i := range occurrences(fk, wk, 0, -1) {
		if !e.spend(1) {
			return nil
		}
		cs = append(cs, lineCandidate(body, lines, i, i+len(want)-1, old, trailingNL))
	}
	return cs
}

// lineCandidate covers body lines first..last (inclusive), and the newline
// after them when old_string ended with one.
func lineCandidate(body string, lines []line, first, last int, old string, trailingNL bool) candidate {
	end := lines[last].end
	if trailingNL && end < len(body) {
		end++ // take the newline too, as old_string did
	}
	return candidate{start: lines[first].start, end: end, old: old, lineWise: true}
}

func trailingTrimmedMatches(e *effort, body string, lines []line, old string) []candidate {
	return windowMatches(e, body, lines, old, trimRight)
}

func trimRight(s string) string { return strings.TrimRight(s, " \t\r") }

func blockAnchorMatches(e *effort, body string, lines []line, old string) []candidate {
	return blockAnchorMatchesAt(e, body, lines, old, blockSimilarity)
}

// anchorLines splits old_string for the anchored layers: its lines, and
// its first and last lines (whitespace aside) as anchors. ok is false when
// old_string has under three lines or a blank anchor.
func anchorLines(old string) (want []string, trailingNL bool, first, last string, ok bool) {
	want, trailingNL = oldLines(old)
	if len(want) < 3 {
		return nil, false, "", "", false
	}
	first, last = key(want[0]), key(want[len(want)-1])
	return want, trailingNL, first, last, first != "" && last != ""
}

// blockAnchorMatchesAt: for three or more lines, the first and last lines
// (whitespace aside) anchor a block of about the same size whose middle is
// at least threshold similar (whitespace aside). Anchored blocks that
// overlap are one place cut in different ways, and the most similar cut
// stands for it; places within blockMargin of the best one are all
// returned, so a near tie is an ambiguity, not a guess.
func blockAnchorMatchesAt(e *effort, body string, lines []line, old string, threshold float64) []candidate {
	want, trailingNL, first, last, ok := anchorLines(old)
	if !ok {
		return nil
	}
	n := len(want)
	slack := max(1, n/10)
	wantMiddle := joinKeys(want[1 : n-1])
	wantKeys := nonBlankKeys(want[1 : n-1])
	floor := threshold - blockMargin
	type window struct {
		i, j int
		sim  float64
	}
	// One window per place, in body order. Windows that start within
	// slack lines of a place's first window are that place cut in
	// different ways; one that starts further on is another place, even
	// if it overlaps: in a file of repeated blocks, old_string anchors
	// once per block, and picking one would be a guess.
	var places []window
	var firsts []int
	for i := 0; i < len(lines); i++ {
		if !keyEquals(lines[i].text, first) {
			continue
		}
		w := window{i: i, j: -1}
		for j := max(i+2, i+n-1-slack); j <= i+n-1+slack && j < len(lines); j++ {
			if !e.spend(1) {
				return nil
			}
			if !keyEquals(lines[j].text, last) || !sameDepth(want[0], want[n-1], lines[i].text, lines[j].text) {
				continue
			}
			if !e.spend(2 * n) {
				return nil
			}
			mid := make([]string, 0, j-i-1)
			for k := i + 1; k < j; k++ {
				mid = append(mid, lines[k].text)
			}
			sim := lineSlips(wantKeys, nonBlankKeys(mid), slack)
			if got := joinKeys(mid); sim < floor && similarityBound(got, wantMiddle) >= floor {
				if !e.spend(similarityWork(got, wantMiddle)) {
					return nil
				}
				sim = similarity(got, wantMiddle)
			}
			if sim >= floor && (w.j < 0 || sim > w.sim) {
				w.j, w.sim = j, sim
			}
		}
		if w.j < 0 {
			continue
		}
		if k := len(places) - 1; k >= 0 && w.i <= firsts[k]+slack {
			if w.sim > places[k].sim {
				places[k] = w
			}
			continue
		}
		places = append(places, w)
		firsts = append(firsts, w.i)
	}
	best := 0.0
	for _, w := range places {
		best = max(best, w.sim)
	}
	if best < threshold {
		return nil
	}
	// A block whose middle is old_string's but for whitespace is a far
	// stronger sign than a near one: only identical middles compete with it.
	margin := blockMargin
	if best == 1 {
		margin = 0
	}
	var cs []candidate
	for _, w := range places {
		if w.sim >= best-margin {
			cs = append(cs, lineCandidate(body, lines, w.i, w.j, old, trailingNL))
		}
	}
	return cs
}

// lineLeftOut is the similarity of a block whose middle holds all of
// old_string's middle lines, in order, and one line more: a line the model
// left out is one slip, like a misremembered token, however long the line.
// A line the model has and the block lacks costs twice as much: more often
// than an invented line, it is the block that was cut a line short.
const lineLeftOut = 0.95

// lineSlips scores got, a block's middle lines, against want, old_string's
// (both as keys, blank lines dropped): 1 when equal; when one is the other
// with up to slack lines more, less a 1-lineLeftOut per line got has and
// twice that per line want has; 0 otherwise.
func lineSlips(want, got []string, slack int) float64 {
	short, long := want, got
	cost := 1 - lineLeftOut
	if len(short) > len(long) {
		short, long = long, short
		cost *= 2
	}
	extra := len(long) - len(short)
	if extra > slack {
		return 0
	}
	k := 0
	for _, l := range long {
		if k < len(short) && short[k] == l {
			k++
		}
	}
	if k < len(short) {
		return 0
	}
	return 1 - float64(extra)*cost
}

func nonBlankKeys(ls []string) []string {
	var ks []string
	for _, l := range ls {
		if k := key(l); k != "" {
			ks = append(ks, k)
		}
	}
	return ks
}

// sameDepth says whether the file's anchor lines fFirst and fLast sit at
// the depth to each other that old_string's oFirst and oLast do, so that a
// closing "}" does not anchor at an inner "\t}". A first line without
// indentation may also have been copied from after its indentation; then
// the last line's own indentation agreeing will do.
func sameDepth(oFirst, oLast, fFirst, fLast string) bool {
	if indentWidth(oLast)-indentWidth(oFirst) == indentWidth(fLast)-indentWidth(fFirst) {
		return true
	}
	return leadingWS(oFirst) == "" && indentWidth(oLast) == indentWidth(fLast)
}

// joinKeys joins the non-blank lines of ls as key sees them.
func joinKeys(ls []string) string {
	var b strings.Builder
	for _, l := range ls {
		if k := key(l); k != "" {
			b.WriteString(k)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func joinTrimmed(ls []string) string {
	var b strings.Builder
	for _, l := range ls {
		if t := strings.TrimSpace(l); t != "" {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// collapsedWhitespaceMatches compares with every run of whitespace (line
// breaks included) collapsed to one space.
func collapsedWhitespaceMatches(e *effort, body string, _ []line, old string) []candidate {
	want := collapse(strings.TrimSpace(old), nil)
	if want == "" {
		return nil
	}
	e.spend(len(body) / 64)
	var at []int
	norm := collapse(body, &at)
	var cs []candidate
	for off := 0; off <= len(norm); {
		i := strings.Index(norm[off:], want)
		if i < 0 {
			break
		}
		s, end := off+i, off+i+len(want)
		if !e.spend(len(want)/64 + 1) {
			return nil
		}
		cs = append(cs, collapsedCandidate(body, at[s], at[end-1]+runeLenAt(body, at[end-1]), old))
		off = s + 1
	}
	return cs
}

// collapsedCandidate turns a whitespace-collapsed match of body[start:end]
// into a candidate. A match that covers whole lines (but for indentation and
// trailing blanks) becomes a line-wise one; a match inside a line replaces
// just the matched text, with new_string's outer whitespace dropped as
// old_string's was.
func collapsedCandidate(body string, start, end int, old string) candidate {
	ls := strings.LastIndexByte(body[:start], '\n') + 1
	le := len(body)
	if nl := strings.IndexByte(body[end:], '\n'); nl >= 0 {
		le = end + nl
	}
	lead, trail := blankBoundary(old)
	if isBlank(body[ls:start]) && isBlank(body[end:le]) {
		return candidate{
			start: ls, end: le, lineWise: true,
			old:    trimBoundary(old, lead, trail),
			fixNew: func(s string) string { return trimBoundary(s, lead, trail) },
		}
	}
	trimL := strings.TrimLeft(old, " \t\r\n") != old
	trimR := strings.TrimRight(old, " \t\r\n") != old
	return candidate{start: start, end: end, old: old, fixNew: func(s string) string {
		if trimL {
			s = strings.TrimLeft(s, " \t\r\n")
		}
		if trimR {
			s = strings.TrimRight(s, " \t\r\n")
		}
		return s
	}}
}

// blankBoundary counts the line breaks before s's first non-blank line
// (its leading blank lines) and after its last non-blank line (its final
// newline and trailing blank lines).
func blankBoundary(s string) (lead, trail int) {
	t := strings.TrimLeft(s, " \t\r\n")
	lead = strings.Count(s[:len(s)-len(t)], "\n")
	u := strings.TrimRight(s, " \t\r\n")
	trail = strings.Count(s[len(u):], "\n")
	return lead, trail
}

// trimBoundary drops up to lead blank lines from the start of s and up to
// trail line breaks (with the blank lines they end) from its end. The
// first non-blank line keeps its indentation, the last its trailing blanks.
func trimBoundary(s string, lead, trail int) string {
	for ; lead > 0; lead-- {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 || !isBlank(s[:nl]) {
			break
		}
		s = s[nl+1:]
	}
	for ; trail > 0; trail-- {
		t := strings.TrimRight(s, " \t\r")
		if !strings.HasSuffix(t, "\n") {
			break
		}
		s = t[:len(t)-1]
	}
	return s
}

// collapse replaces runs of whitespace with one space; at (if not nil)
// receives, for each byte of the result, the body offset it came from.
func collapse(s string, at *[]int) string {
	var b strings.Builder
	b.Grow(len(s))
	if at != nil && cap(*at) < len(s) {
		*at = make([]int, 0, len(s))
	}
	inSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			if inSpace {
				continue
			}
			inSpace = true
			c = ' '
		} else {
			inSpace = false
		}
		b.WriteByte(c)
		if at != nil {
			*at = append(*at, i)
		}
	}
	return b.String()
}

func runeLenAt(s string, i int) int {
	if s[i] < 0x80 {
		return 1
	}
	n := 1
	for i+n < len(s) && s[i+n]&0xC0 == 0x80 {
		n++
	}
	return n
}

// indentFlexibleMatches compares lines with their indentation removed, but
// keeps the block's shape: each line must indent further, less or the same
// as the line before exactly where old_string's does.
func indentFlexibleMatches(e *effort, body string, lines []line, old string) []candidate {
	want, _ := oldLines(old)
	shape := indentShape(want)
	cs := windowMatches(e, body, lines, old, strings.TrimSpace)
	var kept []candidate
	for _, c := range cs {
		if !e.spend(len(want)) {
			return nil
		}
		got := splitLines(strings.TrimSuffix(body[c.start:c.end], "\n"))
		texts := make([]string, len(got))
		for i, l := range got {
			texts[i] = l.text
		}
		if equalInts(indentShape(texts), shape) {
			kept = append(kept, c)
		}
	}
	return kept
}

// indentShape is the sign of each indentation step between non-blank lines.
func indentShape(ls []string) []int {
	var shape []int
	prev := -1
	for _, l := range ls {
		if isBlank(l) {
			continue
		}
		w := indentWidth(l)
		if prev >= 0 {
			switch {
			case w > prev:
				shape = append(shape, 1)
			case w < prev:
				shape = append(shape, -1)
			default:
				shape = append(shape, 0)
			}
		}
		prev = w
	}
	return shape
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// escapeNormalizedMatches retries with old_string's escape sequences
// unescaped, for models that escaped text twice. new_string is unescaped
// too: a model escapes both the same way, unless new_string has real line
// breaks where old_string had none.
func escapeNormalizedMatches(e *effort, body string, lines []line, old string) []candidate {
	un := unescape(old)
	if un == old {
		return nil
	}
	for _, layer := range []func(*effort, string, []line, string) []candidate{exactMatches, trailingTrimmedMatches, indentFlexibleMatches} {
		if cs := layer(e, body, lines, un); len(cs) > 0 {
			for i := range cs {
				fileKeys := map[string]bool{}
				for _, l := range strings.Split(body[cs[i].start:cs[i].end], "\n") {
					fileKeys[key(l)] = true
				}
				cs[i].fixNew = func(s string) string { return unescapeLike(old, s, fileKeys) }
				cs[i].carryNew = unescape
				cs[i].asWrittenNew = func(s string) string { return s }
			}
			return cs
		}
	}
	return nil
}

var escapes = strings.NewReplacer(
	`\\`, `\`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\"`, `"`, `\'`, `'`, "\\`", "`", `\$`, `$`,
)

func unescape(s string) string { return escapes.Replace(s) }

// unescapeLike undoes, in nw, the escaping old_string had, line by line
// (lines as nw's real line breaks cut it): a model may escape some lines
// of new_string as it escaped old_string and write others as the file
// has them. A line that is the file's (fileKeys: the matched lines, as
// key sees them) stays as it is; one whose unescaped text is the file's
// is unescaped; any other is unescaped when it uses one of old_string's
// escape sequences (see repeatsEscaping).
func unescapeLike(old, nw string, fileKeys map[string]bool) string {
	parts := strings.Split(nw, "\n")
	for i, p := range parts {
		u := unescape(p)
		if u == p || fileKeys[key(p)] {
			continue
		}
		fromFile := true
		for _, l := range strings.Split(u, "\n") {
			if !fileKeys[key(l)] {
				fromFile = false
				break
			}
		}
		if fromFile || repeatsEscaping(old, p) {
			parts[i] = u
		}
	}
	return strings.Join(parts, "\n")
}

// repeatsEscaping says whether new_string is escaped the way old_string
// was, and so is to be unescaped like it: it uses one of old's escape
// sequences. A new_string in the file's form does not: where old has
// `\\n` for the file's `\n`, it has `\n`; where old has `\n` for line
// breaks, it has real line breaks. Unescaping it anyway would turn the
// file's `\n` into a line break inside a string literal.
func repeatsEscaping(old, nw string) bool {
	if !strings.Contains(old, "\n") && strings.Contains(nw, "\n") {
		return false
	}
	had := escapeSeqs(old)
	for e := range escapeSeqs(nw) {
		if had[e] {
			return true
		}
	}
	return false
}

// escapeSeqs are the escape sequences of s, read left to right as
// unescape reads them.
func escapeSeqs(s string) map[string]bool {
	seqs := map[string]bool{}
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if strings.IndexByte("\\ntr\"'`$", s[i+1]) >= 0 {
			seqs[s[i:i+2]] = true
			i++
		}
	}
	return seqs
}

// trimmedBoundaryMatches ignores blank lines at the start and end of
// old_string.
func trimmedBoundaryMatches(e *effort, body string, lines []line, old string) []candidate {
	lead, trail := blankBoundary(old)
	trimmed := trimBoundary(old, lead, trail)
	if trimmed == old || isBlank(trimmed) {
		return nil
	}
	cs := exactMatches(e, body, lines, trimmed)
	if len(cs) == 0 {
		cs = trailingTrimmedMatches(e, body, lines, trimmed)
	}
	for i := range cs {
		cs[i].fixNew = func(s string) string { return trimBoundary(s, lead, trail) }
	}
	return cs
}

// lineSlip is how alike a line the model misremembered must be to the
// file's line for the context-aware layer to take it as the same line.
const lineSlip = 0.5

// contextAwareMatches: first and last lines as anchors, the same number of
// lines, at least half of the middle lines equal (whitespace aside) and the
// others at least lineSlip similar.
func contextAwareMatches(e *effort, body string, lines []line, old string) []candidate {
	want, trailingNL, first, last, ok := anchorLines(old)
	if !ok {
		return nil
	}
	n := len(want)
	var cs []candidate
	for i := 0; i+n <= len(lines); i++ {
		if !e.spend(1) {
			return nil
		}
		if !keyEquals(lines[i].text, first) || !keyEquals(lines[i+n-1].text, last) ||
			!sameDepth(want[0], want[n-1], lines[i].text, lines[i+n-1].text) {
			continue
		}
		// A line that is not equal must still be a slip of the model's
		// line, not some other line: two equal braces around unrelated
		// code are not the block.
		equal, slips := 0, true
		for k := 1; k < n-1 && slips; k++ {
			wk := key(want[k])
			switch {
			case !e.spend(1):
				return nil
			case keyEquals(lines[i+k].text, wk):
				equal++
			case !e.spend(similarityWork(lines[i+k].text, wk)):
				return nil
			case similarity(key(lines[i+k].text), wk) < lineSlip:
				slips = false
			}
		}
		if slips && 2*equal >= n-2 {
			cs = append(cs, lineCandidate(body, lines, i, i+n-1, old, trailingNL))
		}
	}
	return cs
}
