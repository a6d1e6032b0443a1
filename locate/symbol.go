package locate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"cchub/workspace"
)

// SymbolText is one symbol's source, as read_symbol returns it.
type SymbolText struct {
	Path      string  `json:"path"`
	Symbol    *Symbol `json:"symbol"`
	FileLines int     `json:"file_lines"`
	// Body is the symbol's lines StartLine..EndLine, numbered as read
	// numbers them: "%6d\t%s".
	Body string `json:"text"`
}

// maxMovedListed bounds the places an ambiguous name's error lists.
const maxMovedListed = 10

// symbolIDForm is what an id looks like, for errors.
const symbolIDForm = "path:line:name, as outline prints them (e.g. store/store.go:58:New, or Store.Add for a method)"

// idSep finds the ":line:" that separates an id's path from its name.
var idSep = regexp.MustCompile(`:[Ll]?(\d+):`)

type symbolID struct {
	path string
	line int
	name string
}

// parseSymbolID returns the readings of id, leftmost ":line:" first. A
// path or a name (C++ "Ledger::book") may contain colons, so there can
// be more than one.
func parseSymbolID(id string) ([]symbolID, error) {
	id = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(id), "id="))
	var out []symbolID
	for _, m := range idSep.FindAllStringSubmatchIndex(id, -1) {
		path, name := id[:m[0]], strings.TrimSpace(id[m[1]:])
		line, err := strconv.Atoi(id[m[2]:m[3]])
		if path == "" || name == "" || err != nil || line < 1 {
			continue
		}
		out = append(out, symbolID{path, line, name})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read_symbol: id %q is not of the form %s", id, symbolIDForm)
	}
	return out, nil
}

// ReadSymbol returns the source of the symbol id names. When the file has
// changed so that the name no longer starts at that line, the error says
// where the name is now, or that it is gone.
func ReadSymbol(ctx context.Context, root *workspace.Root, cache *workspace.ParseCache, id string) (*SymbolText, error) {
	ids, err := parseSymbolID(id)
	if err != nil {
		return nil, err
	}
	want := ids[0]
	var abs, rel string
	found := false
	for _, c := range ids {
		a, r, err := root.Resolve(c.path)
		if err != nil {
			continue
		}
		if st, err := os.Stat(a); err == nil && !st.IsDir() {
			want, abs, rel, found = c, a, r, true
			break
		}
	}
	if !found {
		a, r, err := root.Resolve(want.path)
		if err != nil {
			return nil, fmt.Errorf("read_symbol: %w", err)
		}
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			return nil, fmt.Errorf("read_symbol: %s is a directory; outline path=%s maps its files, then outline one file for its ids", r, r)
		}
		return nil, fmt.Errorf("read_symbol: %w", notFound(ctx, root, r, false))
	}
	f, src, err := outlineFile(ctx, cache, abs, rel, OutlineOptions{LongFunctionLines: defaultLongFunctionLines})
	if err != nil {
		return nil, fmt.Errorf("read_symbol: %w", err)
	}
	matches := findSymbols(f.Symbols, want.name)
	for _, m := range matches {
		if m.StartLine == want.line {
			return &SymbolText{Path: rel, Symbol: m, FileLines: f.Lines, Body: numberedLines(src, m.StartLine, m.EndLine)}, nil
		}
	}
	return nil, symbolMoved(f, want, matches)
}

// symbolMoved explains why want was not found and names the call that
// would succeed.
func symbolMoved(f *FileOutline, want symbolID, matches []*Symbol) error {
	switch len(matches) {
	case 0:
		var now string
		if s := symbolAtLine(f.Symbols, want.line); s != nil {
			now = fmt.Sprintf("; L%d now starts %s %s", want.line, s.Kind, s.Name)
		}
		return fmt.Errorf("read_symbol: %s has no symbol named %s (the file has %d lines%s); outline path=%s lists its symbols with their ids",
			f.Path, want.name, f.Lines, now, f.Path)
	case 1:
		m := matches[0]
		return fmt.Errorf("read_symbol: %s does not start at %s:%d (the file may have changed); %s is now at %s: read_symbol id=%s:%d:%s",
			want.name, f.Path, want.line, want.name, lineSpan(m.StartLine, m.EndLine), f.Path, m.StartLine, want.name)
	}
	var where []string
	for i, m := range matches {
		if i == maxMovedListed {
			where = append(where, fmt.Sprintf("and %d more: outline path=%s", len(matches)-i, f.Path))
			break
		}
		where = append(where, fmt.Sprintf("%s %s %s: read_symbol id=%s:%d:%s", lineSpan(m.StartLine, m.EndLine), m.Kind, m.Name, f.Path, m.StartLine, want.name))
	}
	return fmt.Errorf("read_symbol: %s does not start at %s:%d (the file may have changed); %d symbols are named %s now: %s",
		want.name, f.Path, want.line, len(matches), want.name, strings.Join(where, "; "))
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
	return strings.NewReplacer("(", "", ")", "", "*", "", " ", "").Replace(s)
}

// findSymbols returns the symbols, nested ones included, that name
// designates: by their own name or qualified by their containers
// (Store.Add for a Go method on Store, Item.value for a Python method).
func findSymbols(syms []*Symbol, name string) []*Symbol {
	q := normName(name)
	var out []*Symbol
	var walk func(ss []*Symbol, prefix string)
	walk = func(ss []*Symbol, prefix string) {
		for _, s := range ss {
			if !addressable(s) {
				walk(s.Children, prefix)
				continue
			}
			qual := normName(s.Name)
			if s.Receiver != "" {
				qual = receiverType(s.Receiver) + "." + qual
			} else if prefix != "" {
				qual = prefix + "." + qual
			}
			if normName(s.Name) == q || qual == q || strings.HasSuffix(qual, "."+q) {
				out = append(out, s)
			}
			walk(s.Children, qual)
		}
	}
	walk(syms, "")
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

// numberLines renders lines start..end of src as read does.
func numberedLines(src []byte, start, end int) string {
	var b strings.Builder
	line := 1
	for i := 0; i < len(src) && line <= end; {
		j := bytes.IndexByte(src[i:], '\n')
		next := len(src)
		text := src[i:]
		if j >= 0 {
			text = src[i : i+j]
			next = i + j + 1
		}
		if line >= start {
			fmt.Fprintf(&b, "%6d\t%s\n", line, strings.TrimSuffix(string(text), "\r"))
		}
		i = next
		line++
	}
	return b.String()
}

// Text renders the symbol for a model: a header with its place and size,
// then its numbered lines.
func (s *SymbolText) Text() string {
	var b strings.Builder
	n := s.Symbol.EndLine - s.Symbol.StartLine + 1
	unit := "lines"
	if n == 1 {
		unit = "line"
	}
	fmt.Fprintf(&b, "%s %s: %s (%d %s, part of a file of %d lines)\n",
		s.Path, lineSpan(s.Symbol.StartLine, s.Symbol.EndLine), symbolHead(s.Symbol), n, unit, s.FileLines)
	b.WriteString(s.Body)
	return b.String()
}
