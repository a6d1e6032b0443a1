package textedit

import (
	"strings"
)

// maxShownPatch bounds the converted patch an error shows.
const maxShownPatch = 8 << 10

// fromUnifiedDiff rewrites a unified diff (git diff, diff -u) as a patch in
// apply_patch's own format, for the error that refuses the diff: models
// often send one, and the same change in the right format is the call that
// works. ok is false when text does not look like a unified diff. Hunk
// line numbers are dropped (hunks are placed by their context lines, as in
// any patch of this format); a hunk's section heading becomes its @@ line.
func fromUnifiedDiff(text string) (patch string, ok bool) {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	files := 0
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "--- ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
			continue
		}
		from, to := diffPath(l[4:], "a/"), diffPath(lines[i+1][4:], "b/")
		i += 2
		switch {
		case from == "/dev/null":
			b.WriteString("*** Add File: " + to + "\n")
		case to == "/dev/null":
			b.WriteString("*** Delete File: " + from + "\n")
		default:
			b.WriteString("*** Update File: " + from + "\n")
			if to != from {
				b.WriteString("*** Move to: " + to + "\n")
			}
		}
		files++
		for ; i < len(lines); i++ {
			h := lines[i]
			switch {
			case strings.HasPrefix(h, "@@"):
				if from == "/dev/null" || to == "/dev/null" {
					continue
				}
				heading := ""
				if j := strings.Index(h[2:], "@@"); j >= 0 {
					heading = strings.TrimSpace(h[2+j+2:])
				}
				b.WriteString(strings.TrimRight("@@ "+heading, " ") + "\n")
			case strings.HasPrefix(h, "+"):
				b.WriteString(h + "\n")
			case to == "/dev/null":
				// a deletion lists no lines
			case strings.HasPrefix(h, "-") && !strings.HasPrefix(h, "--- "), strings.HasPrefix(h, " "):
				b.WriteString(h + "\n")
			case h == "":
				if i+1 < len(lines) && (strings.HasPrefix(lines[i+1], " ") || strings.HasPrefix(lines[i+1], "-") && !strings.HasPrefix(lines[i+1], "--- ") || strings.HasPrefix(lines[i+1], "+") && !strings.HasPrefix(lines[i+1], "+++ ")) {
					b.WriteString(" \n") // a blank context line whose space was lost
				}
			case strings.HasPrefix(h, `\`): // \ No newline at end of file
			default:
				i-- // the next file's header (or prose): the outer loop looks at it
				goto next
			}
		}
	next:
	}
	if files == 0 {
		return "", false
	}
	return beginPatch + "\n" + b.String() + endPatch, true
}

// diffPath is the path on a ---/+++ line, without its a/ or b/ prefix and
// a trailing tab and timestamp (diff -u).
func diffPath(s, prefix string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	return strings.TrimPrefix(s, prefix)
}
