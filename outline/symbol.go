package outline

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cchub/syntax"
	"cchub/textfmt"
	"cchub/workspace"
)

// SymbolText is one symbol's source, as read_symbol returns it.
type SymbolText struct {
	Path      string  `json:"path"`
	Symbol    *Symbol `json:"symbol"`
	FileLines int     `json:"file_lines"`
	// Body is the symbol's lines StartLine..EndLine (up to ShownEnd),
	// listed as every tool lists lines: "N\ttext".
	Body string `json:"text"`
	// ShownEnd is the last line in Body: EndLine unless a byte budget
	// cut the symbol short.
	ShownEnd int `json:"shown_end"`
	// Source is the whole file the symbol was read from.
	Source []byte `json:"-"`
}

// maxMovedListed bounds the places an ambiguous name's error lists.
const maxMovedListed = 10

// symbolIDForm is what an id looks like, for errors.
const symbolIDForm = "path:name, path:Type.method or path:line:name (e.g. store/store.go:New, store/store.go:Store.Add, store/store.go:58:New)"

// idLine finds the ":line" (":line:" before a name, or ":line" at the end)
// that separates an id's path from the rest.
var idLine = regexp.MustCompile(`:[Ll]?(\d+)(?::|$)`)

// idPlace matches a place as the tools print it: path:START-END or
// path:LINE:COL.
var idPlace = regexp.MustCompile(`^(.+?):(\d+)(?:-\d+|:\d+)$`)

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// symbolID is one reading of an id: a path, and a line (0 when not
// given) and/or a name.
type symbolID struct {
	path string
	line int
	name string
}

// parseSymbolID returns the readings of id, most specific first. A path
// or a name (C++ "Ledger::book") may contain colons, so every colon is a
// possible split; the caller keeps the first reading whose path is a file.
func parseSymbolID(id string) ([]symbolID, error) {
	id = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(id), "id="))
	id = strings.TrimRight(id, "?;,` ") // copied from an error's sentence
	if strings.HasPrefix(id, ":") {
		return nil, fmt.Errorf("read_symbol: id %q has no path; write it as %s", id, symbolIDForm)
	}
	var out []symbolID
	// The places other tools print: path:START-END (read, read_symbol) and
	// path:LINE:COL (search) name the symbol there.
	if m := idPlace.FindStringSubmatch(id); m != nil {
		line, _ := strconv.Atoi(m[2])
		out = append(out, symbolID{path: m[1], line: line})
	}
	for _, m := range idLine.FindAllStringSubmatchIndex(id, -1) {
		path, name := id[:m[0]], strings.TrimSpace(id[m[1]:])
		line, err := strconv.Atoi(id[m[2]:m[3]])
		if path == "" || err != nil || allDigits(name) {
			continue
		}
		if line < 1 {
			return nil, fmt.Errorf("read_symbol: id %q names line %d, but lines start at 1; write it as %s", id, line, symbolIDForm)
		}
		out = append(out, symbolID{path, line, name})
	}
	for i := 0; i < len(id); i++ {
		if id[i] != ':' {
			continue
		}
		path, name := id[:i], strings.TrimSpace(id[i+1:])
		if path != "" && name != "" && !startsWithDigit(name) {
			out = append(out, symbolID{path: path, name: name})
		}
	}
	if len(out) == 0 && !strings.Contains(id, ":") && syntax.LanguageFor(id) != nil {
		return nil, fmt.Errorf("read_symbol: id %q is a file without a symbol name; write it as %s:Name (outline path=%s lists the names)", id, id, id)
	}
	if len(out) == 0 && !strings.Contains(id, ":") && id != "" {
		return nil, fmt.Errorf("read_symbol: id %q names no file; write it as %s; to find the file that defines it: outline path=. match=%s", id, symbolIDForm, lastPart(id))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read_symbol: id %q is not of the form %s", id, symbolIDForm)
	}
	return out, nil
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// Budget bounds the lines read_symbol lists (0: no bound); a symbol
// longer than that is cut at a whole line, and the text names the read
// that continues it.
type Budget struct {
	Bytes, Lines int
}

// ErrNoSymbol is wrapped by read_symbol's error for a file that exists
// but defines no symbol of that name.
var ErrNoSymbol = errors.New("no such symbol")

