package textedit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"cchub/syntax"
	"cchub/textfmt"
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
	ErrNotRead       = errors.New("file not read in this conversation")
	ErrBreaksSyntax  = errors.New("edit would break the syntax")
)

// editError reads as a sentence for a model, and still answers errors.Is
// for its kind.
type editError struct {
	kind error
	msg  string
}

func (e *editError) Error() string        { return e.msg }
func (e *editError) Is(target error) bool { return target == e.kind }

func failf(kind error, format string, args ...any) error {
	return &editError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

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
// messages) as ch asks, or explains why it will not. When the chain finds
// nothing and every line of old_string starts with a line number and a tab,
// the numbers consecutive (lines copied from read output), it tries once
// more without them (see numberedMatches).
func Apply(data []byte, path string, ch Change) (*Applied, error) {
	return ApplyContext(context.Background(), data, path, ch)
}

// ApplyContext is Apply that stops with ctx's error when ctx is done. An
// old_string that is not in the file exactly and would take more than
// effortLimit to look for loosely is refused with ErrTooLarge.
func ApplyContext(ctx context.Context, data []byte, path string, ch Change) (*Applied, error) {
	return applyEdit(ctx, data, path, ch, nil)
}

// applyEdit is ApplyContext whose syntax guard takes the tree of the file
// before from parses, when it is not nil (path is then the file's path in
// the workspace, the cache's key).
func applyEdit(ctx context.Context, data []byte, path string, ch Change, parses *syntax.ParseCache) (*Applied, error) {
	ft := textfmt.DecodeText(data)
	old, repl := textfmt.ToLF(ch.Old), textfmt.ToLF(ch.New)
	if old == "" {
		return nil, failf(ErrEmptyOld, "old_string is empty: give the text to replace, or use write to replace all of %s", path)
	}
	if old == repl {
		return nil, failf(ErrNoChange, "old_string and new_string are the same: there is nothing to change")
	}
	body := ft.Body
	e := newEffort(ctx)
	cs := findCandidates(e, body, old)
	if len(cs) == 0 && e.ok() {
		if plain, nums, ok := stripLineNumbers(old); ok {
			if plain == stripLineNumberPrefixes(repl, nums) {
				return nil, failf(ErrNoChange, "old_string and new_string are the same once the line numbers copied from read are dropped: there is nothing to change")
			}
			cs = numberedMatches(e, body, plain, nums)
			if len(cs) == 0 && e.ok() {
				return nil, notFound(e, body, path, plain)
			}
		}
	}
	if err := e.stopped(body, path, old); err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, notFound(e, body, path, old)
	}
	if len(cs) > 1 && !ch.ReplaceAll {
		return nil, ambiguous(body, path, cs)
	}
	for _, c := range cs {
		if err := proportionate(body, path, old, c); err != nil {
			return nil, err
		}
	}
	if ch.ReplaceAll {
		matched := body[cs[0].start:cs[0].end]
		for _, o := range cs[1:] {
			if body[o.start:o.end] != matched {
				return nil, failf(ErrAmbiguous, "old_string matches %d places whose text differs (%s); replace_all needs the exact text: read it and copy it", len(cs), placeList(body, path, cs))
			}
		}
		cs = nonOverlapping(cs)
	}

	tabs := sync.OnceValue(func() bool { return bodyUsesTabs(body) })
	newBody, firstRep, forgiven, err := rebuild(body, path, repl, old, cs, tabs, readEvidence)
	if err != nil {
		return nil, err
	}
	if forgiven {
		g := newGuard(ctx, path, []byte(body)).withCache(parses)
		defer g.close()
		if newBody, firstRep, err = guarded(g, body, path, repl, old, cs, tabs, newBody, firstRep); err != nil {
			return nil, err
		}
	}
	newBody = ft.KeepFinalNewline(newBody)
	first := lineAt(newBody, cs[0].start)
	last := first + strings.Count(strings.TrimSuffix(firstRep, "\n"), "\n")
	if firstRep == "" || firstRep == "\n" {
		last = first - 1
	}
	return &Applied{
		Data:         ft.Encode(newBody),
		Replacements: len(cs),
		FirstLine:    first,
		LastLine:     last,
		Snippet:      snippet(newBody, first, last),
	}, nil
}

