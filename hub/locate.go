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
	return locate.GrepWith(ctx, h.Root, opts, h.grepSources(ctx))
}

// grepSources is what the hub lends a grep. The token index: a one-shot
// grep reads its pack (GOROOT/src's 9 MB in a few milliseconds, against
// reading ten thousand files); a long-lived hub holds it in memory, and
// walks the workspace from memory while its watcher vouches for it.
func (h *Hub) grepSources(ctx context.Context) locate.Sources {
	src := locate.Sources{Lacks: h.lacks(ctx)}
	if !h.oneShot {
		src.Listing = h.listing(ctx)
	}
	return src
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
