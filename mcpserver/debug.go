package mcpserver

import (
	"context"

	"cchub/hub"
)

type debugIn struct {
	Op          string   `json:"op" jsonschema:"launch, breakpoints, continue, next, step_in, step_out, pause, inspect, evaluate, output or terminate"`
	Program     string   `json:"program,omitempty" jsonschema:"launch: the Go package directory or file (default the root), or a Python script, relative to the root"`
	Test        string   `json:"test,omitempty" jsonschema:"launch: debug this Go test of the package (its name, e.g. TestAddTwice)"`
	Args        []string `json:"args,omitempty" jsonschema:"launch: the program's arguments"`
	Env         []string `json:"env,omitempty" jsonschema:"launch: KEY=VALUE entries added to its environment"`
	Breakpoints []string `json:"breakpoints,omitempty" jsonschema:"launch or breakpoints: path:line, optionally followed by ' if CONDITION'; for breakpoints, each file named gets exactly these"`
	Path        string   `json:"path,omitempty" jsonschema:"breakpoints: a file whose breakpoints to clear, when breakpoints names none of it"`
	StopOnEntry bool     `json:"stop_on_entry,omitempty" jsonschema:"launch: stop before the program's first line"`
	TTLSeconds  int      `json:"ttl_seconds,omitempty" jsonschema:"launch: the session's hard time limit (default 600, at most 3600, unless .cchub.json says otherwise)"`
	Language    string   `json:"language,omitempty" jsonschema:"launch: go (default; .py programs are python)"`
	Expression  string   `json:"expression,omitempty" jsonschema:"evaluate: the expression, in the frame's own scope"`
	Frame       int      `json:"frame,omitempty" jsonschema:"inspect or evaluate: the frame, 0 the innermost (as inspect lists them)"`
	Depth       int      `json:"depth,omitempty" jsonschema:"inspect or evaluate: how deep to expand structured values (default 2)"`
}

const debugDescription = "Debug a program, one session per conversation, ended by itself after its time limit (default 10 minutes). " +
	"op launch (program, test, args, breakpoints as path:line or 'path:line if COND', stop_on_entry) runs it to the first stop; " +
	"continue, next, step_in, step_out and pause move it and show where it stopped with the source around; " +
	"inspect shows the stack and a frame's variables; evaluate runs an expression in a frame; output shows what it printed; " +
	"breakpoints replaces a file's breakpoints; terminate ends the session. A second launch is refused until the first is terminated."

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