// nonOverlapping keeps, from candidates in body order, each one that starts
// after the previous kept one ends.
func nonOverlapping(cs []candidate) []candidate {
	var kept []candidate
	for _, c := range cs {
		if len(kept) == 0 || c.start >= kept[len(kept)-1].end {
			kept = append(kept, c)
		}
	}
	return kept
}

// numberedMatches finds old_string with the line numbers a model copied
// from read output dropped (plain), by the whole chain. A model copies
// whole lines, so only places that cover whole lines (indentation and
// trailing blanks aside) count: the text without its numbers must not land
// inside some other line. new_string loses its copied numbers too.
func numberedMatches(e *effort, body, plain string, nums copiedNumbers) []candidate {
	if isBlank(plain) {
		return nil
	}
	var kept []candidate
	for _, c := range findCandidates(e, body, plain) {
		if !coversLines(body, c.start, c.end) {
			continue
		}
		inner := c.fixNew
		c.fixNew = func(s string) string {
			s = stripLineNumberPrefixes(s, nums)
			if inner != nil {
				s = inner(s)
			}
			return s
		}
		kept = append(kept, c)
	}
	return kept
}

// coversLines says whether body[start:end] is whole lines but for blanks
// before it on its first line and after it on its last.
func coversLines(body string, start, end int) bool {
	ls := strings.LastIndexByte(body[:start], '\n') + 1
	if !isBlank(body[ls:start]) {
		return false
	}
	if end > start && body[end-1] == '\n' {
		return true
	}
	le := len(body)
	if nl := strings.IndexByte(body[end:], '\n'); nl >= 0 {
		le = end + nl
	}
	return isBlank(body[end:le])
}

// Readings of new_string: the form of each line decided by evidence (see
// newForms, keepEdges, unescapeLike), or all of it taken as written (the
// file's form), or all of it carried onto the file (old_string's form).
// The syntax guard tries the other two when the first breaks the file.
const (
	readEvidence = iota
	readAsWritten
	readCarried
)

// rebuild is body with new_string put in place of each candidate, read
// as reading says, and the text put at the first; forgiven says some
// candidate was not old_string itself, or its text not new_string itself.
func rebuild(body, path, repl, old string, cs []candidate, tabs func() bool, reading int) (newBody, firstRep string, forgiven bool, err error) {
	var b strings.Builder
	b.Grow(len(body) + len(repl))
	prev := 0
	for k, c := range cs {
		rep, err := replacement(body, path, repl, c, tabs, reading)
		if err != nil {
			return "", "", false, err
		}
		if k == 0 {
			firstRep = rep
		}
		forgiven = forgiven || rep != repl || body[c.start:c.end] != old
		b.WriteString(body[prev:c.start])
		b.WriteString(rep)
		prev = c.end
	}
	b.WriteString(body[prev:])
	return b.String(), firstRep, forgiven, nil
}

// guarded checks a forgiven edit with the syntax guard: a result with
// more syntax errors than the file had is tried in the other readings of
// new_string, and refused (ErrBreaksSyntax) when none keeps the count.
// Files of no known language are not checked.
func guarded(g *guard, body, path, repl, old string, cs []candidate, tabs func() bool, newBody, firstRep string) (string, string, error) {
	broke, err := g.breaks([]byte(newBody))
	if errors.Is(err, syntax.ErrTooBig) {
		// A loose match is applied only when the syntax check passes, and
		// this file cannot be parsed to check.
		c := cs[0]
		first := lineAt(body, c.start)
		last := first + strings.Count(strings.TrimSuffix(body[c.start:c.end], "\n"), "\n")
		return "", "", failf(ErrTooLarge, "old_string is not in %s as given; it matched %s loosely, but the file is %v, so the change cannot be checked as loose matches are. Nothing was changed. Send old_string exactly as these lines are:\n%s",
			path, textfmt.Place(path, first, last), err, snippet(body, first, last))
	}
	if err != nil || !broke {
		return newBody, firstRep, err
	}
	tried := map[string]bool{newBody: true}
	for _, reading := range []int{readAsWritten, readCarried} {
		nb, fr, _, err := rebuild(body, path, repl, old, cs, tabs, reading)
		if err != nil || tried[nb] {
			continue
		}
		tried[nb] = true
		broke, err := g.breaks([]byte(nb))
		if err != nil {
			return "", "", err
		}
		if !broke {
			return nb, fr, nil
		}
	}
	c := cs[0]
	first := lineAt(body, c.start)
	last := first + strings.Count(strings.TrimSuffix(body[c.start:c.end], "\n"), "\n")
	return "", "", failf(ErrBreaksSyntax, "old_string is not in %s as given; it matched %s loosely, and new_string put there, read either way, leaves a syntax error the file does not have. Nothing was changed. Send old_string exactly as these lines are, and new_string in the same form:\n%s",
		path, textfmt.Place(path, first, last), snippet(body, first, last))
}

