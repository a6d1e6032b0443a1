package hub

import (
	"context"

	"cchub/locate"
)

// Glob lists files matching a pattern, newest first.
func (h *Hub) Glob(ctx context.Context, opts locate.GlobOptions) (*locate.GlobResult, error) {
	return locate.Glob(ctx, h.Root, opts)
}

// Grep searches file contents.
func (h *Hub) Grep(ctx context.Context, opts locate.GrepOptions) (*locate.GrepResult, error) {
	// A one-shot grep reads the files faster than it can stream the
	// token index's table (GOROOT/src: 40 ms of filters against 50 ms
	// of reads); a long-lived hub holds the index in memory, and asks it.
	if !h.oneShot {
		if opts.Lacks == nil {
			opts.Lacks = h.lacks(ctx)
		}
		opts.Listing = h.listing(ctx)
	}
	return locate.Grep(ctx, h.Root, opts)
}

// Read pages through a file or lists a directory; r now has seen the file.
func (h *Hub) Read(ctx context.Context, opts locate.ReadOptions, r *Run) (*locate.ReadResult, error) {
	if err := h.join(ctx, r); err != nil {
		return nil, err
	}
	res, err := locate.Read(ctx, h.Root, opts)
	switch {
	case err != nil || res.IsDir:
	case res.Content != nil:
		r.Seen.Saw(res.Path, res.Content)
	default:
		r.Seen.SawPart(res.Path) // too large to read whole: paged
	}
	return res, err
}
