package textedit

import (
	"strings"
	"unicode/utf8"

	"cchub/textfmt"
)

// similarity is 1 - Levenshtein(a, b) / max(len(a), len(b)) over runes: 1
// for equal strings, 0 for nothing in common.
// Texts larger than that (as runes of one times runes of the other) are
// compared line by line.
func similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 && len(rb) == 0 {
		return 1
	}
	if len(ra)*len(rb) > maxSimilarityCells {
		return lineSimilarity(a, b)
	}
	d := textfmt.Levenshtein(ra, rb)
	return 1 - float64(d)/float64(max(len(ra), len(rb)))
}

// maxSimilarityCells bounds the character-level comparison, which is
// quadratic: two blocks of a few hundred lines would take seconds.
const maxSimilarityCells = 1 << 21

// lineSimilarity is similarity with whole lines as the units of edit: a
// line kept costs nothing, a line inserted, deleted or changed costs its
// length in runes. It is never more forgiving than the character-level
// measure.
func lineSimilarity(a, b string) float64 {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	wa, wb := make([]int, len(la)), make([]int, len(lb))
	total := func(ls []string, w []int) int {
		t := 0
		for i, l := range ls {
			w[i] = utf8.RuneCountInString(l) + 1
			t += w[i]
		}
		return t
	}
	ta, tb := total(la, wa), total(lb, wb)
	return 1 - float64(textfmt.WeightedLevenshtein(la, lb, wa, wb))/float64(max(ta, tb))
}

// similarityBound is an upper bound of similarity(a, b) from the lengths
// alone: the edit distance is at least the difference in length.
func similarityBound(a, b string) float64 {
	la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
	if la == 0 && lb == 0 {
		return 1
	}
	return 1 - float64(max(la, lb)-min(la, lb))/float64(max(la, lb))
}

// similarityWork is what similarity(a, b) costs, in the units of effort
// (a line compared is one; 64 cells of the character table are one).
func similarityWork(a, b string) int {
	if cells := len(a) * len(b); cells <= maxSimilarityCells {
		return cells/64 + 1
	}
	return (strings.Count(a, "\n") + 1) * (strings.Count(b, "\n") + 1)
}