// replacement is new_string as it must land at c, in the reading given:
// rewritten as old_string was to match and, for a line-wise match,
// carried onto the file's lines.
func replacement(body, path, repl string, c candidate, tabs func() bool, reading int) (string, error) {
	span := body[c.start:c.end]
	fix, force := c.fixNew, formUnknown
	switch reading {
	case readAsWritten:
		force = formFile
		if c.asWrittenNew != nil {
			fix = c.asWrittenNew
		}
	case readCarried:
		force = formModel
		if c.carryNew != nil {
			fix = c.carryNew
		}
	}
	if fix != nil {
		repl = fix(repl)
	}
	if !c.lineWise || span == c.old {
		return keepEdges(body, c.start, c.end, repl), nil
	}
	rep, ok := transplant(span, c.old, repl, tabs, force)
	if !ok {
		first := lineAt(body, c.start)
		last := first + strings.Count(strings.TrimSuffix(span, "\n"), "\n")
		return "", failf(ErrNotFound, "old_string differs from %s in lines that new_string changes; read them again (read path=%s offset=%d limit=%d) and copy them exactly", textfmt.Place(path, first, last), path, first, last-first+1)
	}
	return rep, nil
}

// keepEdges fits repl, the text for an exact (or in-line) match at
// body[start:end], to the edges of the match, where a model's new_string
// is often written in another form than its old_string:
//
//   - Line breaks at an edge of old_string that new_string lacks are
//     context, not text to delete: a model that quotes blank lines
//     around a block and writes new_string without them would otherwise
//     glue the line before (or after) to it: `import itertools# edited`.
//     Only a repl with text of its own is mended: an empty or blank one
//     deletes what it replaces, breaks and all.
//   - A match that starts after its line's indentation, or ends before
//     its line's trailing blanks, while new_string starts with that very
//     indentation or ends with those very blanks (written from the file,
//     not from old_string), does not get them twice.
func keepEdges(body string, start, end int, repl string) string {
	span := body[start:end]
	if isBlank(repl) {
		return repl
	}
	if k := countBreaks(leadingBlank(span)) - countBreaks(leadingBlank(repl)); k > 0 {
		ws := leadingBlank(span)
		repl = ws[:nthBreak(ws, k)+1] + repl
	} else if head := lineHead(body, start); head != "" && countBreaks(leadingBlank(span)) == 0 && strings.HasPrefix(repl, head) && !strings.HasPrefix(span, head) {
		repl = repl[len(head):]
	}
	if m := countBreaks(trailingBlank(repl)); countBreaks(trailingBlank(span)) > m {
		ws := trailingBlank(span)
		repl += ws[nthBreak(ws, m+1):]
	} else if tail := lineTail(body, end); tail != "" && countBreaks(trailingBlank(span)) == 0 && strings.HasSuffix(repl, tail) && !strings.HasSuffix(span, tail) {
		repl = repl[:len(repl)-len(tail)]
	}
	return repl
}

// leadingBlank and trailingBlank are the blanks (line breaks included) at
// the start and end of s.
func leadingBlank(s string) string  { return s[:len(s)-len(strings.TrimLeft(s, " \t\r\n"))] }
func trailingBlank(s string) string { return s[len(strings.TrimRight(s, " \t\r\n")):] }

func countBreaks(s string) int { return strings.Count(s, "\n") }

// nthBreak is the offset of the nth (1-based) line break of s.
func nthBreak(s string, n int) int {
	at := -1
	for ; n > 0; n-- {
		at += 1 + strings.IndexByte(s[at+1:], '\n')
	}
	return at
}