type noSymbolError string

func (e noSymbolError) Error() string { return string(e) }
func (noSymbolError) Unwrap() error   { return ErrNoSymbol }

func noSymbol(msg string) error { return noSymbolError(msg) }

// ReadSymbol returns the source of the symbol id names: by name (unique
// in the file), by line and name, or by line alone (the innermost symbol
// there), within budget. When a name is ambiguous or gone, the error
// lists the ids that would work.
func ReadSymbol(ctx context.Context, root *workspace.Root, cache *syntax.ParseCache, id string, budget Budget) (*SymbolText, error) {
	ids, err := parseSymbolID(id)
	if err != nil {
		return nil, err
	}
	want := ids[0]
	var rel string
	found := false
	for _, c := range ids {
		_, r, err := root.Resolve(c.path)
		if err != nil {
			continue
		}
		if st, err := root.Stat(r); err == nil && !st.IsDir() {
			want, rel, found = c, r, true
			break
		}
	}
	if !found {
		return nil, noSuchFile(ctx, root, ids)
	}
	f, src, err := fileOutline(ctx, root, cache, rel, Options{LongFunctionLines: defaultLongFunctionLines})
	if err != nil {
		return nil, fmt.Errorf("read_symbol: %w", err)
	}
	sym, err := resolveSymbol(f, want)
	if err != nil {
		return nil, err
	}
	st := &SymbolText{Path: rel, Symbol: sym, FileLines: f.Lines, ShownEnd: sym.EndLine, Source: src}
	st.Body = textfmt.NumberedLines(src, sym.StartLine, sym.EndLine)
	st.Body, st.ShownEnd = cutLines(st.Body, budget, sym.StartLine)
	return st, nil
}

// noSuchFile explains an id whose path is not a file.
func noSuchFile(ctx context.Context, root *workspace.Root, ids []symbolID) error {
	want := ids[0]
	_, r, err := root.Resolve(want.path)
	if err != nil {
		return fmt.Errorf("read_symbol: %w", err)
	}
	if st, err := root.Stat(r); err == nil && st.IsDir() {
		return fmt.Errorf("read_symbol: %s is a directory; outline path=%s maps its files, or give a file: %s", r, r, symbolIDForm)
	}
	return fmt.Errorf("read_symbol: %w", root.NotFound(ctx, r, false))
}

// resolveSymbol finds the one symbol want names in f.
func resolveSymbol(f *File, want symbolID) (*Symbol, error) {
	if want.name == "" {
		if at := innermostAt(f.Symbols, want.line); len(at) == 1 {
			return at[0], nil
		} else if len(at) > 1 {
			return nil, fmt.Errorf("read_symbol: %d symbols of %s are on line %d; ask for one:%s", len(at), f.Path, want.line, candidateIDs(f, at))
		}
		if want.line > f.Lines {
			return nil, fmt.Errorf("read_symbol: %s has %d lines, so no symbol covers line %d; outline path=%s lists its symbols",
				f.Path, f.Lines, want.line, f.Path)
		}
		return nil, fmt.Errorf("read_symbol: no symbol of %s covers line %d (the file has %d lines); read path=%s offset=%d, or outline path=%s for its symbols",
			f.Path, want.line, f.Lines, f.Path, want.line, f.Path)
	}
	matches := findSymbols(f.Symbols, want.name)
	if want.line > 0 {
		for _, m := range matches {
			if m.StartLine == want.line {
				return m, nil
			}
		}
		return nil, symbolMoved(f, want, matches)
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return nil, symbolMissing(f, want)
	}
	return nil, fmt.Errorf("read_symbol: %d symbols of %s are named %s; ask for one:%s", len(matches), f.Path, want.name, candidateIDs(f, matches))
}

// candidateIDs lists the ids that name each of syms exactly, a line each.
func candidateIDs(f *File, syms []*Symbol) string {
	var where []string
	for i, m := range syms {
		if i == maxMovedListed {
			where = append(where, fmt.Sprintf("and %d more: outline path=%s lists them", len(syms)-i, f.Path))
			break
		}
		id, unique := idFor(f.Symbols, m)
		if unique {
			where = append(where, fmt.Sprintf("read_symbol id=%s:%s", f.Path, id))
		} else {
			where = append(where, fmt.Sprintf("read_symbol id=%s:%s (%s)", f.Path, id, head(m)))
		}
	}
	return "\n  " + strings.Join(where, "\n  ")
}

