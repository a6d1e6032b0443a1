package mcpserver

import (
	"context"

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
			return r.Text(), nil
		})
}
