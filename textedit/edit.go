package textedit

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Errors an edit can fail with; each is wrapped in a message that says what
// to do next.
var (
	ErrNotFound      = errors.New("old_string not found")
	ErrAmbiguous     = errors.New("old_string is ambiguous")
	ErrNoChange      = errors.New("nothing to change")
	ErrSpanTooLarge  = errors.New("match much larger than old_string")
	ErrEmptyOld      = errors.New("old_string is empty")
	ErrStale         = errors.New("file changed since it was last read")
	ErrNotText       = errors.New("not a text file")
	ErrMissingTarget = errors.New("file does not exist")
)

// Change is an edit an agent asks for.
type Change struct {
	Old, New   string
	ReplaceAll bool
}

// Applied is the result of a successful edit.
type Applied struct {
	Data         []byte `json:"-"`
	Replacements int    `json:"replacements"`
	// FirstLine..LastLine is the changed region in the new file, 1-based;
	// LastLine < FirstLine when the change deleted lines.
	FirstLine int `json:"first_line"`
	LastLine  int `json:"last_line"`
	// Snippet is the changed region with a few lines of context, numbered.
	Snippet string `json:"snippet"`
}

// Apply edits data (the bytes of the file at path, which is only for
// messages) as ch asks, or explains why it will not.
func Apply(data []byte, path string, ch Change) (*Applied, error) {
	ft := decode(data)
	old, repl := normalizeEOL(ch.Old), normalizeEOL(ch.New)
	if old == "" {
		return nil, fmt.Errorf("%w: give the text to replace, or use write to replace all of %s", ErrEmptyOld, path)
	}
	if old == repl {
		return nil, fmt.Errorf("%w: old_string and new_string are the same", ErrNoChange)
	}
	body := ft.body
	cs := findCandidates(body, old)
	if len(cs) == 0 {
		return nil, notFound(body, path, old)
	}
	if len(cs) > 1 && !ch.ReplaceAll {
		return nil, ambiguous(body, cs)
	}
	for _, c := range cs {
		if err := proportionate(body, old, c); err != nil {
			return nil, err
		}
	}
	c := cs[0]
	rep := replacement(repl, c)

	var newBody string
	var count, at int
	if ch.ReplaceAll {
		matched := body[c.start:c.end]
		for _, o := range cs[1:] {
			if body[o.start:o.end] != matched {
				return nil, fmt.Errorf("%w: old_string matches %d places whose text differs (%s); replace_all needs the exact text: read it and copy it", ErrAmbiguous, len(cs), lineList(body, cs))
			}
		}
		count = strings.Count(body, matched)
		newBody = strings.ReplaceAll(body, matched, rep)
		at = c.start
	} else {
		count = 1
		newBody = body[:c.start] + rep + body[c.end:]
		at = c.start
	}
	if strings.HasSuffix(body, "\n") && !strings.HasSuffix(newBody, "\n") && newBody != "" {
		newBody += "\n" // the file keeps its final newline
	}
	first := lineAt(newBody, at)
	last := first + strings.Count(strings.TrimSuffix(rep, "\n"), "\n")
	if rep == "" || rep == "\n" {
		last = first - 1
	}
	return &Applied{
		Data:         ft.restore(newBody),
		Replacements: count,
		FirstLine:    first,
		LastLine:     last,
		Snippet:      snippet(newBody, first, last),
	}, nil
}

// replacement is new_string as it must land at c: rewritten as old_string
// was to match, and carried to the file's indentation.
func replacement(repl string, c candidate) string {
	if c.unescapeNew {
		repl = unescape(repl)
	}
	if c.trimNewBoundary {
		repl = strings.Trim(repl, "\n")
	}
	if c.lineWise && c.fromIndent != c.toIndent {
		repl = reindent(repl, c.fromIndent, c.toIndent)
	}
	return repl
}

// reindent moves lines of s that start with from to start with to, and
// turns the rest of their indentation into the file's style (tabs or
// spaces).
func reindent(s, from, to string) string {
	tabs := strings.Contains(to, "\t") || (to == "" && strings.Contains(from, "\t"))
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if isBlank(l) || !strings.HasPrefix(l, from) {
			continue
		}
		rest := l[len(from):]
		ws := leadingWS(rest)
		if tabs {
			ws = strings.ReplaceAll(ws, "    ", "\t")
		} else {
			ws = strings.ReplaceAll(ws, "\t", "    ")
		}
		lines[i] = to + ws + rest[len(leadingWS(rest)):]
	}
	return strings.Join(lines, "\n")
}

