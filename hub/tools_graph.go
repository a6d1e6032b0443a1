package hub

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const graphDescription = "The code graph, from the source itself (names, not types): op symbols (a name or glob), " +
	"callers and callees of a definition (call sites with line and how sure each edge is: exact, import, name-only), " +
	"blast (what transitively calls it, by distance, with the files and tests among them). Name a definition as Name, Type.Name or path:Name."

func addGraphTools(s *mcp.Server, h *Hub) {
	addTool(s, h, toolSpec{name: "graph", description: graphDescription, readOnly: true, hint: "ask about one definition, or a smaller depth"},
		func(ctx context.Context, r *Run, in GraphIn) (string, error) {
			return h.Graph(ctx, in)
		})
}
