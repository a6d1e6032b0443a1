package hub

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"cchub/textfmt"
)

// A line and column are the least durable way to name code: the model
// took them from a read, and the file may have changed since (an edit by
// the shell, a formatter, another conversation), or it counted wrong. A
// place that no longer holds a name is answered with where the name is
// now and the call that asks about it, never with the server's bare "no
// identifier found".

// placeCheck is what is known of a line/column query's place before the
// server is asked.
type placeCheck struct {
	rel       string
	op        string
	newName   string
	line, col int
	colGiven  bool
	cur       []string // the file's lines now
	changed   bool     // the run saw the file with other content
	old       []string // the lines the run saw, when kept
	haveOld   bool
}

// checkPlace looks at q's place in rel: nil when it may be asked about,
// else an error naming the place meant and the call to make. note is set
// when the place is asked about in a file changed since the run read it.
func (h *Hub) checkPlace(ctx context.Context, q LSPQuery, rel string, line, col int) (note string, err error) {
	data, rerr := h.Root.ReadText(rel)
	if rerr != nil {
		return "", nil // the server's own read says what is wrong
	}
	p := placeCheck{rel: rel, op: q.Op, newName: q.NewName, line: line, col: col, colGiven: q.Col >= 1, cur: textfmt.SplitLines(string(data))}
	if q.Run != nil {
		p.changed = q.Run.Seen.Changed(rel, data)
		if p.changed {
			var old string
			if old, p.haveOld = q.Run.Seen.Text(rel); p.haveOld {
				p.old = textfmt.SplitLines(old)
			}
		}
	}
	// Once told where things are now, the run's places are the file's as
	// it is now.
	told := q.Run.placesToldFor(rel, data)
	defer func() {
		if err != nil && p.changed {
			q.Run.toldPlaces(rel, data)
		}
	}()
	if p.changed && p.haveOld && !told && line <= len(p.old) && (line > len(p.cur) || p.old[line-1] != p.cur[line-1]) {
		return "", h.movedPlace(ctx, p)
	}
	if line > len(p.cur) {
		return "", fmt.Errorf("line %d is past the end of %s, which has %s%s; name the code by symbol instead (lsp op=%s path=%s symbol=NAME, names as outline path=%s shows them)",
			line, rel, countOf(len(p.cur), "line"), p.changedSince(), q.Op, rel, rel)
	}
	text := p.cur[line-1]
	n := utf8.RuneCountInString(text)
	if col > n+1 {
		return "", fmt.Errorf("column %d is past the end of %s line %d, which has %s%s: `%s`%s",
			col, rel, line, countOf(n, "character"), p.changedSince(), clipSource(text), h.identsHint(ctx, p, text))
	}
	if p.colGiven && !identNear(text, col) && (col > n || isSpace(runeAt(text, col))) {
		return "", fmt.Errorf("no name at %s:%d:%d, %s of line %d%s: `%s`%s",
			rel, line, col, placeWord(text, col), line, p.changedSince(), clipSource(text), h.identsHint(ctx, p, text))
	}
	if p.changed {
		w, _ := identAt(text, col)
		if w == "" {
			w = "the name there"
		} else {
			w = "`" + w + "`"
		}
		note = fmt.Sprintf("%s changed since this conversation last read it: this answer is about %s at %s:%d:%d as the file is now; read it again (read path=%s) if that is not what you meant", rel, w, rel, line, col, rel)
	}
	return note, nil
}

// noIdentifier turns a server's "no identifier" at a place into the
// names on that line and the call that asks about one.
func (h *Hub) noIdentifier(ctx context.Context, q LSPQuery, rel string, line, col int, err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "no identifier") && !strings.Contains(msg, "no object found") {
		return err
	}
	data, rerr := h.Root.ReadText(rel)
	if rerr != nil {
		return err
	}
	p := placeCheck{rel: rel, op: q.Op, newName: q.NewName, line: line, col: col, cur: textfmt.SplitLines(string(data))}
	if q.Run != nil {
		p.changed = q.Run.Seen.Changed(rel, data)
	}
	if line > len(p.cur) {
		return err
	}
	if p.changed {
		q.Run.toldPlaces(rel, data)
	}
	text := p.cur[line-1]
	return fmt.Errorf("%s found no name at %s:%d:%d (%s of line %d%s: `%s`)%s",
		serverName(msg), rel, line, col, placeWord(text, col), line, p.changedSince(), clipSource(text), h.identsHint(ctx, p, text))
}

