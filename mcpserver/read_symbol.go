package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/outline"
)

type readSymbolIn struct {
	ID string `json:"id" jsonschema:"path:Name, path:Type.method or path:line:Name, e.g. store/store.go:New or store/store.go:Store.Add; path:line reads the symbol around that line"`
}

const readSymbolDescription = "Read one symbol's lines (a function, method, type, class, constant), numbered, by name: " +
	"id=path:Name, path:Type.method (Class.method, Ledger::book), or path:line:Name when a name is defined more than once; " +
	"path:LINE reads the innermost symbol around that line. No outline is needed when you know the name; " +
	"an ambiguous or unknown name answers with the ids that would work."

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
