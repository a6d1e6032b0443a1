package textedit

import (
	"slices"
	"strings"
)

// line is one line of a body: its byte range without the newline.
type line struct {
	start, end int
	text       string
}

func splitLines(body string) []line {
	ls := make([]line, 0, strings.Count(body, "\n")+1)
	start := 0
	for start <= len(body) {
		nl := strings.IndexByte(body[start:], '\n')
		if nl < 0 {
			if start < len(body) {
				ls = append(ls, line{start, len(body), body[start:]})
			}
			break
		}
		ls = append(ls, line{start, start + nl, body[start : start+nl]})
		start += nl + 1
	}
	return ls
}

// lineAt is the 1-based line number of byte offset off.
func lineAt(body string, off int) int {
	return 1 + strings.Count(body[:off], "\n")
}

func leadingWS(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// indentWidth measures leading whitespace with tabs as 4 columns; it is
// only compared with widths of the same text's other lines.
func indentWidth(s string) int {
	w := 0
	for _, c := range s {
		switch c {
		case ' ':
			w++
		case '\t':
			w += 4
		default:
			return w
		}
	}
	return w
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// A model that copies lines from read or grep output into old_string may
// copy their numbers too: "12\tcode" (or the older "    12\tcode").
// stripLineNumbers says whether every line of s carries such a prefix, the
// numbers consecutive, and returns s without them. A line that is only its
// number is an empty line whose tab the model trimmed (bare lists them);
// at least one line must have the tab.
func stripLineNumbers(s string) (plain string, nums copiedNumbers, ok bool) {
	ls, trailingNL := oldLines(s)
	prev, tabs := 0, 0
	for i, l := range ls {
		n, rest, tab, ok := cutLineNumber(l)
		if !ok || i > 0 && n != prev+1 {
			return "", copiedNumbers{}, false
		}
		if i == 0 {
			nums.first = n
		}
		if tab {
			tabs++
		} else {
			nums.bare = append(nums.bare, l)
		}
		prev, ls[i] = n, rest
	}
	if tabs == 0 {
		return "", copiedNumbers{}, false
	}
	nums.last = prev
	plain = strings.Join(ls, "\n")
	if trailingNL {
		plain += "\n"
	}
	return plain, nums, true
}

// copiedNumbers are the line numbers old_string was copied with: its first
// and last, and the lines that were only a number.
type copiedNumbers struct {
	first, last int
	bare        []string
}

// numberedLines says whether every line of s starts with a line number and
// a tab, consecutive or not (lines copied from grep output, say).
func numberedLines(s string) bool {
	ls, _ := oldLines(s)
	for _, l := range ls {
		if _, _, tab, ok := cutLineNumber(l); !ok || !tab {
			return false
		}
	}
	return true
}

// stripLineNumberPrefixes drops the number prefix from each line of
// new_string that has one in the range old_string was copied from (its
// copied lines carry numbers, its new lines do not; a new line that starts
// with some other number and a tab, a row of a TSV file, keeps it), and
// empties the lines that are one of old_string's bare numbers.
func stripLineNumberPrefixes(s string, nums copiedNumbers) string {
	ls := strings.Split(s, "\n")
	hi := nums.last + len(ls) // numbering the model carried on past an insertion
	for i, l := range ls {
		n, rest, tab, ok := cutLineNumber(l)
		switch {
		case !ok || n < nums.first || n > hi:
		case tab:
			ls[i] = rest
		case slices.Contains(nums.bare, l):
			ls[i] = ""
		}
	}
	return strings.Join(ls, "\n")
}

// cutLineNumber splits "12\tcode" (also "    12\tcode") into 12 and "code";
// tab is false for a line that is only a number ("12"), taken as an empty
// line whose tab was trimmed.
func cutLineNumber(l string) (n int, rest string, tab, ok bool) {
	i := len(l) - len(strings.TrimLeft(l, " "))
	j := i
	for j < len(l) && l[j] >= '0' && l[j] <= '9' && j-i < 9 {
		n = n*10 + int(l[j]-'0')
		j++
	}
	if j == i || n == 0 {
		return 0, "", false, false
	}
	switch {
	case j == len(l):
		return n, "", false, true
	case l[j] == '\t':
		return n, l[j+1:], true, true
	}
	return 0, "", false, false
}
