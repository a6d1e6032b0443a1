package mcpserver

import (
	"context"
	"fmt"

	"cchub/hub"
	"cchub/locate"
)

type grepIn struct {
	Pattern    string `json:"pattern" jsonschema:"RE2 regular expression (Go syntax), or plain text with literal=true"`
	Literal    bool   `json:"literal,omitempty" jsonschema:"treat pattern as plain text, not a regular expression"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"match regardless of letter case"`
	Path       string `json:"path,omitempty" jsonschema:"file or directory to search, relative to the root (default: the root)"`
	Include    string `json:"include,omitempty" jsonschema:"only files whose path matches this glob, e.g. *.go or src/**/*.{ts,tsx}"`
	Limit      int    `json:"limit,omitempty" jsonschema:"most matching lines to show (default 100)"`
}

func addGrep(s *server) {
	addTool(s, toolSpec{name: "grep", description: locate.GrepDescription, readOnly: true,
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
