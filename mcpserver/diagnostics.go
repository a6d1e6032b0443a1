package mcpserver

import (
	"context"

	"cchub/hub"
)

type diagnosticsIn struct {
	Paths []string `json:"paths,omitempty" jsonschema:"files to check, relative to the root; none: the whole workspace"`
}

const diagnosticsDescription = "All current diagnostics (errors, warnings) of some files, or of the whole workspace, from the language servers. " +
	"Edits and writes already report the diagnostics they introduce; this shows everything, also what was reported before."

func addDiagnostics(s *server) {
	addTool(s, toolSpec{name: "diagnostics", description: diagnosticsDescription, readOnly: true, hint: "give paths to check fewer files"},
		func(ctx context.Context, run *hub.Run, in diagnosticsIn) (string, error) {
			res, err := s.h.Diagnostics(ctx, run, in.Paths)
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
}
