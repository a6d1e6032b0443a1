package hub

import (
	"context"

	"cchub/structsearch"
)

// Search finds a structural pattern, on trees from the hub's parse cache,
// so a second search of the same files parses nothing.
func (h *Hub) Search(ctx context.Context, opts structsearch.Options) (*structsearch.Result, error) {
	opts.Cache = h.Parses
	return structsearch.Search(ctx, h.Root, opts)
}
