package lspmux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/uri"
)

// Ops are the queries Query answers.
var Ops = []string{"definition", "references", "hover", "implementation", "document_symbols", "workspace_symbols", "incoming_calls", "outgoing_calls", "rename"}

// Query is one question to the server of Path: at Line:Col (1-based, in
// characters), except for document_symbols (the file) and
// workspace_symbols (Name, a query string).
type Query struct {
	Op        string
	Path      string
	Line, Col int
	Name      string // workspace_symbols: what to look for
	NewName   string // rename
}

// Location is a place in a file, with its first source line.
type Location struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	EndLine int    `json:"end_line"`
	EndCol  int    `json:"end_col"`
	Text    string `json:"text,omitempty"` // the source line at Line
	Name    string `json:"name,omitempty"` // a symbol's or a call's name
	Kind    string `json:"kind,omitempty"` // a symbol's kind
	Depth   int    `json:"depth,omitempty"`
}

// Answer is what a query found: Locations for most ops, Text for hover,
// Diffs (one unified diff per file, nothing written) for rename.
type Answer struct {
	Op        string     `json:"op"`
	Locations []Location `json:"locations,omitempty"`
	Text      string     `json:"text,omitempty"`
	Diffs     []FileDiff `json:"diffs,omitempty"`
	// Outside are the places (definition, references, implementation)
	// outside the workspace, as absolute file paths: the standard library,
	// a dependency. Locations leaves them out.
	Outside []string `json:"-"`
}

// FileDiff is a rename's change to one file.
type FileDiff struct {
	Path    string `json:"path"`
	Diff    string `json:"diff"`
	NewText string `json:"-"`
	OldText []byte `json:"-"` // the content the edits were made against
	// Lines are the 1-based lines (in OldText) where each of the
	// server's edits starts, in order: a file with 4 renamed
	// identifiers has 4, however its diff groups them.
	Lines []int `json:"lines,omitempty"`
}

// Query asks the server of q.Path. The file is told to the server first if
// it has not seen its content on disk.
func (m *Mux) Query(ctx context.Context, q Query) (*Answer, error) {
	o, err := m.ownerOf(q.Path)
	if err != nil {
		return nil, err
	}
	s, note, err := m.server(ctx, o)
	if err != nil {
		if note != "" {
			return nil, fmt.Errorf("%s; %w", note, err)
		}
		return nil, err
	}
	defer s.hold()()
	text, err := m.root.ReadText(q.Path)
	if err != nil {
		return nil, err
	}
	u := m.docURI(q.Path)
	if _, err := s.tell(ctx, u, o.lang, text); err != nil {
		return nil, err
	}
	m.warm(s)
	return m.ask(ctx, s, u, text, q)
}

// ask asks s, which has been told text as the document u, the query q.
func (m *Mux) ask(ctx context.Context, s *server, u uri.URI, text []byte, q Query) (*Answer, error) {
	doc := map[string]any{"uri": u}
	pos := func() map[string]any {
		return map[string]any{"textDocument": doc, "position": lspPos(text, q.Line, q.Col)}
	}
	a := &Answer{Op: q.Op}
	var raw json.RawMessage
	call := func(method string, params any) error {
		raw = nil
		id, err := s.conn.Call(ctx, method, params, &raw)
		if err != nil {
			if ctx.Err() != nil {
				s.cancel(ctx, id)
			}
			return s.failed(method, err)
		}
		return nil
	}
	switch q.Op {
	case "definition", "implementation":
		if err := call("textDocument/"+q.Op, pos()); err != nil {
			return nil, err
		}
		a.Locations, a.Outside = m.locations(raw)
	case "references":
		p := pos()
		p["context"] = map[string]any{"includeDeclaration": true}
		if err := call("textDocument/references", p); err != nil {
			return nil, err
		}
		a.Locations, a.Outside = m.locations(raw)
	case "hover":
		if err := call("textDocument/hover", pos()); err != nil {
			return nil, err
		}
		a.Text = hoverText(raw)
	case "document_symbols":
		if err := call("textDocument/documentSymbol", map[string]any{"textDocument": doc}); err != nil {
			return nil, err
		}
		a.Locations = m.symbols(q.Path, raw)
	case "workspace_symbols":
		if err := call("workspace/symbol", map[string]any{"query": q.Name}); err != nil {
			return nil, err
		}
		a.Locations = m.symbols("", raw)
	case "incoming_calls", "outgoing_calls":
		if err := call("textDocument/prepareCallHierarchy", pos()); err != nil {
			return nil, err
		}
		var items []json.RawMessage
		_ = json.Unmarshal(raw, &items)
		method := "callHierarchy/incomingCalls"
		field := "from"
		if q.Op == "outgoing_calls" {
			method, field = "callHierarchy/outgoingCalls", "to"
		}
		for _, it := range items {
			if err := call(method, map[string]any{"item": it}); err != nil {
				return nil, err
			}
			var calls []map[string]json.RawMessage
			_ = json.Unmarshal(raw, &calls)
			for _, c := range calls {
				a.Locations = append(a.Locations, m.symbols("", json.RawMessage("["+string(c[field])+"]"))...)
			}
		}
	case "rename":
		if q.NewName == "" {
			return nil, errors.New("rename needs new_name")
		}
		p := pos()
		p["newName"] = q.NewName
		if err := call("textDocument/rename", p); err != nil {
			return nil, err
		}
		diffs, err := m.renameDiffs(raw)
		if err != nil {
			return nil, err
		}
		a.Diffs = diffs
	default:
		return nil, fmt.Errorf("unknown op %q: one of %s", q.Op, strings.Join(Ops, ", "))
	}
	return a, nil
}

