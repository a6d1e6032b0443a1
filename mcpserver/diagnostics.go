package mcpserver

import (
	"context"

	"cchub/hub"
)

type diagnosticsIn struct {
	Paths    []string `json:"paths,omitempty"`
	Severity string   `json:"severity,omitempty" jsonschema:"error, warning, info or hint, and worse"`
	NewOnly  bool     `json:"new_only,omitempty" jsonschema:"only what was not told before"`
}

// diagnosticsBytes bounds the diagnostics answer: counts, the first files'
// diagnostics, and the call that lists the rest.
const diagnosticsBytes = 8000

const diagnosticsDescription = "Current diagnostics of files or the workspace."

func addDiagnostics(s *server) {
	addTool(s, toolSpec{name: "diagnostics", description: diagnosticsDescription, readOnly: true, hint: "give paths to check fewer files"},
		func(ctx context.Context, run *hub.Run, in diagnosticsIn) (string, error) {
			res, err := s.h.DiagnosticsWith(ctx, run, hub.DiagnosticsOptions{Paths: in.Paths, Severity: in.Severity, NewOnly: in.NewOnly, MaxBytes: diagnosticsBytes})
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
}
