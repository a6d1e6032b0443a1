package mcpserver

import (
	"context"
	"fmt"

	"cchub/hub"
	"cchub/structsearch"
)

type searchIn struct {
	Pattern string   `json:"pattern" jsonschema:"e.g. if $X != nil { return $X }"`
	Lang    string   `json:"lang,omitempty" jsonschema:"default: by file extension" mcp:"hidden"`
	Paths   []string `json:"paths,omitempty"`
	Counts  bool     `json:"counts,omitempty" jsonschema:"a count per file instead" mcp:"hidden"`
	Limit   int      `json:"limit,omitempty" jsonschema:"default 50" mcp:"hidden"`
}

const searchDescription = "Structural search: code by shape, in any layout. counts=true counts per file."

// searchLimit is how many matches a model sees unless it asks: the first
// few places say whether the pattern is right.
const searchLimit = 50

func addSearch(s *server) {
	addTool(s, toolSpec{name: "search", description: searchDescription, readOnly: true,
		hint: "search fewer paths, or ask for counts"},
		func(ctx context.Context, _ *hub.Run, in searchIn) (string, error) {
			r, err := s.h.Search(ctx, structsearch.Options{Pattern: in.Pattern, Lang: in.Lang, Paths: in.Paths})
			if err != nil {
				return "", err
			}
			limit := capLimit(in.Limit)
			if limit == 0 {
				limit = searchLimit
			}
			if in.Counts {
				return r.Text(structsearch.TextOptions{Counts: true}), nil
			}
			// The default answer fits about 8 KB: the matches that fit,
			// whole, then the call that shows more.
			n := min(limit, len(r.Matches))
			text, k := fitItems(ctx, n, in.Limit > 0, func(k int) string {
				return r.Text(structsearch.TextOptions{Limit: max(k, 1)})
			})
			if k < len(r.Matches) {
				text += fmt.Sprintf("[more: the same search with limit=%d shows all %d matches]\n", min(len(r.Matches), maxLimit), len(r.Matches))
			}
			return text, nil
		})
}
