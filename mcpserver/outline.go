package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/outline"
)

type outlineIn struct {
	Path   string `json:"path" jsonschema:"source file (or directory, for a map of its files), relative to the root"`
	Match  string `json:"match,omitempty" jsonschema:"keep only symbols whose name contains this (case-insensitive), or matches this glob (Serve*, *Handler)"`
	Detail bool   `json:"detail,omitempty" jsonschema:"also show doc summaries, decorators, every member of a var/const group and the blocks of long functions"`
}

// maxDirFiles bounds the files a directory outline parses for a model;
// the CLI parses them all.
const maxDirFiles = 200

const outlineDescription = "A source file's symbols, one line each: START-END, kind, name and signature (functions and methods show no kind word; Go methods are Type.method); " +
	"groups of variables or fields are folded onto one line. detail=true adds doc summaries; match filters by name. " +
	"On a directory, a map of its files and their top-level symbols (with match: where a name is defined). " +
	"Outline a file before reading it, then read_symbol or read offset/limit just the lines you need."

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
