package mcpserver

import (
	"context"
	"fmt"

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
			// The default answer fits about 8 KB: the files that fit,
			// then the count and the call that shows more.
			all := r.Files
			text, k := fitItems(ctx, len(all), in.Limit > 0, func(k int) string {
				c := *r
				c.Files, c.Truncated = all[:k], false
				return c.Text()
			})
			if k < r.Total {
				text += fmt.Sprintf("[showing %d of %d files, newest first; more: %s, or narrow the pattern or path]\n",
					k, r.Total, callFor("glob", "pattern", in.Pattern, "path", in.Path, "limit", fmt.Sprint(min(r.Total, maxLimit))))
			}
			return text, nil
		})
}
