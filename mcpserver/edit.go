package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/textedit"
)

type editIn struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// editDescription tells a model how to edit well; its wording is the
// contract, not the matcher's internals.
const editDescription = "Replace old_string, which must match one place unless replace_all."

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
