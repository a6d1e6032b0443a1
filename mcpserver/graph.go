package mcpserver

import (
	"context"

	"cchub/hub"
)

type graphIn struct {
	Op            string   `json:"op" jsonschema:"symbols, callers, callees, blast or tests"`
	Name          string   `json:"name,omitempty" jsonschema:"symbols: a name or glob (Store.*, *Handler); callers/callees/blast/tests: a definition as Name, Type.Name or path:Name"`
	Names         []string `json:"names,omitempty" jsonschema:"blast, tests: several definitions at once"`
	Depth         int      `json:"depth,omitempty" jsonschema:"blast: how many calls away (default 3)"`
	MinConfidence string   `json:"min_confidence,omitempty" jsonschema:"blast: the least evidence followed: exact, import, name-only or possible (default: all)"`
	Confirm       bool     `json:"confirm,omitempty" jsonschema:"callers/blast: ask the language server about name-only and possible edges (slower: seconds)"`
	Offset        int      `json:"offset,omitempty" jsonschema:"list from this entry on (0-based), as an answer says"`
	Path          string   `json:"path,omitempty" jsonschema:"list only entries in this file or directory"`
}

const graphDescription = "The code graph, from the source itself: op symbols (a name or glob), " +
	"callers and callees of a definition (call sites with line and the evidence of each edge: confirmed, exact, import, name-only, possible), " +
	"blast (what transitively calls it, by distance, with the files and tests among them), " +
	"tests (the tests a change to them can break, at any distance, and the go test / pytest commands that run them, as JSON). Name a definition as Name, Type.Name or path:Name."

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