// lspPos is the LSP position of 1-based line and character col of text.
func lspPos(text []byte, line, col int) map[string]any {
	starts := lineStarts(text)
	l := max(line-1, 0)
	units := 0
	if l < len(starts) {
		off := starts[l]
		for c := 1; c < col && off < len(text) && text[off] != '\n'; c++ {
			r, n := utf8.DecodeRune(text[off:])
			units++
			if r >= 0x10000 {
				units++
			}
			off += n
		}
	}
	return map[string]any{"line": l, "character": units}
}

type lspRange struct {
	Start struct{ Line, Character uint32 } `json:"start"`
	End   struct{ Line, Character uint32 } `json:"end"`
}

// place turns a URI and range into a Location with its source line.
func (m *Mux) place(u string, r lspRange) (Location, bool) {
	rel := m.root.Rel(uri.URI(u).Filename())
	if rel == "" || strings.HasPrefix(rel, "..") {
		return Location{}, false
	}
	text, _ := m.root.ReadText(rel)
	starts := lineStarts(text)
	conv := func(line, char uint32) (int, int) {
		return charPosRaw(text, starts, line, char)
	}
	l, c := conv(r.Start.Line, r.Start.Character)
	el, ec := conv(r.End.Line, r.End.Character)
	loc := Location{Path: rel, Line: l, Col: c, EndLine: el, EndCol: ec}
	if int(r.Start.Line) < len(starts) {
		line := text[starts[r.Start.Line]:]
		if i := strings.IndexByte(string(line), '\n'); i >= 0 {
			line = line[:i]
		}
		loc.Text = strings.TrimSpace(string(line))
	}
	return loc, true
}

