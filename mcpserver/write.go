package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/textedit"
)

type writeIn struct {
	Path           string `json:"path" jsonschema:"file to create or replace, relative to the root; parent directories are created"`
	Content        string `json:"content" jsonschema:"the whole new content of the file"`
	KeepLineEnding bool   `json:"keep_line_endings,omitempty" jsonschema:"when replacing a file, keep its line endings (CRLF or LF) and byte-order mark"`
}

const writeDescription = "Create a file or replace all of it, atomically. An existing file must have been read in this conversation first. Prefer edit for changes to an existing file."

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
