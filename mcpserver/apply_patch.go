package mcpserver

import (
	"context"

	"cchub/hub"
)

type patchIn struct {
	Patch string `json:"patch"`
}

const patchDescription = "Apply a *** Begin Patch patch (Add, Update, Delete File; Move to), all files or none."

func addApplyPatch(s *server) {
	addTool(s, toolSpec{name: "apply_patch", description: patchDescription, destructive: true},
		func(ctx context.Context, r *hub.Run, in patchIn) (string, error) {
			res, err := s.h.ApplyPatch(ctx, in.Patch, r)
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
}
