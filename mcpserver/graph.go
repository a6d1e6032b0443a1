package mcpserver

import (
	"context"

	"cchub/hub"
)

type graphIn struct {
	Op            string   `json:"op"`
	Name          string   `json:"name,omitempty" jsonschema:"a definition; symbols: a glob"`
	Names         []string `json:"names,omitempty" jsonschema:"several definitions" mcp:"hidden"`
	Depth         int      `json:"depth,omitempty"`
	MinConfidence string   `json:"min_confidence,omitempty" jsonschema:"exact, import, name-only or possible" mcp:"hidden"`
	Confirm       bool     `json:"confirm,omitempty" jsonschema:"ask the language server (slow)" mcp:"hidden"`
	Offset        int      `json:"offset,omitempty" jsonschema:"from this entry on" mcp:"hidden"`
	Path          string   `json:"path,omitempty" jsonschema:"only in this file or directory" mcp:"hidden"`
}

const graphDescription = "Code graph. op: symbols, callers, callees, blast (transitive callers), tests (tests a change can break)."

func addGraph(s *server) {
	addTool(s, toolSpec{name: "graph", description: graphDescription, readOnly: true, hint: "ask about one definition, or a smaller depth"},
		func(ctx context.Context, _ *hub.Run, in graphIn) (string, error) {
			res, err := s.h.Graph(ctx, hub.GraphQuery(in))
			if err != nil {
				return "", err
			}
			// Counts first, then the nearest entries that fit about
			// 8 KB, then the call (offset=N) that lists the rest.
			return res.TextWithin(budgetOf(ctx).Bytes - fitRoom), nil
		})
}
