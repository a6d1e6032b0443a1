package hub

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"cchub/astedit"
	"cchub/lspmux"
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

// organizeImports applies the language server's organize-imports action
// (Go's, gopls) to the new content of each file c changes, so that the
// diff a person approves is one that builds: a rewrite of fmt.Errorf($MSG)
// to errors.New($MSG) adds "errors" and drops a "fmt" nothing else uses.
// The files on disk are not touched; the server is told the new content
// as unsaved, then the disk's again. It returns how many files it changed
// and, when some could not be organized (no server, a slow or failing
// one), a note saying why and what it means for the review ("" when all
// could).
func (h *Hub) organizeImports(ctx context.Context, c *astedit.Change) (int, string) {
	var files []lspmux.File
	var at []int
	goFiles := false
	for i, f := range c.Files {
		if f.New == nil {
			continue
		}
		files = append(files, lspmux.File{Path: f.Path, Data: f.New})
		at = append(at, i)
		goFiles = goFiles || strings.HasSuffix(f.Path, ".go")
	}
	if len(files) == 0 {
		return 0, ""
	}
	const then = "; the diff is the change alone: check its imports before applying it (applying it reports what does not build)"
	mux, err := h.servers()
	if err != nil {
		if !goFiles {
			return 0, ""
		}
		return 0, "imports were not organized: " + err.Error() + then
	}
	out, err := mux.OrganizeImports(ctx, files)
	n := 0
	for j, f := range out {
		fe := &c.Files[at[j]]
		if !bytes.Equal(f.Data, fe.New) {
			fe.New = f.Data
			n++
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return n, "" // the caller's own error says it was cancelled
		}
		return n, "imports were not organized: " + err.Error() + then
	}
	return n, ""
}

// noRewrite says why a rewrite staged nothing.
func noRewrite(c *astedit.Change, files int, pattern string) error {
	if c.Unchanged > 0 {
		return fmt.Errorf("%w: all %d matches of the pattern already read as the template makes them; nothing to stage", astedit.ErrNoMatch, c.Unchanged)
	}
	return fmt.Errorf("%w: the pattern `%s` matches nothing in %s searched; nothing was staged. Try it with the search tool first, with fewer literal parts ($X for names that may differ)", astedit.ErrNoMatch, strings.TrimSpace(pattern), textfmt.Count(files, "file"))
}
