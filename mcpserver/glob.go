package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/locate"
)

type globIn struct {
	Pattern string `json:"pattern" jsonschema:"glob: without a slash it matches file names at any depth (*.go); with one, whole paths (cmd/**/main.go)"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search under, relative to the root (default: the root)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most files to list (default 100)"`
}

func addGlob(s *server) {
	addTool(s, toolSpec{name: "glob", description: locate.GlobDescription, readOnly: true,
		hint: "use a narrower pattern or path"},
		func(ctx context.Context, _ *hub.Run, in globIn) (string, error) {
			r, err := s.h.Glob(ctx, locate.GlobOptions{Pattern: in.Pattern, Path: in.Path, Limit: capLimit(in.Limit)})
			if err != nil {
				return "", err
			}
			return r.Text(), nil
		})
}
