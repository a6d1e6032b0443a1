package mcpserver

import (
	"context"
	"strings"

	"cchub/hub"
)

type lspIn struct {
	Op      string `json:"op"`
	Path    string `json:"path"`
	Symbol  string `json:"symbol,omitempty" jsonschema:"a name, instead of line and column"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Query   string `json:"query,omitempty" jsonschema:"workspace_symbols: a name" mcp:"hidden"`
	NewName string `json:"new_name,omitempty"`
}

const lspDescription = "Language server. op: definition, references, hover, implementation, document_symbols, workspace_symbols, incoming_calls, outgoing_calls, rename (staged)."

func addLSP(s *server) {
	addTool(s, toolSpec{name: "lsp", description: lspDescription, readOnly: true, hint: "ask about one symbol, or give a narrower query"},
		func(ctx context.Context, run *hub.Run, in lspIn) (string, error) {
			a, err := s.h.LSP(ctx, hub.LSPQuery{Op: strings.TrimSpace(in.Op), Path: in.Path, Line: in.Line, Col: in.Column, Symbol: in.Symbol, Query: in.Query, NewName: in.NewName, Run: run})
			if err != nil {
				return "", err
			}
			return a.Text(), nil
		})
}
