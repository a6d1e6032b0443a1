package hub

import (
	"context"
	"fmt"
	"strings"

	"cchub/astedit"
	"cchub/textfmt"
)

// Rewrite stages a structural rewrite: nothing is written. A pattern that
// matches nowhere is an error that says so (there is nothing to stage).
func (h *Hub) Rewrite(ctx context.Context, o astedit.RewriteOptions) (*StagedOutcome, error) {
	if !h.oneShot {
		o.Cache = h.Parses
	}
	c, res, err := astedit.Rewrite(ctx, h.Root, o)
	if err != nil {
		return nil, err
	}
	if len(c.Files) == 0 {
		return nil, noRewrite(c, res.Files, o.Pattern)
	}
	out, err := h.stageFiles(ctx, c)
	if err != nil {
		return nil, err
	}
	out.Searched, out.Invalid = res.Files, res.Invalid
	return out, nil
}

// noRewrite says why a rewrite staged nothing.
func noRewrite(c *astedit.Change, files int, pattern string) error {
	if c.Unchanged > 0 {
		return fmt.Errorf("%w: all %d matches of the pattern already read as the template makes them; nothing to stage", astedit.ErrNoMatch, c.Unchanged)
	}
	return fmt.Errorf("%w: the pattern `%s` matches nothing in %s searched; nothing was staged. Try it with the search tool first, with fewer literal parts ($X for names that may differ)", astedit.ErrNoMatch, strings.TrimSpace(pattern), textfmt.Count(files, "file"))
}
