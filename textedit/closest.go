package textedit

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"cchub/textfmt"
)

// The closest text to an old_string that is not in the file is chosen by
// the lines they share, as anchor places a quote: a line of old_string
// found whole in the file (whitespace at its ends and inside aside) says
// where the model copied from far better than shared words do (every
// method of a Go type shares `func (c *Command)` with every other). Lines
// that say nothing (blank, a lone brace, `return`, `else`) are not
// counted, and a line the file holds many times counts for less than one
// it holds once. Fuzzy similarity only breaks ties between places that
// share equally.

// closest is where the text nearest old_string is, and how it differs.
type closest struct {
	first, last int      // 1-based lines of the place, inclusive
	shared      int      // distinct telling lines of old_string found there
	telling     int      // distinct telling lines of old_string
	whole       bool     // chosen by shared lines (false: by similarity alone)
	differ      []int    // lines of the place that are not lines of old_string
	missing     []string // lines of old_string (trimmed) not at the place
}

// minClosestScore is how much shared evidence a place needs: one line the
// file holds at most twice, or several it holds a few times. A line the
// file holds everywhere (`if err != nil {`) names no place.
const minClosestScore = 0.5

// maxTied bounds the places that share equally with old_string that are
// compared further (the first ones in the file).
const maxTied = 64

// trivialLines say nothing about where they came from.
var trivialLines = map[string]bool{
	"return": true, "else": true, "} else {": true, "else:": true, "break": true,
	"continue": true, "default:": true, "end": true, "pass": true, "fi": true,
	"done": true, "return nil": true, "return err": true, "return false": true,
	"return true": true, "try:": true, "finally:": true,
}

