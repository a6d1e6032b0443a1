package hub

import (
	"context"

	"cchub/structsearch"
)

// Search finds a structural pattern, on trees from the hub's parse cache,
// so a second search of the same files parses nothing (a one-shot hub
// parses each file once and keeps nothing).
func (h *Hub) Search(ctx context.Context, opts structsearch.Options) (*structsearch.Result, error) {
	return structsearch.SearchWith(ctx, h.Root, opts, h.searchSources(ctx))
}

// searchSources is what the hub lends a structural search: a long-lived
// hub's parse cache and the walk its watcher vouches for, and the token
// index's answers.
func (h *Hub) searchSources(ctx context.Context) structsearch.Sources {
	var src structsearch.Sources
	if !h.oneShot {
		src.Cache = h.Parses
		src.Listing = h.listing(ctx)
	}
	src.Lacks, src.Clean = h.answers(ctx)
	return src
}
