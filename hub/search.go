package hub

import (
	"context"

	"cchub/structsearch"
)

// Search finds a structural pattern, on trees from the hub's parse cache,
// so a second search of the same files parses nothing (a one-shot hub
// parses each file once and keeps nothing).
func (h *Hub) Search(ctx context.Context, opts structsearch.Options) (*structsearch.Result, error) {
	if !h.oneShot {
		opts.Cache = h.Parses
		opts.Listing = h.listing(ctx)
	}
	if opts.Lacks == nil && opts.Clean == nil {
		opts.Lacks, opts.Clean = h.answers(ctx)
	}
	return structsearch.Search(ctx, h.Root, opts)
}
