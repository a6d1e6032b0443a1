package anchor

import (
	"strings"
)

// A quote is compared with code line by line, each line with the
// whitespace around it trimmed, so a re-indented quote, trailing spaces
// and CRLF line ends still match. A quoted line may keep the diff marker
// it was copied with (+, - or a space): it matches with or without it, so
// code that itself starts with + or - (`-1`, `+ "suffix"`) is found too.
// Nothing else is forgiven: a paraphrased line never matches, because a
// quote placed on the wrong lines is worse than one left unplaced.

// quoteLines is the snippet as lines to match: CR dropped, blank lines at
// its start and end (a line that is only a diff marker counts as blank)
// removed.
func quoteLines(snippet string) []string {
	lines := strings.Split(strings.ReplaceAll(snippet, "\r\n", "\n"), "\n")
	for len(lines) > 0 && blankQuoted(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blankQuoted(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func blankQuoted(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || t == "+" || t == "-"
}

// sameLine says whether quoted line q stands for code line c.
func sameLine(q, c string) bool {
	c = strings.TrimSpace(c)
	if strings.TrimSpace(q) == c {
		return true
	}
	if q != "" && (q[0] == '+' || q[0] == '-' || q[0] == ' ') {
		return strings.TrimSpace(q[1:]) == c
	}
	return false
}

// region is a run of consecutive code lines: a file, or the new side of
// one hunk of a diff. first is the line number of lines[0].
type region struct {
	path  string
	first int
	lines []string
}

// place is where a quote matched: lines start..end of path, inclusive.
type place struct {
	path       string
	start, end int
	lines      []string // the code's own lines there, verbatim
}

// find returns every place in regions where the quote's lines stand for
// consecutive code lines.
func find(q []string, regions []region) []place {
	var out []place
	if len(q) == 0 {
		return nil
	}
	for _, r := range regions {
		for i := 0; i+len(q) <= len(r.lines); i++ {
			ok := true
			for k := range q {
				if !sameLine(q[k], r.lines[i+k]) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, place{path: r.path, start: r.first + i, end: r.first + i + len(q) - 1, lines: r.lines[i : i+len(q)]})
			}
		}
	}
	return out
}

// mayHold says, cheaply, whether text can hold the quote: it holds the
// quote's longest line (trimmed, marker or not).
func mayHold(text string, q []string) bool {
	longest := ""
	for _, l := range q {
		t := strings.TrimSpace(l)
		if t != "" && (t[0] == '+' || t[0] == '-') {
			t = strings.TrimSpace(t[1:]) // the shorter reading; both contain it
		}
		if len(t) > len(longest) {
			longest = t
		}
	}
	return strings.Contains(text, longest)
}
