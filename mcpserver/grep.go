package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/locate"
)

type grepIn struct {
	Pattern    string `json:"pattern" jsonschema:"RE2 regex"`
	Literal    bool   `json:"literal,omitempty"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	Path       string `json:"path,omitempty"`
	Include    string `json:"include,omitempty" jsonschema:"files matching a glob, e.g. *.go"`
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
			return r.Text(), nil
		})
}
