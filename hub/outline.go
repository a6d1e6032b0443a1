package hub

import (
	"context"

	"cchub/outline"
)

// Outline maps a file's symbols, or a directory's files.
func (h *Hub) Outline(ctx context.Context, path string, opts outline.Options) (*outline.Result, error) {
	return outline.Of(ctx, h.Root, h.Parses, path, opts)
}

// ReadSymbol returns one symbol's lines, within budget; r now has seen
// its file.
func (h *Hub) ReadSymbol(ctx context.Context, id string, budget outline.Budget, r *Run) (*outline.SymbolText, error) {
	if err := h.join(ctx, r); err != nil {
		return nil, err
	}
	st, err := outline.ReadSymbol(ctx, h.Root, h.Parses, id, budget)
	if err == nil {
		r.Seen.Saw(st.Path, st.Source)
	}
	return st, err
}
