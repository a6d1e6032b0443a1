package mcpserver

import (
	"context"

	"cchub/hub"
)

type diagnosticsIn struct {
	Paths []string `json:"paths,omitempty"`
}

const diagnosticsDescription = "Current diagnostics of files or the workspace."

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