// symbolMissing explains a name f does not have, suggesting names that
// differ only in case or by a typo.
func symbolMissing(f *File, want symbolID) error {
	var near []string
	q := strings.ToLower(normName(want.name))
	walkQualified(f.Symbols, "", func(s *Symbol, qual string) {
		n, nq := strings.ToLower(normName(s.Name)), strings.ToLower(normName(qual))
		if n == q || nq == q || strings.HasSuffix(nq, "."+q) || nearName(n, q) || nearName(nq, q) {
			near = append(near, fmt.Sprintf("read_symbol id=%s:%s", f.Path, qual))
		}
	})
	if len(near) > 0 {
		if len(near) > 3 {
			near = near[:3]
		}
		return noSymbol(fmt.Sprintf("read_symbol: %s has no symbol named %s; did you mean:\n  %s", f.Path, want.name, strings.Join(near, "\n  ")))
	}
	return noSymbol(fmt.Sprintf("read_symbol: %s has no symbol named %s; outline path=%s lists its symbols (outline path=%s match=%s finds names containing a part of it)",
		f.Path, want.name, f.Path, f.Path, lastPart(want.name)))
}

// nearName reports whether a is a typo of b: a few edits apart.
func nearName(a, b string) bool {
	limit := max(1, min(len(b)/4, 3))
	return textfmt.EditDistance(a, b, limit) <= limit
}

func lastPart(name string) string {
	n := strings.ReplaceAll(name, "::", ".")
	if i := strings.IndexAny(n, "( "); i >= 0 {
		n = n[:i] // a signature pasted after the name
	}
	n = normName(n)
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		return n[i+1:]
	}
	return n
}

// symbolMoved explains why want was not found at its line and names the
// call that would succeed.
func symbolMoved(f *File, want symbolID, matches []*Symbol) error {
	switch len(matches) {
	case 0:
		var now string
		if s := symbolAtLine(f.Symbols, want.line); s != nil {
			now = fmt.Sprintf("; line %d now starts %s", want.line, head(s))
		}
		return noSymbol(fmt.Sprintf("read_symbol: %s has no symbol named %s (the file has %d lines%s); outline path=%s lists its symbols",
			f.Path, want.name, f.Lines, now, f.Path))
	case 1:
		m := matches[0]
		id, _ := idFor(f.Symbols, m)
		return fmt.Errorf("read_symbol: %s does not start at %s:%d (the file may have changed); it is now at %s: read_symbol id=%s:%s",
			want.name, f.Path, want.line, textfmt.Place(f.Path, m.StartLine, m.EndLine), f.Path, id)
	}
	return fmt.Errorf("read_symbol: %s does not start at %s:%d (the file may have changed); %d symbols are named %s now:%s",
		want.name, f.Path, want.line, len(matches), want.name, candidateIDs(f, matches))
}

// cutLines keeps the whole listed lines of body that fit the budget (at
// least one), and returns the number of the last one kept.
func cutLines(body string, b Budget, first int) (string, int) {
	cut, last := 0, first-1
	for cut < len(body) {
		nl := strings.IndexByte(body[cut:], '\n')
		if nl < 0 {
			break
		}
		full := (b.Bytes > 0 && cut+nl+1 > b.Bytes) || (b.Lines > 0 && last-first+1 >= b.Lines)
		if full && last >= first {
			break
		}
		cut += nl + 1
		last++
	}
	return body[:cut], last
}

// addressable reports whether read_symbol can name s.
func addressable(s *Symbol) bool {
	return s.Name != "" && s.Kind != "import" && !isBlockKind(s.Kind)
}

// normName makes the ways a model writes a name comparable: Store.Add,
// (*Store).Add, Store::add, add() all reduce to dotted plain names.
func normName(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "()")
	s = strings.ReplaceAll(s, "::", ".")
	return nameNoise.Replace(s)
}

