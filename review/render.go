package review

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"cchub/textfmt"
	"cchub/unidiff"
)

// File is one file of a staged change.
type File struct {
	Path           string // relative to the workspace root
	Diff           string // unified diff of this file (as produced by udiff.Unified("a/"+path, "b/"+path, old, new)), "" for none
	Added, Removed int
	Status         string // "modified", "added", "deleted"
}

// Change is what is shown.
type Change struct {
	ID      string
	Title   string // e.g. "rewrite `foo($$$A)` → `bar($$$A)`"
	Matches int    // number of changes (places)
	Files   []File
}

// Decision is the human's answer to Prompt.
type Decision int

const (
	Keep    Decision = iota // q, Ctrl-C, EOF: the change stays staged, nothing written
	Apply                   // y
	Discard                 // n
)

func (d Decision) String() string {
	switch d {
	case Keep:
		return "keep"
	case Apply:
		return "apply"
	case Discard:
		return "discard"
	}
	return "Decision(" + strconv.Itoa(int(d)) + ")"
}

// SGR sequences. Every styled piece is closed with sgrReset on its own,
// so truncating a line never leaves a colour open.
const (
	sgrReset   = "\x1b[0m"
	sgrBold    = "\x1b[1m"
	sgrDim     = "\x1b[2m"
	sgrReverse = "\x1b[7m"
	sgrRed     = "\x1b[31m"
	sgrGreen   = "\x1b[32m"
	sgrCyan    = "\x1b[36m"
)

// tabWidth is the tab stop used when expanding tabs in code, so that
// widths are known before a line reaches the terminal.
const tabWidth = 4

