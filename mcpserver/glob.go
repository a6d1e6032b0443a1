package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/locate"
)

type globIn struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
	Limit   int    `json:"limit,omitempty" jsonschema:"default 100" mcp:"hidden"`
}

const globDescription = "Find files by glob, newest first."

func addGlob(s *server) {
	addTool(s, toolSpec{name: "glob", description: globDescription, readOnly: true,
		hint: "use a narrower pattern or path"},
		func(ctx context.Context, _ *hub.Run, in globIn) (string, error) {
			r, err := s.h.Glob(ctx, locate.GlobOptions{Pattern: in.Pattern, Path: in.Path, Limit: capLimit(in.Limit)})
			if err != nil {
				return "", err
			}
			return r.Text(), nil
		})
}