// telling says whether a line's key (see key) is evidence of a place.
func telling(k string) bool {
	if k == "" || trivialLines[k] {
		return false
	}
	return strings.IndexFunc(k, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// findClosest finds the place old_string most likely stands for. ok is
// false when no place shares enough with it.
func findClosest(e *effort, body, old string) (c closest, ok bool) {
	want, _ := oldLines(old)
	lines := splitLines(body)
	if len(lines) == 0 || !e.spend(len(lines)+len(want)) {
		return c, false
	}
	// The telling lines of old_string, each with its first and last index.
	oldAt := map[string]span{}
	for i, w := range want {
		k := key(w)
		if !telling(k) {
			continue
		}
		if s, seen := oldAt[k]; seen {
			s.hi = i
			oldAt[k] = s
		} else {
			oldAt[k] = span{i, i}
		}
	}
	c.telling = len(oldAt)
	if len(oldAt) == 0 {
		return c, false
	}
	var hits []hit
	freq := map[string]int{}
	for i, l := range lines {
		k := key(l.text)
		if _, in := oldAt[k]; in {
			hits = append(hits, hit{i, k})
			freq[k]++
		}
	}
	if c, ok := placeByHits(e, hits, freq, oldAt, want, lines); ok {
		c.whole = true
		return c, true
	}
	// No line is the file's whole: a name renamed throughout (sku for
	// id) changes every line a little. A file line very like one of
	// old_string's then counts as that line.
	if hits, freq := nearHits(e, oldAt, lines); len(hits) > 0 {
		if c, ok := placeByHits(e, hits, freq, oldAt, want, lines); ok {
			return c, true
		}
	}
	return findSimilar(e, want, lines)
}

// hit is a file line (0-based) that stands for old_string's line k.
type hit struct {
	pos int
	k   string
}

// span is where a line of old_string first and last is, 0-based.
type span struct{ lo, hi int }

// nearLine is how similar a file line must be to a line of old_string to
// stand for it when no line is shared whole.
const nearLine = 0.75

// nearHits are the file lines very like a telling line of old_string,
// each standing for the most like one, with how many stand for each.
func nearHits(e *effort, oldAt map[string]span, lines []line) ([]hit, map[string]int) {
	keys := make([]string, 0, len(oldAt))
	for k := range oldAt {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var hits []hit
	freq := map[string]int{}
	for i, l := range lines {
		k := key(l.text)
		if !telling(k) {
			continue
		}
		bestK, bestS := "", nearLine
		for _, ok := range keys {
			if similarityBound(k, ok) <= bestS {
				continue
			}
			if !e.spend(similarityWork(k, ok)) {
				return hits, freq
			}
			if sim := similarity(k, ok); sim > bestS {
				bestK, bestS = ok, sim
			}
		}
		if bestK != "" {
			hits = append(hits, hit{i, bestK})
			freq[bestK]++
		}
	}
	return hits, freq
}

// placeByHits is the place the hits say old_string is: the window of
// lines a little longer than it where the hits weigh most (a line the
// file holds k times weighs 1/k), spread to where its first and last
// lines would be; between equal windows, the text most like it.
func placeByHits(e *effort, hits []hit, freq map[string]int, oldAt map[string]span, want []string, lines []line) (c closest, ok bool) {
	c.telling = len(oldAt)
	if len(hits) == 0 {
		return c, false
	}
	n := len(want)
	// Windows a little longer than old_string, so that lines the model
	// dropped or added do not split the place; each starts at a hit.
	width := n + max(3, n/2)
	type window struct {
		l, r  int // hits[l:r]
		score float64
	}
	var best []window
	count := map[string]int{}
	score, r := 0.0, 0
	for l := range hits {
		for r < len(hits) && hits[r].pos < hits[l].pos+width {
			if count[hits[r].k]++; count[hits[r].k] == 1 {
				score += 1 / float64(freq[hits[r].k])
			}
			r++
		}
		const eps = 1e-9
		switch {
		case len(best) == 0 || score > best[0].score+eps:
			best = append(best[:0], window{l, r, score})
		case score > best[0].score-eps && len(best) < maxTied:
			best = append(best, window{l, r, score})
		}
		if count[hits[l].k]--; count[hits[l].k] == 0 {
			score -= 1 / float64(freq[hits[l].k])
		}
	}
	if !e.spend(len(hits)) || best[0].score < minClosestScore {
		return c, false
	}
	// Each window's place.
	type place struct{ first, last int }
	var places []place
	for _, w := range best {
		// Where old_string's first line would be by each hit; the most
		// common guess wins. From a hit that guessed it, the hits on
		// either side are taken while their guesses drift by a few lines
		// at a time (lines dropped or added): a line old_string shares
		// with a function further off is a jump, and does not stretch
		// the place.
		hs := hits[w.l:w.r]
		guess := func(h hit) int { return h.pos - oldAt[h.k].lo }
		votes := map[int]int{}
		start, most, m := 0, 0, 0
		for j, h := range hs {
			g := guess(h)
			if votes[g]++; votes[g] > most || votes[g] == most && g < start {
				start, most, m = g, votes[g], j
			}
		}
		const drift = 3
		// The place runs from the first hit taken back to where old_string's
		// first line would be, to the last one on to where its last would be.
		p := place{first: hs[m].pos - oldAt[hs[m].k].lo, last: hs[m].pos + n - 1 - oldAt[hs[m].k].hi}
		take := func(h hit) {
			if h.pos < hs[m].pos {
				p.first = h.pos - oldAt[h.k].lo
			} else {
				p.last = h.pos + n - 1 - oldAt[h.k].hi
			}
		}
		for j, prev := m-1, start; j >= 0; j-- {
			if g := guess(hs[j]); g >= prev-drift && g <= prev+drift {
				take(hs[j])
				prev = g
			}
		}
		for j, prev := m+1, start; j < len(hs); j++ {
			if g := guess(hs[j]); g >= prev-drift && g <= prev+drift {
				take(hs[j])
				prev = g
			}
		}
		p.first, p.last = max(0, p.first), min(len(lines)-1, p.last)
		// Windows of one place overlap; keep the first of each.
		if k := len(places) - 1; k >= 0 && p.first <= places[k].last {
			continue
		}
		places = append(places, p)
	}
	chosen := places[0]
	if len(places) > 1 {
		wantText := joinTrimmed(want)
		bestSim := -1.0
		for _, p := range places[:min(len(places), 5)] {
			texts := make([]string, 0, p.last-p.first+1)
			for i := p.first; i <= p.last; i++ {
				texts = append(texts, lines[i].text)
			}
			got := joinTrimmed(texts)
			if !e.spend(similarityWork(got, wantText)) {
				break // the first place rather than a slow hint
			}
			if sim := similarity(got, wantText); sim > bestSim {
				chosen, bestSim = p, sim
			}
		}
	}
	c.first, c.last = chosen.first+1, chosen.last+1
	c.describe(want, lines)
	return c, true
}

// findSimilar is the closest place for an old_string that shares no line
// with the file: only a short one (a line or two, where one changed word
// leaves nothing shared), and only text very like it.
func findSimilar(e *effort, want []string, lines []line) (c closest, ok bool) {
	var tell []string
	for _, w := range want {
		if telling(key(w)) {
			tell = append(tell, w)
		}
	}
	if len(tell) == 0 || len(tell) > 2 || len(want) > 4 || len(want) > len(lines) {
		return c, false
	}
	wantText := joinTrimmed(want)
	n := len(want)
	best, bestSim := -1, 0.8
	for i := 0; i+n <= len(lines); i++ {
		texts := make([]string, n)
		for k := range texts {
			texts[k] = lines[i+k].text
		}
		got := joinTrimmed(texts)
		if similarityBound(got, wantText) <= bestSim {
			continue
		}
		if !e.spend(similarityWork(got, wantText)) {
			break
		}
		if sim := similarity(got, wantText); sim > bestSim {
			best, bestSim = i, sim
		}
	}
	if best < 0 {
		return c, false
	}
	c.first, c.last = best+1, best+n
	c.describe(want, lines)
	return c, true
}

// describe fills in how the place differs from old_string, line by line.
func (c *closest) describe(want []string, lines []line) {
	oldKeys := map[string]bool{}
	for _, w := range want {
		oldKeys[key(w)] = true
	}
	hereKeys := map[string]bool{}
	for i := c.first; i <= c.last; i++ {
		k := key(lines[i-1].text)
		if !hereKeys[k] && oldKeys[k] && telling(k) {
			c.shared++
		}
		hereKeys[k] = true
		if k != "" && !oldKeys[k] {
			c.differ = append(c.differ, i)
		}
	}
	seen := map[string]bool{}
	for _, w := range want {
		if k := key(w); k != "" && !hereKeys[k] && !seen[k] {
			seen[k] = true
			c.missing = append(c.missing, strings.TrimSpace(w))
		}
	}
}

// Bounds of the hint, so that it fits in an error a client shows whole.
const (
	hintMaxLines    = 30  // lines listed at most
	hintMaxLineLen  = 160 // bytes of a listed line
	hintMaxMissing  = 4   // lines of old_string quoted at most
	hintMissingLen  = 100 // bytes of a quoted line
	hintListContext = 2   // unchanged lines listed around a differing one
	hintMaxBytes    = 3200
)

// hint writes the place, its lines numbered (the differing ones and a
// little around them when the place is long), and what differs.
func (c closest) hint(body, path string) string {
	lines := splitLines(body)
	var b strings.Builder
	fmt.Fprintf(&b, ". The closest text is at %s (read path=%s offset=%d limit=%d)", textfmt.Place(path, c.first, c.last), path, c.first, c.last-c.first+1)
	if c.whole {
		fmt.Fprintf(&b, ", which holds %d of old_string's %d distinctive lines", c.shared, c.telling)
	}
	switch {
	case len(c.differ) == 0 && len(c.missing) == 0:
		b.WriteString("; its lines are old_string's, in another order or with other blank lines")
	case len(c.differ) == 0:
		b.WriteString("; no line there differs from old_string's")
	default:
		fmt.Fprintf(&b, "; not in old_string: %s %s", pick(len(c.differ) == 1, "line", "lines"), spanList(c.differ))
	}
	if len(c.missing) > 0 {
		fmt.Fprintf(&b, ". Not in the file there: old_string's %s", pick(len(c.missing) == 1, "line", fmt.Sprintf("%d lines", len(c.missing))))
		for i, m := range c.missing {
			if i == hintMaxMissing {
				fmt.Fprintf(&b, " and %d more", len(c.missing)-i)
				break
			}
			fmt.Fprintf(&b, " `%s`", clipText(m, hintMissingLen))
		}
	}
	b.WriteString(". Copy old_string from these lines:\n")
	show := make([]bool, c.last-c.first+1)
	if len(show) <= hintMaxLines {
		for i := range show {
			show[i] = true
		}
	} else {
		// The differing lines with a little context, the first and last line.
		show[0], show[len(show)-1] = true, true
		for _, d := range c.differ {
			for i := max(0, d-c.first-hintListContext); i <= min(len(show)-1, d-c.first+hintListContext); i++ {
				show[i] = true
			}
		}
	}
	listed, gap := 0, 0
	for i, s := range show {
		if !s || listed >= hintMaxLines || b.Len()+len(lines[c.first+i-1].text) > hintMaxBytes {
			gap++
			continue
		}
		if gap > 0 {
			fmt.Fprintf(&b, "...\t(%s)\n", plural(gap, "line"))
			gap = 0
		}
		textfmt.WriteLine(&b, c.first+i, clipText(lines[c.first+i-1].text, hintMaxLineLen))
		listed++
	}
	if gap > 0 {
		fmt.Fprintf(&b, "...\t(%s)\n", plural(gap, "line"))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// spanList writes sorted line numbers as runs: "12, 15-17".
func spanList(ns []int) string {
	ns = slices.Clone(ns)
	sort.Ints(ns)
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		parts = append(parts, textfmt.Span(ns[i], ns[j]))
		if len(parts) == 10 && j+1 < len(ns) {
			parts = append(parts, fmt.Sprintf("and %d more", len(ns)-j-1))
			break
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// clipText cuts s to at most n bytes on a rune boundary, saying so.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes more)", len(s)-cut)
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
