package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/textedit"
)

type writeIn struct {
	Path           string `json:"path"`
	Content        string `json:"content"`
	KeepLineEnding bool   `json:"keep_line_endings,omitempty" jsonschema:"keep the old file's CRLF and BOM" mcp:"hidden"`
}

const writeDescription = "Create or replace a whole file. Prefer edit."

func addWrite(s *server) {
	addTool(s, toolSpec{name: "write", description: writeDescription, destructive: true, idempotent: true},
		func(ctx context.Context, r *hub.Run, in writeIn) (string, error) {
			// A model replaces only a file it has read in this
			// conversation: what it has not seen, it would lose.
			res, err := s.h.Write(ctx, in.Path, in.Content, textedit.WriteOptions{KeepStyle: in.KeepLineEnding, ReadFirst: true}, r)
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
}