// Render writes the change as a unified diff with a file header per file ("── path (+3 −1) ──" style),
// old/new line numbers in a gutter, and ANSI colours when color is true (red removals, green additions,
// cyan hunk headers, bold file headers). width > 0 truncates lines longer than width with a "…" marker
// (never wrapping mid-gutter); width <= 0 means no limit.
func Render(w io.Writer, c Change, color bool, width int) error {
	var b strings.Builder
	for _, r := range changeRows(c, width) {
		b.WriteString(r.format(color, width))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// renderLines is Render for the terminal: one string per screen line,
// without line ends, so that the pager can count and slice them.
func renderLines(c Change, color bool, width int) []string {
	rows := changeRows(c, width)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.format(color, width)
	}
	return out
}

// seg is a run of text in one style; row is one output line. Text in a
// seg is already clean (see clean): printable runes only, one column each.
type seg struct{ style, text string }
type row []seg

// format renders r, truncated to width runes (the last one "…") when
// it is longer. Truncation works on segments, not on the escaped
// string, so an escape sequence is never cut and never counted.
func (r row) format(color bool, width int) string {
	total := 0
	for _, s := range r {
		total += utf8.RuneCountInString(s.text)
	}
	cut := width > 0 && total > width
	budget := width - 1 // runes left before the "…"
	var b strings.Builder
	for _, s := range r {
		text, last := s.text, false
		if cut {
			if n := utf8.RuneCountInString(text); n >= budget {
				text, last = firstRunes(text, budget)+"…", true
			} else {
				budget -= n
			}
		}
		if color && s.style != "" && text != "" {
			b.WriteString(s.style)
			b.WriteString(text)
			b.WriteString(sgrReset)
		} else {
			b.WriteString(text)
		}
		if last {
			break
		}
	}
	return b.String()
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func lastRunes(s string, n int) string {
	k := utf8.RuneCountInString(s)
	for i := range s {
		if k <= n {
			return s[i:]
		}
		k--
	}
	return ""
}

// clean makes s safe and measurable on a terminal: tabs become spaces up
// to the next multiple of tabWidth (counted from the start of s), and
// what textfmt.Visible escapes everywhere else in cchub — control
// characters, bidirectional controls, bytes that are not UTF-8 — is
// written as the same escape (\x1b, \u202e, \xff), one column a
// character. The CR of a CRLF line end is the file's line ending, not its
// content, and is dropped. Without this a file's contents could move the
// cursor, change colours or reorder the line mid-screen.
func clean(s string) string {
	s = strings.TrimSuffix(s, "\r")
	if !strings.Contains(s, "\t") && textfmt.Visible(s) == s {
		return s
	}
	var b strings.Builder
	col := 0
	for i := 0; i < len(s); {
		_, n := utf8.DecodeRuneInString(s[i:])
		piece := s[i : i+n]
		i += n
		if piece == "\t" {
			k := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", k))
			col += k
			continue
		}
		v := textfmt.Visible(piece)
		b.WriteString(v)
		col += utf8.RuneCountInString(v)
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// what says what applying c does, for the summary and the question:
// "3 changes to 2 files", or "2 files" when the caller did not count.
func what(c Change, to string) string {
	files := plural(len(c.Files), "file")
	if c.Matches <= 0 {
		return files
	}
	return plural(c.Matches, "change") + " " + to + " " + files
}

func changeRows(c Change, width int) []row {
	var rows []row
	if c.Title != "" {
		rows = append(rows, row{{sgrBold, clean(c.Title)}})
	}
	added, removed := 0, 0
	files := make([][]dline, len(c.Files))
	for i, f := range c.Files {
		files[i] = parseDiff(f.Diff)
		a, r := counts(f, files[i])
		added += a
		removed += r
	}
	summary := fmt.Sprintf("%s · +%d −%d", what(c, "in"), added, removed)
	if c.ID != "" {
		summary = "change " + clean(c.ID) + " · " + summary
	}
	rows = append(rows, row{{sgrDim, summary}})
	if len(c.Files) == 0 {
		rows = append(rows, row{}, row{{sgrDim, "(no files)"}})
	}
	for i, f := range c.Files {
		rows = append(rows, row{})
		rows = append(rows, fileRows(f, files[i], width)...)
	}
	return rows
}

// counts is the file's +/− as the caller gave them, or as the diff says
// when the caller left both at zero (a non-empty diff cannot be +0 −0).
func counts(f File, lines []dline) (added, removed int) {
	if f.Added != 0 || f.Removed != 0 {
		return f.Added, f.Removed
	}
	for _, l := range lines {
		switch l.kind {
		case kAdd:
			added++
		case kDel:
			removed++
		}
	}
	return added, removed
}

func fileRows(f File, lines []dline, width int) []row {
	added, removed := counts(f, lines)
	stats := fmt.Sprintf("+%d −%d", added, removed)
	if f.Status != "" && f.Status != "modified" {
		stats = clean(f.Status) + ", " + stats
	}
	path := clean(f.Path)
	header := "── " + path + " (" + stats + ") ──"
	if n := utf8.RuneCountInString(header); width > 0 && n > width {
		// Keep the end of the path: the file name says more than the
		// first directories, and the counts stay visible.
		keep := width - (n - utf8.RuneCountInString(path)) - 1
		if keep > 0 {
			header = "── …" + lastRunes(path, keep) + " (" + stats + ") ──"
		}
	}
	rows := []row{{{sgrBold, header}}}
	if len(lines) == 0 {
		return append(rows, row{{sgrDim, "(no diff)"}})
	}

	// One gutter width per file: as wide as its largest line number.
	most := 0
	for _, l := range lines {
		most = max(most, l.old, l.new)
	}
	w := len(strconv.Itoa(most))
	num := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	blank := strings.Repeat(" ", 2*w+1) + " │ "

	for _, l := range lines {
		gutter := fmt.Sprintf("%*s %*s │ ", w, num(l.old), w, num(l.new))
		switch l.kind {
		case kHunk:
			rows = append(rows, row{{sgrCyan, clean(l.text)}})
		case kNoNewline:
			rows = append(rows, row{{sgrDim, blank + clean(l.text)}})
		case kContext:
			rows = append(rows, row{{sgrDim, gutter}, {"", " " + clean(l.text)}})
		case kDel:
			rows = append(rows, row{{sgrDim, gutter}, {sgrRed, "-" + clean(l.text)}})
		case kAdd:
			rows = append(rows, row{{sgrDim, gutter}, {sgrGreen, "+" + clean(l.text)}})
		}
	}
	return rows
}

type lineKind uint8

const (
	kHunk      lineKind = iota // @@ -a,b +c,d @@
	kContext                   // " text": both numbers
	kDel                       // "-text": old number
	kAdd                       // "+text": new number
	kNoNewline                 // "\ No newline at end of file"
)

// dline is one line of a parsed diff; old and new are 1-based line
// numbers, 0 where the line has none.
type dline struct {
	kind     lineKind
	old, new int
	text     string // without the one-character prefix, except for kHunk, kNoNewline
}

// parseDiff numbers the lines of a unified diff of one file. A hunk's
// header counts decide what a line is, so a removed line that reads
// "-- x" (shown as "--- x") is not mistaken for a file header; the
// "--- "/"+++ " headers are dropped (the file header replaces them). What
// does not read as a diff is left out: the diff was made by go-udiff.
func parseDiff(diff string) []dline {
	if diff == "" {
		return nil
	}
	var out []dline
	for _, f := range unidiff.Parse(diff).Files {
		for _, h := range f.Hunks {
			out = append(out, dline{kind: kHunk, text: h.Header})
			for _, l := range h.Lines {
				d := dline{old: l.Old, new: l.New, text: l.Text}
				switch l.Kind {
				case unidiff.Context:
					d.kind = kContext
				case unidiff.Delete:
					d.kind = kDel
				case unidiff.Add:
					d.kind = kAdd
				}
				out = append(out, d)
				if l.NoNewline {
					out = append(out, dline{kind: kNoNewline, text: `\ No newline at end of file`})
				}
			}
		}
	}
	return out
}
