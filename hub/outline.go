package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cchub/codegraph"
	"cchub/lang"
	"cchub/outline"
)

// Outline maps a file's symbols, or a directory's files.
func (h *Hub) Outline(ctx context.Context, path string, opts outline.Options) (*outline.Result, error) {
	return outline.Of(ctx, h.Root, h.Parses, path, opts)
}

// ReadSymbol returns one symbol's lines, within budget; r now has seen
// its file. id is path:Name (outline's forms), or a bare Name or
// Type.method, found in the workspace through the code graph: one
// definition is read, several are listed with the id that reads each,
// none says how to look for it. When a path is given but the name is not
// defined there, the error says where the code graph finds it.
func (h *Hub) ReadSymbol(ctx context.Context, id string, budget outline.Budget, r *Run) (*outline.SymbolText, error) {
	if err := h.join(ctx, r); err != nil {
		return nil, err
	}
	if name, ok := h.bareSymbolName(id); ok {
		return h.readSymbolByName(ctx, name, budget, r)
	}
	st, err := outline.ReadSymbol(ctx, h.Root, h.Parses, id, budget)
	if err != nil {
		return nil, h.symbolElsewhere(ctx, id, err)
	}
	r.Seen.Saw(st.Path, st.Source)
	return st, nil
}

// bareSymbolName is the name id gives without a path (Name, Type.method,
// Ledger::book), and whether it is one: no slash, no colon but C++'s ::,
// and not a file of the workspace.
func (h *Hub) bareSymbolName(id string) (string, bool) {
	id = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(id), "id="))
	id = strings.TrimRight(id, "?;,` ")
	name := strings.TrimSuffix(strings.ReplaceAll(id, "::", "."), "()")
	if strings.HasPrefix(name, "(") { // (*Store).Add
		name = strings.Replace(strings.TrimLeft(name, "(*"), ")", "", 1)
	}
	if name == "" || strings.ContainsAny(name, ":/\\ \t") || lang.IsSource(name) {
		return "", false // a path, or a source file's name (store.go): outline's errors explain
	}
	if _, rel, err := h.Root.Resolve(id); err == nil {
		if _, err := h.Root.Stat(rel); err == nil {
			return "", false // a file or directory: outline's errors explain
		}
	}
	return name, true
}

// maxNamedListed bounds the definitions a read by name lists.
const maxNamedListed = 20

// readSymbolByName reads the one definition the code graph knows by name,
// or lists the definitions it could mean.
func (h *Hub) readSymbolByName(ctx context.Context, name string, budget outline.Budget, r *Run) (*outline.SymbolText, error) {
	res, err := h.Graph(ctx, GraphQuery{Op: "symbols", Name: name})
	if err != nil {
		return nil, fmt.Errorf("read_symbol: finding %s in the code graph: %w; give the file instead: read_symbol id=PATH:%s", name, err, name)
	}
	ds := res.Definitions
	short := name
	if i := strings.LastIndexByte(short, '.'); i >= 0 {
		short = short[i+1:]
	}
	switch len(ds) {
	case 0:
		return nil, fmt.Errorf("read_symbol: no definition named %s in the workspace's code graph; look for it: graph op=symbols name=*%s* or grep pattern=%s", name, short, short)
	case 1:
		d := ds[0]
		st, err := outline.ReadSymbol(ctx, h.Root, h.Parses, fmt.Sprintf("%s:%d:%s", d.Path, d.Start, d.Qual()), budget)
		if err != nil {
			// The outline's start may differ from the graph's: by name in
			// the file.
			st, err = outline.ReadSymbol(ctx, h.Root, h.Parses, d.Path+":"+d.Qual(), budget)
		}
		if err != nil {
			return nil, err
		}
		r.Seen.Saw(st.Path, st.Source)
		return st, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "read_symbol: %d definitions are named %s; read one:", len(ds), name)
	writeDefIDs(&b, ds, maxNamedListed)
	if len(ds) > maxNamedListed {
		fmt.Fprintf(&b, "\n  and %d more: graph op=symbols name=%s lists them all", len(ds)-maxNamedListed, name)
	}
	return nil, errors.New(b.String())
}

// writeDefIDs lists the first max of ds, a line each: path:LINE kind
// name and the read_symbol call that reads it.
func writeDefIDs(b *strings.Builder, ds []codegraph.Def, max int) {
	same := map[string]int{}
	for _, d := range ds {
		same[d.Path+":"+d.Qual()]++
	}
	for i, d := range ds {
		if i == max {
			break
		}
		id := d.Path + ":" + d.Qual()
		if same[id] > 1 {
			id = fmt.Sprintf("%s:%d:%s", d.Path, d.Start, d.Qual())
		}
		fmt.Fprintf(b, "\n  %s:%d %s %s: read_symbol id=%s", d.Path, d.Start, d.Kind, d.Qual(), id)
	}
}

// elsewhereWait bounds the code graph's lookup behind a failed read.
const elsewhereWait = 3 * time.Second

// symbolElsewhere adds to err, read_symbol's error for id (path:Name),
// where the code graph finds Name when it is not defined in that path.
func (h *Hub) symbolElsewhere(ctx context.Context, id string, err error) error {
	id = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(id), "id="))
	i := strings.IndexByte(id, ':')
	if i <= 0 {
		return err
	}
	file, name := id[:i], strings.TrimSpace(id[strings.LastIndexByte(id, ':')+1:])
	name = strings.TrimSuffix(name, "()")
	if name == "" || strings.Trim(name, "0123456789") == "" || strings.Contains(id, "::") || strings.ContainsAny(name, "*?[ ") {
		return err // a line, not a name; or a C++ name outline reads itself
	}
	// Only for a file that lacks the name (a missing file's error already
	// suggests the paths it may be). It is a hint, so it is bounded: a
	// workspace that changes without pause keeps the graph from settling.
	if !errors.Is(err, outline.ErrNoSymbol) {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, elsewhereWait)
	defer cancel()
	res, gerr := h.Graph(ctx, GraphQuery{Op: "symbols", Name: name})
	if gerr != nil || len(res.Definitions) == 0 {
		return err
	}
	var other []codegraph.Def
	for _, d := range res.Definitions {
		if d.Path == file {
			return err // defined there: the error is about the file's own symbols
		}
		other = append(other, d)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v\nthe code graph finds %s elsewhere:", err, name)
	writeDefIDs(&b, other, 5)
	if len(other) > 5 {
		fmt.Fprintf(&b, "\n  and %d more: graph op=symbols name=%s", len(other)-5, name)
	}
	return errors.New(b.String())
}