// lineHead is the text of start's line before start when it is all
// blanks (the indentation the match starts after), else "".
func lineHead(body string, start int) string {
	h := body[strings.LastIndexByte(body[:start], '\n')+1 : start]
	if !isBlank(h) {
		return ""
	}
	return h
}

// lineTail is the text of end's line after end when it is all blanks
// (the trailing blanks the match ends before), else "".
func lineTail(body string, end int) string {
	t := body[end:]
	if nl := strings.IndexByte(t, '\n'); nl >= 0 {
		t = t[:nl]
	}
	if !isBlank(strings.TrimSuffix(t, "\r")) {
		return ""
	}
	return strings.TrimSuffix(t, "\r")
}

// proportionate refuses a forgiving match whose span is far larger than
// old_string: that is how loose matchers replaced whole functions.
func proportionate(body, path, old string, c candidate) error {
	span := body[c.start:c.end]
	if span == old {
		return nil
	}
	if c.old != "" {
		old = c.old // as the layer read it: unescaped, without blank boundaries
	}
	wantLines := strings.Count(strings.TrimSuffix(old, "\n"), "\n") + 1
	gotLines := strings.Count(strings.TrimSuffix(span, "\n"), "\n") + 1
	if gotLines > wantLines+max(2, wantLines/4) || len(span) > 3*len(old)+200 {
		first := lineAt(body, c.start)
		return failf(ErrSpanTooLarge, "old_string is not in the file as given, and the closest match spans %s (%d lines) for an old_string of %d lines; re-read the file (read path=%s offset=%d limit=%d) and give the exact text", textfmt.Place(path, first, first+gotLines-1), gotLines, wantLines, path, first, gotLines)
	}
	return nil
}

func ambiguous(body, path string, cs []candidate) error {
	return failf(ErrAmbiguous, "Found %d matches for old_string (at %s). Include more surrounding lines to make it unique, or set replace_all.", len(cs), placeList(body, path, cs))
}

// placeList writes where candidates start, as places: "a.go:12, a.go:40".
func placeList(body, path string, cs []candidate) string {
	var ns []string
	for i, c := range cs {
		if i == 10 {
			ns = append(ns, fmt.Sprintf("and %d more", len(cs)-10))
			break
		}
		l := lineAt(body, c.start)
		ns = append(ns, textfmt.Place(path, l, l))
	}
	return strings.Join(ns, ", ")
}

func notFound(e *effort, body, path, old string) error {
	msg := fmt.Sprintf("in %s. Read the lines again with read (offset/limit) and copy them exactly, indentation included", path)
	if _, _, ok := stripLineNumbers(old); !ok && numberedLines(old) {
		msg += ", without the line numbers read puts before them"
	}
	if c, ok := findClosest(e, body, old); ok {
		msg += c.hint(body, path)
		return failf(ErrNotFound, "old_string was not found %s", msg)
	}
	msg += fmt.Sprintf(". No line of it is in the file, nor anything close: find the text first (grep pattern=WORD path=%s, read path=%s, or for code read_symbol id=%s:NAME)", path, path, path)
	return failf(ErrNotFound, "old_string was not found %s.", msg)
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
	body = strings.TrimSuffix(body, "\n")
	total := strings.Count(body, "\n") + 1
	from := max(1, first-snippetContext)
	to := min(total, max(last, first-1)+snippetContext)
	// Offset of line from.
	off := 0
	for n := 1; n < from; n++ {
		off += strings.IndexByte(body[off:], '\n') + 1
	}
	lineText := func() string {
		end := strings.IndexByte(body[off:], '\n')
		if end < 0 {
			end = len(body) - off
		}
		l := body[off : off+end]
		off = min(len(body), off+end+1)
		return l
	}
	var b strings.Builder
	for n := from; n <= to; n++ {
		if to-from+1 > snippetMax && n == from+snippetMax/2 {
			skip := to - snippetMax/2 - n
			fmt.Fprintf(&b, "...\t(%d lines)\n", skip+1)
			for k := 0; k <= skip; k++ {
				lineText()
			}
			n += skip
			continue
		}
		textfmt.WriteLine(&b, n, lineText())
	}
	return b.String()
}
