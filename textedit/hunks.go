package textedit

import (
	"context"
	"fmt"
	"strings"

	"cchub/textfmt"
)

// applyHunks applies hunks in order to body; each hunk's old lines are
// sought from where the previous hunk ended, exactly first, then ignoring
// trailing whitespace, then ignoring surrounding whitespace.
// It stops with ctx's error, between hunks, when ctx is done.
func applyHunks(ctx context.Context, body string, hunks []Hunk, rel string) (string, int, int, error) {
	trailingNL := strings.HasSuffix(body, "\n")
	var ls []string
	if body != "" {
		ls = strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	}
	cursor, added, removed := 0, 0, 0
	tabs := bodyUsesTabs(body)
	for hi, h := range hunks {
		if err := ctx.Err(); err != nil {
			return "", 0, 0, err
		}
		if h.Context != "" {
			idx, _ := seekLines(ls, []string{h.Context}, cursor, false)
			if idx < 0 {
				where := "in the file"
				if cursor > 0 {
					where = "after " + textfmt.Place(rel, cursor, cursor)
				}
				return "", 0, 0, fmt.Errorf("%w: Update File %s: hunk %d (patch line %d): its @@ line %q was not found %s; read the file again and regenerate the hunk",
					ErrPatchDoesNotFit, rel, hi+1, h.line, h.Context, where)
			}
			cursor = idx + 1
		}
		var old []string
		for _, l := range h.Lines {
			if l.Op != '+' {
				old = append(old, l.Text)
			}
		}
		var at, pass int
		switch {
		case len(old) == 0 && h.Context == "":
			at = len(ls) // a hunk of only additions and no anchor appends
		case len(old) == 0:
			at = cursor
		default:
			at, pass = seekLines(ls, old, cursor, h.AtEOF)
			if at < 0 {
				return "", 0, 0, hunkMismatch(rel, hi, h, cursor)
			}
		}
		// When the hunk fitted only with its indentation ignored, added
		// lines take the file's indentation relative to the line before.
		reindent := pass == 2
		refOld, refFile := "", ""
		if reindent {
			refOld, refFile = old[0], ls[at]
		}
		var repl []string
		k := at
		for _, l := range h.Lines {
			switch l.Op {
			case ' ':
				repl = append(repl, ls[k]) // the file's own text of a context line
				if !isBlank(l.Text) {
					refOld, refFile = l.Text, ls[k]
				}
				k++
			case '-':
				if !isBlank(l.Text) {
					refOld, refFile = l.Text, ls[k]
				}
				k++
				removed++
			case '+':
				t := l.Text
				if reindent && !isBlank(t) {
					t = reindentRel(t, refOld, refFile, tabs)
				}
				repl = append(repl, t)
				added++
			}
		}
		ls = append(ls[:at:at], append(repl, ls[at+len(old):]...)...)
		cursor = at + len(repl)
	}
	out := strings.Join(ls, "\n")
	if trailingNL || (body == "" && len(ls) > 0) {
		out += "\n"
	}
	return out, added, removed, nil
}

// seekLines finds want as consecutive lines of ls at or after from, with
// three passes from exact to forgiving, and says which pass found it (2:
// indentation ignored); atEOF requires the match to end the file. Each
// pass takes time linear in the lines of both (see occurrences).
func seekLines(ls, want []string, from int, atEOF bool) (int, int) {
	norms := []func(string) string{
		func(s string) string { return s },
		trimRight,
		strings.TrimSpace,
	}
	for pass, norm := range norms {
		if atEOF {
			at := len(ls) - len(want)
			if at >= from && linesEqual(ls[at:], want, norm) {
				return at, pass
			}
			continue
		}
		if len(want) > len(ls)-from {
			break
		}
		wk := make([]string, len(want))
		for k, w := range want {
			wk[k] = norm(w)
		}
		fk := make([]string, len(ls)-from)
		for k, l := range ls[from:] {
			fk[k] = norm(l)
		}
		if at := occurrences(fk, wk, 0, 1); len(at) > 0 {
			return from + at[0], pass
		}
	}
	return -1, -1
}

func linesEqual(a, b []string, norm func(string) string) bool {
	for i := range b {
		if norm(a[i]) != norm(b[i]) {
			return false
		}
	}
	return true
}

func hunkMismatch(rel string, hi int, h Hunk, cursor int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Update File %s: hunk %d (patch line %d) did not fit: its context and removed lines were not found", rel, hi+1, h.line)
	if cursor > 0 {
		fmt.Fprintf(&b, " after %s", textfmt.Place(rel, cursor, cursor))
	}
	if h.AtEOF {
		b.WriteString(" at the end of the file")
	}
	b.WriteString(":\n")
	shown := 0
	for _, l := range h.Lines {
		if l.Op == '+' {
			continue
		}
		if shown == 12 {
			b.WriteString("  ...\n")
			break
		}
		fmt.Fprintf(&b, "  %c%s\n", l.Op, clip(l.Text))
		shown++
	}
	b.WriteString("Read the file again and regenerate this hunk; nothing was changed.")
	return fmt.Errorf("%w: %s", ErrPatchDoesNotFit, b.String())
}
