package mcpserver

import (
	"context"

	"cchub/hub"
)

type patchIn struct {
	Patch string `json:"patch" jsonschema:"a patch from *** Begin Patch to *** End Patch with *** Add File:, *** Delete File: and *** Update File: (optional *** Move to:) sections; hunks start with @@ and hold lines prefixed ' ', '-' or '+'"`
}

const patchDescription = "Apply a multi-file patch (add, delete, update, move) in this format, not a unified diff:\n" +
	"*** Begin Patch\n*** Update File: path\n@@ a line near the change\n context line\n-removed line\n+added line\n*** End Patch\n" +
	"Every file is checked before any is written; then all change or none."

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
