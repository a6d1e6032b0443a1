package lspmux

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"cchub/textfmt"
)

// A line and column are the least durable way to name code: the model
// took them from a read, and the file may have changed since (an edit by
// the shell, a formatter, another conversation), or it counted wrong. A
// place that no longer holds a name is answered with where the name is
// now and the call that asks about it, never with the server's bare "no
// identifier found".

// Place is a query at a line and column (Op, Path, Line, Col and NewName
// of its Query) with what is known of the file there: checked before the
// server is asked (Check), and turned into the names on its line when
// the server finds none there (NoName).
type Place struct {
	Query
	// ColGiven says the asker gave the column; else Col is where the
	// line's text starts.
	ColGiven bool
	// Lines are the file's lines now.
	Lines []string
	// Changed says the asker last read the file with other content;
	// LinesRead are the lines it read then (nil when they were not
	// kept). Told says it was already told places in the file as it is
	// now: its lines and columns are then taken as the file's now.
	Changed   bool
	LinesRead []string
	Told      bool
	// SymbolLine is the line where the file declares the symbol name, as
	// outline names symbols, or 0 (nil: never found). The answers offer a
	// call by symbol only where it finds one.
	SymbolLine func(name string) int
}

// Check says whether p may be asked about: nil when it may, else an
// error naming the place meant and the call to make. note is set when
// the place is asked about in a file changed since the asker read it.
func (p *Place) Check() (note string, err error) {
	line, col := p.Line, p.Col
	if p.Changed && !p.Told && line <= len(p.LinesRead) && (line > len(p.Lines) || p.LinesRead[line-1] != p.Lines[line-1]) {
		return "", p.moved()
	}
	if line > len(p.Lines) {
		return "", fmt.Errorf("line %d is past the end of %s, which has %s%s; name the code by symbol instead (lsp op=%s path=%s symbol=NAME, names as outline path=%s shows them)",
			line, p.Path, countOf(len(p.Lines), "line"), p.changedSince(), p.Op, p.Path, p.Path)
	}
	text := p.Lines[line-1]
	n := utf8.RuneCountInString(text)
	if col > n+1 {
		return "", fmt.Errorf("column %d is past the end of %s line %d, which has %s%s: `%s`%s",
			col, p.Path, line, countOf(n, "character"), p.changedSince(), clipSource(text), p.identsHint(text))
	}
	if p.ColGiven && !identNear(text, col) && (col > n || isSpace(runeAt(text, col))) {
		return "", fmt.Errorf("no name at %s:%d:%d, %s of line %d%s: `%s`%s",
			p.Path, line, col, placeWord(text, col), line, p.changedSince(), clipSource(text), p.identsHint(text))
	}
	if p.Changed {
		w, _ := identAt(text, col)
		if w == "" {
			w = "the name there"
		} else {
			w = "`" + w + "`"
		}
		note = fmt.Sprintf("%s changed since this conversation last read it: this answer is about %s at %s:%d:%d as the file is now; read it again (read path=%s) if that is not what you meant", p.Path, w, p.Path, line, col, p.Path)
	}
	return note, nil
}

// NoName turns err, the server's failure at p, into the names on p's
// line and the call that asks about the nearest, when err says the
// server found no name there; else, or when the line is past the file's
// end, it returns nil and err stands as it is.
func (p *Place) NoName(err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "no identifier") && !strings.Contains(msg, "no object found") {
		return nil
	}
	if p.Line > len(p.Lines) {
		return nil
	}
	text := p.Lines[p.Line-1]
	return fmt.Errorf("%s found no name at %s:%d:%d (%s of line %d%s: `%s`)%s",
		serverName(msg), p.Path, p.Line, p.Col, placeWord(text, p.Col), p.Line, p.changedSince(), clipSource(text), p.identsHint(text))
}

