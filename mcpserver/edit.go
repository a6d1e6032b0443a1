package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/textedit"
)

type editIn struct {
	Path       string `json:"path" jsonschema:"file to change, relative to the root"`
	OldString  string `json:"old_string" jsonschema:"the text to replace, copied from the file (a few lines around the change make it unique)"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of requiring exactly one"`
}

// editDescription tells a model how to edit well; its wording is the
// contract, not the matcher's internals.
const editDescription = "Replace text in a file: old_string must identify exactly one place (copy it from read or read_symbol output; " +
	"include surrounding lines to make it unique), unless replace_all is set. The file keeps its line endings, BOM and mode. " +
	"The answer shows the changed lines, numbered. An edit to a file that changed since you read it is refused: read it again."

func addEdit(s *server) {
	addTool(s, toolSpec{name: "edit", description: editDescription, destructive: true},
		func(ctx context.Context, r *hub.Run, in editIn) (string, error) {
			res, err := s.h.Edit(ctx, in.Path, textedit.Change{Old: in.OldString, New: in.NewString, ReplaceAll: in.ReplaceAll}, r)
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
}