// locations reads Location, []Location or []LocationLink: the places in
// the workspace, and the files of those outside it.
func (m *Mux) locations(raw json.RawMessage) ([]Location, []string) {
	type loc struct {
		URI         string   `json:"uri"`
		Range       lspRange `json:"range"`
		TargetURI   string   `json:"targetUri"`
		TargetRange lspRange `json:"targetSelectionRange"`
	}
	var many []loc
	if err := json.Unmarshal(raw, &many); err != nil {
		var one loc
		if json.Unmarshal(raw, &one) == nil && (one.URI != "" || one.TargetURI != "") {
			many = []loc{one}
		}
	}
	var out []Location
	var outside []string
	for _, l := range many {
		u, r := l.URI, l.Range
		if u == "" {
			u, r = l.TargetURI, l.TargetRange
		}
		if p, ok := m.place(u, r); ok {
			out = append(out, p)
		} else if u != "" {
			outside = append(outside, uri.URI(u).Filename())
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out, outside
}

// symbols reads DocumentSymbol trees (flattened, with depth),
// SymbolInformation lists and CallHierarchyItems. path is the file of
// DocumentSymbols, which carry no URI.
func (m *Mux) symbols(path string, raw json.RawMessage) []Location {
	type sym struct {
		Name     string   `json:"name"`
		Kind     int      `json:"kind"`
		Range    lspRange `json:"range"`
		SelRange lspRange `json:"selectionRange"`
		Location *struct {
			URI   string   `json:"uri"`
			Range lspRange `json:"range"`
		} `json:"location"`
		URI      string `json:"uri"`
		Children []json.RawMessage
	}
	var out []Location
	var walk func(raw json.RawMessage, depth int)
	walk = func(raw json.RawMessage, depth int) {
		var syms []sym
		if json.Unmarshal(raw, &syms) != nil {
			return
		}
		for _, s := range syms {
			u, r := s.URI, s.SelRange
			switch {
			case s.Location != nil:
				u, r = s.Location.URI, s.Location.Range
			case u == "":
				u = string(m.docURI(path))
			}
			if p, ok := m.place(u, r); ok {
				p.Name, p.Kind, p.Depth = s.Name, symbolKind(s.Kind), depth
				out = append(out, p)
			}
			if len(s.Children) > 0 {
				b, _ := json.Marshal(s.Children)
				walk(b, depth+1)
			}
		}
	}
	walk(raw, 0)
	return out
}

func symbolKind(k int) string {
	kinds := []string{"", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}
	if k > 0 && k < len(kinds) {
		return kinds[k]
	}
	return ""
}

func hoverText(raw json.RawMessage) string {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil || len(h.Contents) == 0 {
		return ""
	}
	var mc struct {
		Value string `json:"value"`
	}
	if json.Unmarshal(h.Contents, &mc) == nil && mc.Value != "" {
		return strings.TrimSpace(mc.Value)
	}
	var s string
	if json.Unmarshal(h.Contents, &s) == nil {
		return strings.TrimSpace(s)
	}
	var parts []json.RawMessage
	_ = json.Unmarshal(h.Contents, &parts)
	var b strings.Builder
	for _, p := range parts {
		var one string
		if json.Unmarshal(p, &one) != nil {
			_ = json.Unmarshal(p, &mc)
			one = mc.Value
		}
		b.WriteString(one)
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

// renameDiffs turns a WorkspaceEdit into one unified diff per file,
// computed against the file on disk; nothing is written.
func (m *Mux) renameDiffs(raw json.RawMessage) ([]FileDiff, error) {
	type edit struct {
		Range   lspRange `json:"range"`
		NewText string   `json:"newText"`
	}
	var we struct {
		Changes         map[string][]edit `json:"changes"`
		DocumentChanges []struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			Edits []edit `json:"edits"`
			Kind  string `json:"kind"`
		} `json:"documentChanges"`
	}
	if err := json.Unmarshal(raw, &we); err != nil {
		return nil, fmt.Errorf("lspmux: rename: %w", err)
	}
	byFile := map[string][]edit{}
	for u, es := range we.Changes {
		byFile[u] = append(byFile[u], es...)
	}
	for _, dc := range we.DocumentChanges {
		if dc.Kind != "" {
			return nil, fmt.Errorf("lspmux: rename would %s files; cchub stages only edits of existing files", dc.Kind)
		}
		byFile[dc.TextDocument.URI] = append(byFile[dc.TextDocument.URI], dc.Edits...)
	}
	var out []FileDiff
	for u, es := range byFile {
		rel := m.root.Rel(uri.URI(u).Filename())
		if rel == "" || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("lspmux: rename would change %s, outside the workspace", uri.URI(u).Filename())
		}
		text, err := m.root.ReadText(rel)
		if err != nil {
			return nil, err
		}
		starts := lineStarts(text)
		var edits []udiff.Edit
		var lines []int
		for _, e := range es {
			lines = append(lines, int(e.Range.Start.Line)+1)
			edits = append(edits, udiff.Edit{
				Start: byteOff(text, starts, e.Range.Start.Line, e.Range.Start.Character),
				End:   byteOff(text, starts, e.Range.End.Line, e.Range.End.Character),
				New:   e.NewText,
			})
		}
		newText, err := udiff.Apply(string(text), edits)
		if err != nil {
			return nil, fmt.Errorf("lspmux: rename: %s: %w", rel, err)
		}
		d, err := udiff.ToUnified("a/"+rel, "b/"+rel, string(text), edits, 3)
		if err != nil {
			return nil, err
		}
		sort.Ints(lines)
		out = append(out, FileDiff{Path: rel, Diff: d, NewText: newText, OldText: text, Lines: lines})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// byteOff is the byte offset of an LSP position in text.
func byteOff(text []byte, starts []int, line, char uint32) int {
	if int(line) >= len(starts) {
		return len(text)
	}
	off := starts[line]
	for units := uint32(0); units < char && off < len(text) && text[off] != '\n'; {
		r, n := utf8.DecodeRune(text[off:])
		units++
		if r >= 0x10000 {
			units++
		}
		off += n
	}
	return off
}

// charPosRaw is charPos for a raw line and UTF-16 character.
func charPosRaw(text []byte, starts []int, line, char uint32) (int, int) {
	off := byteOff(text, starts, line, char)
	if int(line) >= len(starts) {
		return int(line) + 1, int(char) + 1
	}
	return int(line) + 1, utf8.RuneCount(text[starts[line]:off]) + 1
}
