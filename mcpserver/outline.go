package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/outline"
)

type outlineIn struct {
	Path   string `json:"path"`
	Match  string `json:"match,omitempty" jsonschema:"part of a name, or a glob"`
	Detail bool   `json:"detail,omitempty" jsonschema:"add docs, members and blocks" mcp:"hidden"`
}

// maxDirFiles bounds the files a directory outline parses for a model;
// the CLI parses them all.
const maxDirFiles = 200

const outlineDescription = "A file's or directory's symbols: START-END, kind, name, signature. detail=true adds docs."

func addOutline(s *server) {
	addTool(s, toolSpec{name: "outline", description: outlineDescription, readOnly: true,
		hint: "outline a single file or a subdirectory, or filter with match"},
		func(ctx context.Context, _ *hub.Run, in outlineIn) (string, error) {
			r, err := s.h.Outline(ctx, in.Path, outline.Options{Match: in.Match, Detail: in.Detail, MaxFiles: maxDirFiles})
			if err != nil {
				return "", err
			}
			if r.Dir != nil {
				// A directory's map is cut at a whole file, within the
				// bound, instead of mid-line by it.
				return r.Dir.TextWithin(budgetOf(ctx).Bytes - 1024), nil
			}
			return r.Text(), nil
		})
}
