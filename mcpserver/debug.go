package mcpserver

import (
	"context"

	"cchub/hub"
)

type debugIn struct {
	Op          string   `json:"op"`
	Program     string   `json:"program,omitempty" jsonschema:"Go package dir or .py file"`
	Test        string   `json:"test,omitempty" jsonschema:"a Go test name"`
	Args        []string `json:"args,omitempty"`
	Env         []string `json:"env,omitempty" jsonschema:"entries KEY=VALUE" mcp:"hidden"`
	Breakpoints []string `json:"breakpoints,omitempty" jsonschema:"launch or breakpoints: path:line, optionally followed by ' if CONDITION'; for breakpoints, each file named gets exactly these"`
	Path        string   `json:"path,omitempty" jsonschema:"breakpoints: a file to clear" mcp:"hidden"`
	StopOnEntry bool     `json:"stop_on_entry,omitempty" mcp:"hidden"`
	TTLSeconds  int      `json:"ttl_seconds,omitempty" jsonschema:"time limit (default 600)" mcp:"hidden"`
	Language    string   `json:"language,omitempty" jsonschema:"go or python" mcp:"hidden"`
	Expression  string   `json:"expression,omitempty"`
	Frame       int      `json:"frame,omitempty"`
	Depth       int      `json:"depth,omitempty" jsonschema:"value depth (default 2)" mcp:"hidden"`
}

const debugDescription = "Debug Go or Python. op: launch, breakpoints, continue, next, step_in, step_out, pause, inspect, evaluate, output, terminate."

func addDebug(s *server) {
	addTool(s, toolSpec{name: "debug", description: debugDescription, destructive: true, hint: "inspect with a smaller depth, or evaluate one expression"},
		func(ctx context.Context, r *hub.Run, in debugIn) (string, error) {
			res, err := s.h.Debug(ctx, r, hub.DebugRequest(in))
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
}