// proportionate refuses a forgiving match whose span is far larger than
// old_string: that is how loose matchers replaced whole functions.
func proportionate(body, old string, c candidate) error {
	span := body[c.start:c.end]
	if span == old {
		return nil
	}
	wantLines := strings.Count(strings.TrimSuffix(old, "\n"), "\n") + 1
	gotLines := strings.Count(strings.TrimSuffix(span, "\n"), "\n") + 1
	if gotLines > wantLines+max(2, wantLines/4) || len(span) > 3*len(old)+200 {
		first := lineAt(body, c.start)
		return fmt.Errorf("%w: the closest match spans lines %d-%d (%d lines) for an old_string of %d lines; re-read the file (read offset=%d limit=%d) and give the exact text",
			ErrSpanTooLarge, first, first+gotLines-1, gotLines, wantLines, first, gotLines)
	}
	return nil
}

func ambiguous(body string, cs []candidate) error {
	return fmt.Errorf("%w: Found %d matches for old_string (lines %s). Include more surrounding lines to make it unique, or set replace_all.", ErrAmbiguous, len(cs), lineList(body, cs))
}

func lineList(body string, cs []candidate) string {
	var ns []string
	for i, c := range cs {
		if i == 10 {
			ns = append(ns, fmt.Sprintf("and %d more", len(cs)-10))
			break
		}
		ns = append(ns, fmt.Sprint(lineAt(body, c.start)))
	}
	return strings.Join(ns, ", ")
}

func notFound(body, path, old string) error {
	msg := fmt.Sprintf("%s: old_string was not found in %s. Read the lines again with read (offset/limit) and copy them exactly, indentation included", ErrNotFound, path)
	if first, last, ok := nearest(body, old); ok {
		msg += fmt.Sprintf(". The closest text is at lines %d-%d (read offset=%d limit=%d)", first, last, first, last-first+1)
	}
	return errors.New(msg + ".")
}

// nearest finds the window of lines most like old: windows are scored by
// the identifier-like tokens they share with old, and the best few are
// compared by edit distance. ok is false when nothing is close.
func nearest(body, old string) (first, last int, ok bool) {
	want, _ := oldLines(old)
	n := len(want)
	lines := splitLines(body)
	if n > len(lines) || len(lines) == 0 {
		return 0, 0, false
	}
	tokens := map[string]bool{}
	for _, t := range wordTokens(old) {
		tokens[t] = true
	}
	if len(tokens) == 0 {
		return 0, 0, false
	}
	perLine := make([]int, len(lines))
	for i, l := range lines {
		for _, t := range wordTokens(l.text) {
			if tokens[t] {
				perLine[i]++
			}
		}
	}
	type window struct{ i, score int }
	var ws []window
	sum := 0
	for i := range lines {
		sum += perLine[i]
		if i >= n {
			sum -= perLine[i-n]
		}
		if i >= n-1 && sum > 0 {
			ws = append(ws, window{i - n + 1, sum})
		}
	}
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].score > ws[b].score })
	wantText := joinTrimmed(want)
	best, bestSim := -1, 0.5
	for _, w := range ws[:min(3, len(ws))] {
		texts := make([]string, n)
		for k := 0; k < n; k++ {
			texts[k] = lines[w.i+k].text
		}
		if sim := similarity(joinTrimmed(texts), wantText); sim > bestSim {
			best, bestSim = w.i, sim
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	return best + 1, best + n, true
}

func wordTokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}

// snippetContext is how many unchanged lines frame a changed region;
// snippetMax bounds the region shown.
const (
	snippetContext = 3
	snippetMax     = 40
)

// snippet numbers the lines first-ctx..last+ctx of body, eliding the middle
// of a long region.
func snippet(body string, first, last int) string {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	from := max(1, first-snippetContext)
	to := min(len(lines), max(last, first-1)+snippetContext)
	var b strings.Builder
	for n := from; n <= to; n++ {
		if to-from+1 > snippetMax && n == from+snippetMax/2 {
			skip := to - snippetMax/2 - n
			fmt.Fprintf(&b, "   ...\t(%d lines)\n", skip+1)
			n += skip
			continue
		}
		fmt.Fprintf(&b, "%6d\t%s\n", n, lines[n-1])
	}
	return b.String()
}
