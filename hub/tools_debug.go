package hub

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const debugDescription = "Debug a program, one session per conversation, ended by itself after its time limit (default 10 minutes). " +
	"op launch (program, test, args, breakpoints as path:line or 'path:line if COND', stop_on_entry) runs it to the first stop; " +
	"continue, next, step_in, step_out and pause move it and show where it stopped with the source around; " +
	"inspect shows the stack and a frame's variables; evaluate runs an expression in a frame; output shows what it printed; " +
	"breakpoints replaces a file's breakpoints; terminate ends the session. A second launch is refused until the first is terminated."

func addDebugTools(s *mcp.Server, h *Hub) {
	addTool(s, h, toolSpec{name: "debug", description: debugDescription, destructive: true, hint: "inspect with a smaller depth, or evaluate one expression"},
		func(ctx context.Context, r *Run, in DebugIn) (string, error) {
			return h.Debug(ctx, r, in)
		})
}
