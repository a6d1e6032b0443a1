package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 3, 0},
		{"main.go", "main.go", 3, 0},
		{"mian.go", "main.go", 3, 1}, // a transposition is one typo
		{"man.go", "main.go", 3, 1},
		{"kitten", "sitting", 3, 3},
		{"ca", "abc", 3, 3},        // optimal string alignment: no edit of a transposed pair
		{"a", "abcdef", 2, 3},      // lengths alone exceed the limit
		{"abcdef", "uvwxyz", 2, 3}, // a row above the limit stops early
		{"internal/wrokspace/root.go", "internal/workspace/root.go", 2, 1},
	} {
		if got := EditDistance(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("EditDistance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
		if got := EditDistance(tc.b, tc.a, tc.limit); got != tc.want {
			t.Errorf("EditDistance(%q, %q, %d) = %d, want %d (not symmetric)", tc.b, tc.a, tc.limit, got, tc.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"ab", "ba", 2},       // no transpositions
		{"héllo", "hello", 1}, // runes, not bytes
	} {
		if got := Levenshtein([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestWeightedLevenshtein(t *testing.T) {
	weights := func(ls []string) []int {
		w := make([]int, len(ls))
		for i, l := range ls {
			w[i] = utf8.RuneCountInString(l) + 1
		}
		return w
	}
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"a\nbb\nccc", "a\nbb\nccc", 0},
		{"a\nbb\nccc", "a\nccc", 3},      // a line deleted costs its weight
		{"a\nbb\nccc", "a\nxyz\nccc", 4}, // a line replaced costs the heavier one
		{"", "abc", 4},
	} {
		la, lb := strings.Split(tc.a, "\n"), strings.Split(tc.b, "\n")
		if got := WeightedLevenshtein(la, lb, weights(la), weights(lb)); got != tc.want {
			t.Errorf("WeightedLevenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := WeightedLevenshtein(lb, la, weights(lb), weights(la)); got != tc.want {
			t.Errorf("WeightedLevenshtein(%q, %q) = %d, want %d (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}
