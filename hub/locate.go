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
	// The token index: a one-shot grep reads its pack (GOROOT/src's 9 MB
	// in a few milliseconds, against reading ten thousand files); a
	// long-lived hub holds it in memory, and walks the workspace from
	// memory while its watcher vouches for it.
	if opts.Lacks == nil {
		opts.Lacks = h.lacks(ctx)
	}
	if !h.oneShot {
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