// moved answers a place in a file that changed since the asker read it:
// the name that was there, where it is now, and the call to make.
func (p *Place) moved() error {
	oldText := p.LinesRead[p.Line-1]
	col := p.Col
	if !p.ColGiven {
		col = len([]rune(leadingBlank(oldText))) + 1
	}
	what := fmt.Sprintf("%s changed since this conversation last read it: line %d was `%s`", p.Path, p.Line, clipSource(oldText))
	switch {
	case p.Line <= len(p.Lines) && strings.TrimSpace(p.Lines[p.Line-1]) == "":
		what += " and is now blank"
	case p.Line <= len(p.Lines):
		what += fmt.Sprintf(" and is now `%s`", clipSource(p.Lines[p.Line-1]))
	default:
		what += fmt.Sprintf(" and the file now has %s", countOf(len(p.Lines), "line"))
	}
	w, _ := identAt(oldText, col)
	if w == "" {
		w = nearestIdent(oldText, col).name
	}
	if w == "" {
		return fmt.Errorf("%s; read it again (read path=%s) and give the place as it is now, or name the code by symbol (lsp op=%s path=%s symbol=NAME)", what, p.Path, p.Op, p.Path)
	}
	nl, nc, ok := findMoved(p.Lines, oldText, w, p.Line, col)
	var b strings.Builder
	fmt.Fprintf(&b, "%s; the name read at %d:%d was `%s`", what, p.Line, col, w)
	if !ok {
		fmt.Fprintf(&b, ", which is no longer in %s; find it: lsp op=workspace_symbols path=%s query=%s, or grep pattern=%s", p.Path, p.Path, w, w)
		return errors.New(b.String())
	}
	fmt.Fprintf(&b, ", now at %s:%d:%d: `%s`. Ask: %s", p.Path, nl, nc, clipSource(p.Lines[nl-1]), p.call(nl, nc))
	if p.symbolLine(w) == nl {
		fmt.Fprintf(&b, ", or %s", p.symbolCall(w))
	}
	return errors.New(b.String())
}

// findMoved finds where name, read at line:col in a line whose text was
// oldText, is now: on the same line moved (the nearest), else the nearest
// occurrence of name as a word.
func findMoved(cur []string, oldText, name string, line, col int) (int, int, bool) {
	oldAt := identCols(oldText, name)
	k := 0 // which of the line's occurrences of name was read
	for i, c := range oldAt {
		if c <= col {
			k = i
		}
	}
	best, bestCol := 0, 0
	for i, t := range cur {
		if t != oldText {
			continue
		}
		if cols := identCols(t, name); k < len(cols) && (best == 0 || absInt(i+1-line) < absInt(best-line)) {
			best, bestCol = i+1, cols[k]
		}
	}
	if best > 0 {
		return best, bestCol, true
	}
	for i, t := range cur {
		if cols := identCols(t, name); len(cols) > 0 && (best == 0 || absInt(i+1-line) < absInt(best-line)) {
			best, bestCol = i+1, cols[0]
		}
	}
	return best, bestCol, best > 0
}

// identsHint names the identifiers on text, nearest to the column first,
// and the call that asks about the nearest.
func (p *Place) identsHint(text string) string {
	ids := lineIdents(text)
	if len(ids) == 0 {
		return fmt.Sprintf("; there is no name on that line: name the code by symbol (lsp op=%s path=%s symbol=NAME, names as outline path=%s shows them)", p.Op, p.Path, p.Path)
	}
	near := nearestIdent(text, p.Col)
	var names []string
	for i, id := range ids {
		if i == 8 {
			names = append(names, fmt.Sprintf("and %d more", len(ids)-i))
			break
		}
		names = append(names, fmt.Sprintf("%s (column %d)", id.name, id.col))
	}
	s := fmt.Sprintf("; the names on it: %s. The nearest: %s", strings.Join(names, ", "), p.call(p.Line, near.col))
	if p.symbolLine(near.name) > 0 {
		s += ", or " + p.symbolCall(near.name)
	}
	return s
}

func (p *Place) symbolLine(name string) int {
	if p.SymbolLine == nil {
		return 0
	}
	return p.SymbolLine(name)
}

func (p *Place) call(line, col int) string {
	s := fmt.Sprintf("lsp op=%s path=%s line=%d column=%d", p.Op, p.Path, line, col)
	if p.Op == "rename" {
		s += " new_name=" + p.NewName
	}
	return s
}

func (p *Place) symbolCall(name string) string {
	s := fmt.Sprintf("lsp op=%s path=%s symbol=%s", p.Op, p.Path, name)
	if p.Op == "rename" {
		s += " new_name=" + p.NewName
	}
	return s
}

func (p *Place) changedSince() string {
	if p.Changed {
		return " (the file changed since this conversation last read it)"
	}
	return ""
}

func runeAt(text string, col int) rune {
	rs := []rune(text)
	if col < 1 || col > len(rs) {
		return ' '
	}
	return rs[col-1]
}

// placeWord says what col is on: "past the end", "on a blank", "on `(`".
func placeWord(text string, col int) string {
	switch r := runeAt(text, col); {
	case col > utf8.RuneCountInString(text):
		return "past the end"
	case isSpace(r):
		return "on a blank"
	default:
		return fmt.Sprintf("on `%c`", r)
	}
}

// serverName is the server an lspmux error names ("lspmux: gopls ...").
func serverName(msg string) string {
	if f := strings.Fields(strings.TrimPrefix(msg, "lspmux: ")); len(f) > 0 {
		return f[0]
	}
	return "the language server"
}

func leadingBlank(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// clipSource is a line as an error quotes it: at most 160 bytes.
func clipSource(s string) string { return textfmt.Clip(strings.TrimRight(s, " \t"), 160) }

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
