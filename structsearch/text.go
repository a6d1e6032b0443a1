package structsearch

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"

	"cchub/textfmt"
)

// matchLines is how many lines of each match the text form shows.
const matchLines = 5

// TextOptions shapes the model-facing text of a result.
type TextOptions struct {
	Limit  int  // most matches shown; 0 means all
	Counts bool // one line per file with its count, instead of matches
}

// Text renders the result for a model or a terminal: a summary line, then
// each match as path:LINE:COL with its captures and its first lines as
// LINE<TAB>text (the number not padded), a longer match ending in
// "…<TAB>(N more lines, to line END)"; or, with Counts, one count per file.
func (r *Result) Text(o TextOptions) string {
	var b strings.Builder
	files := map[string]int{}
	for _, m := range r.Matches {
		files[m.Path]++
	}
	if len(r.Matches) == 0 {
		fmt.Fprintf(&b, "No matches for `%s` (%s; %d of %d files could match and were parsed).", r.Pattern, r.langSummary(), r.Parsed, r.Files)
		if r.Files == 0 {
			b.WriteString(" No file in those languages was searched: check the paths, and lang if you set it.")
		}
		b.WriteString("\n")
		r.notes(&b)
		return b.String()
	}
	fmt.Fprintf(&b, "Found %s in %s (%s)\n", plural(len(r.Matches), "match", "matches"), plural(len(files), "file", "files"), r.langSummary())
	if o.Counts {
		paths := make([]string, 0, len(files))
		for p := range files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			fmt.Fprintf(&b, "%s: %d\n", p, files[p])
		}
		return b.String()
	}
	shown := r.Matches
	if o.Limit > 0 && len(shown) > o.Limit {
		shown = shown[:o.Limit]
	}
	for _, m := range shown {
		fmt.Fprintf(&b, "%s:%d:%d", m.Path, m.StartLine, m.StartCol)
		for _, c := range m.Captures {
			fmt.Fprintf(&b, "  %s = %s", c.Name, oneLine(c.Text))
		}
		b.WriteString("\n")
		m.writeLines(&b)
	}
	if len(shown) < len(r.Matches) {
		fmt.Fprintf(&b, "[showing %d of %d matches; narrow with a path or a more specific pattern, or ask for counts per file]\n", len(shown), len(r.Matches))
	}
	r.notes(&b)
	return b.String()
}

// writeLines lists the first lines of the match, extended to whole lines
// so they read as the file does, each cut at MaxLineChars, and says how
// many more there are. It reads no further than the lines it lists: a
// match may be most of a large file.
func (m Match) writeLines(b *strings.Builder) {
	rest := m.Text
	for i := 0; ; i++ {
		nl := strings.IndexByte(rest, '\n')
		if i == matchLines {
			more := 1 + strings.Count(rest, "\n")
			unit := "lines"
			if more == 1 {
				unit = "line"
			}
			fmt.Fprintf(b, "…\t(%d more %s, to line %d)\n", more, unit, m.EndLine)
			return
		}
		var line string
		switch {
		case nl < 0 && i == 0:
			line = m.prefix + rest + m.suffix
		case nl < 0:
			line = rest + m.suffix
		case i == 0:
			line = m.prefix + rest[:nl]
		default:
			line = rest[:nl]
		}
		textfmt.WriteLine(b, m.StartLine+i, textfmt.ClipLine(strings.TrimSuffix(line, "\r")))
		if nl < 0 {
			return
		}
		rest = rest[nl+1:]
	}
}

// langSummary names the languages searched: those that had files, or,
// when none had, those the pattern was compiled for.
func (r *Result) langSummary() string {
	var names []string
	for _, l := range r.Languages {
		if r.filesIn[l] > 0 {
			names = append(names, l)
		}
	}
	if len(names) == 0 {
		names = r.Languages
	}
	return "as " + strings.Join(names, ", ")
}

// notes says what was not searched: languages the pattern is not valid
// in, directories that could not be read.
func (r *Result) notes(b *strings.Builder) {
	r.invalidNote(b)
	b.WriteString(r.Unreadable.Note("their files were not searched"))
	r.refusedNote(b)
}

// refusedNote names the files that were not searched for their budget or
// their size, a line each, at most five.
func (r *Result) refusedNote(b *strings.Builder) {
	for i, f := range r.Refused {
		if i == 5 {
			fmt.Fprintf(b, "[and %s not searched: too complex or too large to parse]\n", plural(len(r.Refused)-5, "more file", "more files"))
			return
		}
		fmt.Fprintf(b, "[not searched: %s: %s]\n", f.Path, f.Reason)
	}
}

func (r *Result) invalidNote(b *strings.Builder) {
	if len(r.Invalid) == 0 || len(r.Languages) == 0 {
		return
	}
	var names []string
	for n := range r.Invalid {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(b, "(not valid %s, so those files were not searched)\n", strings.Join(names, "/"))
}

// oneLine shows a capture on one line: its words joined by single spaces,
// cut to 80 characters. It reads only as much of s as it shows, since a
// capture may be most of a large file.
func oneLine(s string) string {
	const width, kept = 80, 77 // a cut line keeps 77 and ends in "..."
	var b strings.Builder
	chars, cut := 0, 0
	put := func(r rune) bool { // false when the line would be too long
		if chars == width {
			return false
		}
		b.WriteRune(r)
		if chars++; chars == kept {
			cut = b.Len()
		}
		return true
	}
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = chars > 0
			continue
		}
		if space && !put(' ') || !put(r) {
			return b.String()[:cut] + "..."
		}
		space = false
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// WriteJSONLines writes one JSON object per match, a line each (file, byte
// and line ranges, captures): complete data for scripts and CI, never cut.
func (r *Result) WriteJSONLines(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, m := range r.Matches {
		if err := enc.Encode(m); err != nil {
			return err
		}
	}
	return nil
}