// nameNoise removes what normName ignores. Made once: a Replacer made per
// call cost ~25 KB, and an outline names every symbol (20 GB allocated
// for a file of 780,000 one-line statements).
var nameNoise = strings.NewReplacer("(", "", ")", "", "*", "", " ", "")

// findSymbols returns the symbols, nested ones included, that name
// designates: by their own name or qualified by their containers
// (Store.Add for a Go method on Store, Item.value for a Python method).
func findSymbols(syms []*Symbol, name string) []*Symbol {
	q := normName(name)
	var out []*Symbol
	walkQualified(syms, "", func(s *Symbol, qual string) {
		qual = normName(qual)
		if normName(s.Name) == q || qual == q || strings.HasSuffix(qual, "."+q) {
			out = append(out, s)
		}
	})
	return out
}

// walkQualified calls fn for every addressable symbol with the name
// read_symbol knows it by.
func walkQualified(syms []*Symbol, prefix string, fn func(s *Symbol, qual string)) {
	for _, s := range syms {
		q := qualified(s, prefix)
		if addressable(s) {
			fn(s, q)
		}
		walkQualified(s.Children, childPrefix(s, prefix), fn)
	}
}

// qualified is the name read_symbol knows s by: its name, after its Go
// receiver's type or the names of the symbols it is nested in.
func qualified(s *Symbol, prefix string) string {
	switch {
	case s.Receiver != "":
		return receiverType(s.Receiver) + "." + s.Name
	case prefix != "":
		return prefix + "." + s.Name
	}
	return s.Name
}

// childPrefix is the prefix that qualifies the names of s's children.
func childPrefix(s *Symbol, prefix string) string {
	if addressable(s) {
		return qualified(s, prefix)
	}
	return prefix
}

// idFor is the shortest id (after "path:") that names target alone
// among syms: its name, Type.name, or its whole qualified name; unique is
// false when none does (overloads), and the id is then line:name.
func idFor(syms []*Symbol, target *Symbol) (id string, unique bool) {
	q := qualifiedIn(syms, target)
	parts := strings.Split(normName(q), ".")
	var tries []string
	if len(parts) >= 2 {
		tries = append(tries, strings.Join(parts[len(parts)-2:], "."))
	}
	tries = append(tries, q, target.Name)
	for _, t := range tries {
		if m := findSymbols(syms, t); len(m) == 1 && m[0] == target {
			return t, true
		}
	}
	return fmt.Sprintf("%d:%s", target.StartLine, q), false
}

// qualifiedIn returns target's qualified name within syms.
func qualifiedIn(syms []*Symbol, target *Symbol) string {
	name := target.Name
	walkQualified(syms, "", func(s *Symbol, qual string) {
		if s == target {
			name = qual
		}
	})
	return name
}

// innermostAt returns the innermost addressable symbols whose range
// holds line: one, or several written side by side on that line.
func innermostAt(syms []*Symbol, line int) []*Symbol {
	var out []*Symbol
	for _, s := range syms {
		if s.StartLine <= line && line <= s.EndLine {
			if in := innermostAt(s.Children, line); len(in) > 0 {
				out = append(out, in...)
			} else if addressable(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// symbolAtLine returns the first addressable symbol starting at line.
func symbolAtLine(syms []*Symbol, line int) *Symbol {
	for _, s := range syms {
		if addressable(s) && s.StartLine == line {
			return s
		}
		if r := symbolAtLine(s.Children, line); r != nil {
			return r
		}
	}
	return nil
}

// Text renders the symbol for a model: its place, head and size, then
// its lines, and where to continue when a budget cut it short.
func (s *SymbolText) Text() string {
	var b strings.Builder
	sym := s.Symbol
	n := sym.EndLine - sym.StartLine + 1
	fmt.Fprintf(&b, "%s %s (%s of %d)\n", textfmt.Place(s.Path, sym.StartLine, sym.EndLine), head(sym), plural(n, "line", "lines"), s.FileLines)
	b.WriteString(s.Body)
	if s.ShownEnd < sym.EndLine {
		fmt.Fprintf(&b, "[cut at line %d to fit the result; continue with read path=%s offset=%d limit=%d]\n",
			s.ShownEnd, s.Path, s.ShownEnd+1, sym.EndLine-s.ShownEnd)
	}
	return b.String()
}
