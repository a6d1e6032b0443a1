package mcpserver

import (
	"context"
	"strings"

	"cchub/hub"
)

type lspIn struct {
	Op      string `json:"op" jsonschema:"definition, references, hover, implementation, document_symbols, workspace_symbols, incoming_calls, outgoing_calls or rename"`
	Path    string `json:"path" jsonschema:"the file asked about, relative to the root"`
	Symbol  string `json:"symbol,omitempty" jsonschema:"the symbol asked about, as outline names it (New, Store.Add); use it instead of line and column"`
	Line    int    `json:"line,omitempty" jsonschema:"1-based line of the name asked about"`
	Column  int    `json:"column,omitempty" jsonschema:"1-based column of the name asked about (default: the line's first word)"`
	Query   string `json:"query,omitempty" jsonschema:"workspace_symbols: the name to look for"`
	NewName string `json:"new_name,omitempty" jsonschema:"rename: the new name"`
}

const lspDescription = "Ask the project's language server (gopls, pyright, ...) about code: op is " +
	"definition, references, hover, implementation, document_symbols, workspace_symbols, incoming_calls, outgoing_calls or rename. " +
	"Give the place as symbol (a name as outline shows it) or as line and column, both 1-based. " +
	"A rename writes nothing: it stages the change (an id and the diff of every file) for resolve, like rewrite."

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