// movedPlace answers a place in a file that changed since the run read
// it: the name that was there, where it is now, and the call to make.
func (h *Hub) movedPlace(ctx context.Context, p placeCheck) error {
	oldText := p.old[p.line-1]
	col := p.col
	if !p.colGiven {
		col = len([]rune(leadingBlank(oldText))) + 1
	}
	what := fmt.Sprintf("%s changed since this conversation last read it: line %d was `%s`", p.rel, p.line, clipSource(oldText))
	switch {
	case p.line <= len(p.cur) && strings.TrimSpace(p.cur[p.line-1]) == "":
		what += " and is now blank"
	case p.line <= len(p.cur):
		what += fmt.Sprintf(" and is now `%s`", clipSource(p.cur[p.line-1]))
	default:
		what += fmt.Sprintf(" and the file now has %s", countOf(len(p.cur), "line"))
	}
	w, _ := identAt(oldText, col)
	if w == "" {
		w = nearestIdent(oldText, col).name
	}
	if w == "" {
		return fmt.Errorf("%s; read it again (read path=%s) and give the place as it is now, or name the code by symbol (lsp op=%s path=%s symbol=NAME)", what, p.rel, p.op, p.rel)
	}
	nl, nc, ok := findMoved(p.cur, oldText, w, p.line, col)
	var b strings.Builder
	fmt.Fprintf(&b, "%s; the name read at %d:%d was `%s`", what, p.line, col, w)
	if !ok {
		fmt.Fprintf(&b, ", which is no longer in %s; find it: lsp op=workspace_symbols path=%s query=%s, or grep pattern=%s", p.rel, p.rel, w, w)
		return errors.New(b.String())
	}
	fmt.Fprintf(&b, ", now at %s:%d:%d: `%s`. Ask: %s", p.rel, nl, nc, clipSource(p.cur[nl-1]), p.call(nl, nc))
	if sl, _, err := h.symbolPosition(ctx, p.rel, w); err == nil && sl == nl {
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
func (h *Hub) identsHint(ctx context.Context, p placeCheck, text string) string {
	ids := lineIdents(text)
	if len(ids) == 0 {
		return fmt.Sprintf("; there is no name on that line: name the code by symbol (lsp op=%s path=%s symbol=NAME, names as outline path=%s shows them)", p.op, p.rel, p.rel)
	}
	near := nearestIdent(text, p.col)
	var names []string
	for i, id := range ids {
		if i == 8 {
			names = append(names, fmt.Sprintf("and %d more", len(ids)-i))
			break
		}
		names = append(names, fmt.Sprintf("%s (column %d)", id.name, id.col))
	}
	s := fmt.Sprintf("; the names on it: %s. The nearest: %s", strings.Join(names, ", "), p.call(p.line, near.col))
	if sl, _, err := h.symbolPosition(ctx, p.rel, near.name); err == nil && sl > 0 {
		s += ", or " + p.symbolCall(near.name)
	}
	return s
}

func (p placeCheck) call(line, col int) string {
	s := fmt.Sprintf("lsp op=%s path=%s line=%d column=%d", p.op, p.rel, line, col)
	if p.op == "rename" {
		s += " new_name=" + p.newName
	}
	return s
}

func (p placeCheck) symbolCall(name string) string {
	s := fmt.Sprintf("lsp op=%s path=%s symbol=%s", p.op, p.rel, name)
	if p.op == "rename" {
		s += " new_name=" + p.newName
	}
	return s
}

func (p placeCheck) changedSince() string {
	if p.changed {
		return " (the file changed since this conversation last read it)"
	}
	return ""
}

// ident is an identifier on a line and its 1-based rune column.
type ident struct {
	name string
	col  int
}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func isIdentRune(r rune) bool  { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
func isSpace(r rune) bool      { return r == ' ' || r == '\t' || r == '\r' }

// keywords are words of the common languages that name nothing a
// server answers about.
var keywords = map[string]bool{
	"func": true, "return": true, "if": true, "else": true, "for": true, "var": true, "const": true,
	"type": true, "package": true, "import": true, "range": true, "go": true, "defer": true,
	"switch": true, "case": true, "default": true, "break": true, "continue": true, "struct": true,
	"interface": true, "map": true, "chan": true, "select": true, "def": true, "class": true,
	"from": true, "as": true, "in": true, "not": true, "and": true, "or": true, "is": true,
	"pass": true, "lambda": true, "with": true, "yield": true, "async": true, "await": true,
	"let": true, "function": true, "export": true, "new": true, "while": true, "try": true,
	"except": true, "catch": true, "finally": true, "raise": true, "throw": true,
}

// lineIdents lists the identifiers of text (words starting with a letter
// or underscore, keywords left out), in order.
func lineIdents(text string) []ident {
	var out []ident
	rs := []rune(text)
	for i := 0; i < len(rs); {
		if !isIdentRune(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && isIdentRune(rs[j]) {
			j++
		}
		if w := string(rs[i:j]); isIdentStart(rs[i]) && !keywords[w] {
			out = append(out, ident{w, i + 1})
		}
		i = j
	}
	return out
}

// identAt is the identifier at col (on it, or just after its end, as
// servers take it), and its column.
func identAt(text string, col int) (string, int) {
	for _, id := range lineIdents(text) {
		if col >= id.col && col <= id.col+utf8.RuneCountInString(id.name) {
			return id.name, id.col
		}
	}
	return "", 0
}

// identNear says whether col is on an identifier or just after one.
func identNear(text string, col int) bool {
	w, _ := identAt(text, col)
	return w != ""
}

// nearestIdent is the identifier of text nearest to col (zero if none).
func nearestIdent(text string, col int) ident {
	var best ident
	bestD := -1
	for _, id := range lineIdents(text) {
		end := id.col + utf8.RuneCountInString(id.name) - 1
		d := 0
		switch {
		case col < id.col:
			d = id.col - col
		case col > end:
			d = col - end
		}
		if bestD < 0 || d < bestD {
			best, bestD = id, d
		}
	}
	return best
}

// identCols are the columns where name stands as a whole word in text.
func identCols(text, name string) []int {
	var cols []int
	for _, id := range lineIdents(text) {
		if id.name == name {
			cols = append(cols, id.col)
		}
	}
	return cols
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

// toldPlaces records that r was told places in rel as its content is now
// (data): its next lines and columns in rel are taken as the file's now.
func (r *Run) toldPlaces(rel string, data []byte) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.placesTold == nil {
		r.placesTold = map[string][32]byte{}
	}
	r.placesTold[rel] = sha256.Sum256(data)
}

// placesToldFor says whether r was told places in rel as data.
func (r *Run) placesToldFor(rel string, data []byte) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.placesTold[rel]
	return ok && h == sha256.Sum256(data)
}
