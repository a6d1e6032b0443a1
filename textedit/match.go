package textedit

import (
	"strings"
)

// candidate is one place old_string may mean: a byte range of the body and,
// for matches made line by line, what the replacement must be re-indented
// from and to.
type candidate struct {
	start, end int
	// lineWise is set when the match compared whole lines; then new_string's
	// indentation is carried from fromIndent (old_string's) to toIndent
	// (the file's).
	lineWise             bool
	fromIndent, toIndent string
	// A layer that rewrote old_string rewrites new_string the same way:
	// unescapeNew unescapes it, trimNewBoundary drops its blank first and
	// last lines.
	unescapeNew, trimNewBoundary bool
}

// blockSimilarity is how alike the middle lines of a block-anchored match
// must be (joined, whitespace-trimmed, edit-distance similarity). Peers that
// used 0 or 0.3 here replaced whole functions on the strength of two brace
// lines; TestBlockAnchorThreshold shows 0.85 rescues one or two misremembered
// tokens per line and refuses a different function with the same first and
// last lines.
const blockSimilarity = 0.85

// layers are tried in order; the first that finds any candidate decides.
var layers = []func(body string, lines []line, old string) []candidate{
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
// (nil if none found old).
func findCandidates(body, old string) []candidate {
	lines := splitLines(body)
	for _, layer := range layers {
		if cs := layer(body, lines, old); len(cs) > 0 {
			return cs
		}
	}
	return nil
}

func exactMatches(body string, _ []line, old string) []candidate {
	var cs []candidate
	for off := 0; off <= len(body); {
		i := strings.Index(body[off:], old)
		if i < 0 {
			break
		}
		cs = append(cs, candidate{start: off + i, end: off + i + len(old)})
		off += i + len(old)
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

// windowMatches finds runs of len(want) body lines that eq accepts line by
// line.
func windowMatches(body string, lines []line, old string, eq func(file, want string) bool) []candidate {
	want, trailingNL := oldLines(old)
	n := len(want)
	var cs []candidate
	for i := 0; i+n <= len(lines); i++ {
		ok := true
		for k := 0; k < n; k++ {
			if !eq(lines[i+k].text, want[k]) {
				ok = false
				break
			}
		}
		if ok {
			cs = append(cs, lineCandidate(body, lines, i, i+n-1, want, trailingNL))
			i += n - 1
		}
	}
	return cs
}

// lineCandidate covers body lines first..last (inclusive), with the
// indentation of old's first non-blank line and the file's.
func lineCandidate(body string, lines []line, first, last int, want []string, trailingNL bool) candidate {
	end := lines[last].end
	if trailingNL && end < len(body) {
		end++ // take the newline too, as old_string did
	}
	c := candidate{start: lines[first].start, end: end, lineWise: true}
	for _, w := range want {
		if !isBlank(w) {
			c.fromIndent = leadingWS(w)
			break
		}
	}
	for k := first; k <= last; k++ {
		if !isBlank(lines[k].text) {
			c.toIndent = leadingWS(lines[k].text)
			break
		}
	}
	return c
}

func trailingTrimmedMatches(body string, lines []line, old string) []candidate {
	return windowMatches(body, lines, old, func(f, w string) bool {
		return strings.TrimRight(f, " \t\r") == strings.TrimRight(w, " \t\r")
	})
}

// blockAnchorMatches: for three or more lines, the first and last lines
// (trimmed) anchor a block of about the same size whose middle is similar.
func blockAnchorMatches(body string, lines []line, old string) []candidate {
	want, trailingNL := oldLines(old)
	n := len(want)
	if n < 3 {
		return nil
	}
	first, last := strings.TrimSpace(want[0]), strings.TrimSpace(want[n-1])
	if first == "" || last == "" {
		return nil
	}
	slack := max(1, n/10)
	wantMiddle := joinTrimmed(want[1 : n-1])
	var cs []candidate
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i].text) != first {
			continue
		}
		best, bestSim := -1, 0.0
		for j := i + n - 1 - slack; j <= i+n-1+slack && j < len(lines); j++ {
			if j <= i+1 || strings.TrimSpace(lines[j].text) != last {
				continue
			}
			mid := make([]string, 0, j-i-1)
			for k := i + 1; k < j; k++ {
				mid = append(mid, lines[k].text)
			}
			if sim := similarity(joinTrimmed(mid), wantMiddle); sim >= blockSimilarity && sim > bestSim {
				best, bestSim = j, sim
			}
		}
		if best >= 0 {
			cs = append(cs, lineCandidate(body, lines, i, best, want, trailingNL))
			i = best
		}
	}
	return cs
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
func collapsedWhitespaceMatches(body string, _ []line, old string) []candidate {
	want := collapse(strings.TrimSpace(old), nil)
	if want == "" {
		return nil
	}
	var at []int
	norm := collapse(body, &at)
	var cs []candidate
	for off := 0; off <= len(norm); {
		i := strings.Index(norm[off:], want)
		if i < 0 {
			break
		}
		s, e := off+i, off+i+len(want)
		cs = append(cs, candidate{start: at[s], end: at[e-1] + runeLenAt(body, at[e-1])})
		off = e
	}
	return cs
}

// collapse replaces runs of whitespace with one space; at (if not nil)
// receives, for each byte of the result, the body offset it came from.
func collapse(s string, at *[]int) string {
	var b strings.Builder
	b.Grow(len(s))
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
func indentFlexibleMatches(body string, lines []line, old string) []candidate {
	want, _ := oldLines(old)
	shape := indentShape(want)
	cs := windowMatches(body, lines, old, func(f, w string) bool {
		return strings.TrimSpace(f) == strings.TrimSpace(w)
	})
	var kept []candidate
	for _, c := range cs {
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
// unescaped, for models that escaped text twice.
func escapeNormalizedMatches(body string, lines []line, old string) []candidate {
	un := unescape(old)
	if un == old {
		return nil
	}
	for _, layer := range []func(string, []line, string) []candidate{exactMatches, trailingTrimmedMatches, indentFlexibleMatches} {
		if cs := layer(body, lines, un); len(cs) > 0 {
			return markUnescapeNew(cs, old)
		}
	}
	return nil
}

// markUnescapeNew flags candidates so that new_string is unescaped too when
// it looks escaped the same way: old_string held escaped line breaks and no
// real ones.
func markUnescapeNew(cs []candidate, old string) []candidate {
	if strings.Contains(old, "\n") || !strings.Contains(old, `\n`) {
		return cs
	}
	for i := range cs {
		cs[i].unescapeNew = true
	}
	return cs
}

var escapes = strings.NewReplacer(
	`\\`, `\`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\"`, `"`, `\'`, `'`, "\\`", "`", `\$`, `$`,
)

func unescape(s string) string { return escapes.Replace(s) }

// trimmedBoundaryMatches ignores blank lines at the start and end of
// old_string.
func trimmedBoundaryMatches(body string, lines []line, old string) []candidate {
	trimmed := strings.Trim(old, "\n")
	for strings.HasPrefix(trimmed, " ") || strings.HasPrefix(trimmed, "\t") {
		// A leading line of only blanks is a blank line too.
		nl := strings.IndexByte(trimmed, '\n')
		if nl < 0 || !isBlank(trimmed[:nl]) {
			break
		}
		trimmed = trimmed[nl+1:]
	}
	if trimmed == old || trimmed == "" {
		return nil
	}
	cs := exactMatches(body, lines, trimmed)
	if len(cs) == 0 {
		cs = trailingTrimmedMatches(body, lines, trimmed)
	}
	for i := range cs {
		cs[i].trimNewBoundary = true
	}
	return cs
}

// contextAwareMatches: first and last lines as anchors, the same number of
// lines, and at least half of the middle lines equal (trimmed).
func contextAwareMatches(body string, lines []line, old string) []candidate {
	want, trailingNL := oldLines(old)
	n := len(want)
	if n < 3 {
		return nil
	}
	first, last := strings.TrimSpace(want[0]), strings.TrimSpace(want[n-1])
	if first == "" || last == "" {
		return nil
	}
	var cs []candidate
	for i := 0; i+n <= len(lines); i++ {
		if strings.TrimSpace(lines[i].text) != first || strings.TrimSpace(lines[i+n-1].text) != last {
			continue
		}
		equal := 0
		for k := 1; k < n-1; k++ {
			if strings.TrimSpace(lines[i+k].text) == strings.TrimSpace(want[k]) {
				equal++
			}
		}
		if 2*equal >= n-2 {
			cs = append(cs, lineCandidate(body, lines, i, i+n-1, want, trailingNL))
			i += n - 1
		}
	}
	return cs
}
