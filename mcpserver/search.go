package mcpserver

import (
	"context"
	"fmt"

	"cchub/hub"
	"cchub/structsearch"
)

type searchIn struct {
	Pattern string   `json:"pattern" jsonschema:"code with metavariables: $NAME is one node, $$$NAME zero or more (arguments, statements), $_ and $$$ match without capturing; a name used twice must match the same text, e.g. if $X != nil { return $X }"`
	Lang    string   `json:"lang,omitempty" jsonschema:"language to search (go, python, javascript, typescript, tsx, rust, java, c, cpp); default: every file in the language of its extension"`
	Paths   []string `json:"paths,omitempty" jsonschema:"files or directories to search, relative to the root (default: the whole workspace); one path may be given as a string"`
	Counts  bool     `json:"counts,omitempty" jsonschema:"answer with a count per file instead of the matches"`
	Limit   int      `json:"limit,omitempty" jsonschema:"most matches to show (default 50)"`
}

const searchDescription = "Structural search: find code by shape, parsed by each file's own grammar, so layout, line breaks and comments don't matter and strings or comments never match. " +
	"Several statements in the pattern match consecutive statements of one block. " +
	"Answers path:LINE:COL of each match, its captures ($X = text) and its first lines, numbered."

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
