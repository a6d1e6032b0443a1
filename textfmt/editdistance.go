package textfmt

import "slices"

// The one edit distance of cchub: "did you mean" for paths and field
// names counts typos (transpositions too), textedit's forgiving match
// measures how alike two texts are, by runes or by whole lines. Each is a
// way of calling distance.

// EditDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and adjacent transpositions each
// cost 1, over bytes), or some value above limit once it is sure to exceed
// it.
func EditDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	return distance([]byte(a), []byte(b), nil, nil, true, limit)
}

// Levenshtein is the edit distance between a and b: inserting, deleting
// or replacing an element costs 1.
func Levenshtein[E comparable](a, b []E) int {
	return distance(a, b, nil, nil, false, maxInt)
}

// WeightedLevenshtein is the edit distance between a and b where an
// element costs its weight (wa[i] for a[i], wb[j] for b[j], as many as
// there are elements) to insert or delete, and the larger of the two
// weights to replace by another.
func WeightedLevenshtein[E comparable](a, b []E, wa, wb []int) int {
	return distance(a, b, wa, wb, false, maxInt)
}

const maxInt = int(^uint(0) >> 1)

// distance is the edit distance between a and b, by the usual table kept
// a row at a time. Elements weigh 1 where wa and wb are nil (both are, or
// neither). With transpose (unit weights only), swapping two adjacent
// elements costs 1 (optimal string alignment). Once a whole row is above
// limit, so is the answer, and it returns limit+1.
func distance[E comparable](a, b []E, wa, wb []int, transpose bool, limit int) int {
	// The shorter sequence spans the row: the distance is symmetric.
	if len(a) < len(b) {
		a, b, wa, wb = b, a, wb, wa
	}
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	var prev2 []int
	if transpose {
		prev2 = make([]int, len(b)+1)
	}
	for j := 1; j <= len(b); j++ {
		prev[j] = prev[j-1] + weight(wb, j-1)
	}
	for i := 1; i <= len(a); i++ {
		wi := weight(wa, i-1)
		cur[0] = prev[0] + wi
		if wa == nil && wb == nil {
			// Every weight 1: the hot loop of textedit's forgiving match,
			// and the only form with transpositions.
			for j := 1; j <= len(b); j++ {
				cost := 1
				if a[i-1] == b[j-1] {
					cost = 0
				}
				v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
				if transpose && i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
					v = min(v, prev2[j-2]+1)
				}
				cur[j] = v
			}
		} else {
			for j := 1; j <= len(b); j++ {
				wj := wb[j-1]
				cost := max(wi, wj)
				if a[i-1] == b[j-1] {
					cost = 0
				}
				cur[j] = min(prev[j]+wi, cur[j-1]+wj, prev[j-1]+cost)
			}
		}
		if limit < maxInt && slices.Min(cur) > limit {
			return limit + 1
		}
		if transpose {
			prev2, prev, cur = prev, cur, prev2
		} else {
			prev, cur = cur, prev
		}
	}
	return prev[len(b)]
}

func weight(ws []int, i int) int {
	if ws == nil {
		return 1
	}
	return ws[i]
}
