package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/outline"
)

type readSymbolIn struct {
	ID string `json:"id"`
}

const readSymbolDescription = "Read one symbol's lines. A bare Name is found in the workspace."

func addReadSymbol(s *server) {
	addTool(s, toolSpec{name: "read_symbol", description: readSymbolDescription, readOnly: true,
		hint: "outline the symbol to find its parts, then read a range with read offset/limit"},
		func(ctx context.Context, run *hub.Run, in readSymbolIn) (string, error) {
			// A symbol longer than the budget shows its first part and
			// names the read (with a limit) that continues it.
			bytes, lines := readBudget(budgetOf(ctx))
			r, err := s.h.ReadSymbol(ctx, in.ID, outline.Budget{Bytes: bytes, Lines: lines}, run)
			if err != nil {
				return "", err
			}
			return r.Text(), nil
		})
}
