package mcpserver

import (
	"context"
	"fmt"

	"cchub/hub"
	"cchub/locate"
)

type grepIn struct {
	Pattern    string `json:"pattern" jsonschema:"RE2 regex"`
	Literal    bool   `json:"literal,omitempty"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	Path       string `json:"path,omitempty"`
	Include    string `json:"include,omitempty" jsonschema:"a glob, e.g. *.go"`
	Limit      int    `json:"limit,omitempty" jsonschema:"default 100" mcp:"hidden"`
}

const grepDescription = "Search file contents; matching lines grouped by file."

func addGrep(s *server) {
	addTool(s, toolSpec{name: "grep", description: grepDescription, readOnly: true,
		hint: "add include or path, or a more specific pattern"},
		func(ctx context.Context, _ *hub.Run, in grepIn) (string, error) {
			r, err := s.h.Grep(ctx, locate.GrepOptions{Pattern: in.Pattern, Literal: in.Literal, IgnoreCase: in.IgnoreCase, Path: in.Path, Include: in.Include, Limit: capLimit(in.Limit)})
			if err != nil {
				return "", err
			}
			// The default answer fits about 8 KB: the matches that fit,
			// whole lines, then the call that shows them all.
			all := r.Matches
			text, k := fitItems(ctx, len(all), in.Limit > 0, func(k int) string {
				c := *r
				c.Matches, c.Truncated = all[:k], r.Truncated || k < len(all)
				return c.Text()
			})
			if k < r.Total {
				text += fmt.Sprintf("[showing %d of %d matching lines; more: %s]\n",
					k, r.Total, callFor("grep", "pattern", in.Pattern, "literal", fmt.Sprint(in.Literal), "ignore_case", fmt.Sprint(in.IgnoreCase),
						"path", in.Path, "include", in.Include, "limit", fmt.Sprint(min(r.Total, maxLimit))))
			}
			return text, nil
		})
}
