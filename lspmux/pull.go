package lspmux

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// LSP 3.17's pull diagnostics (go.lsp.dev/protocol v0.12.0 stops at
// 3.16): the client asks for a document's diagnostics instead of waiting
// for the server to publish them.

// documentDiagnosticParams asks for one document's diagnostics.
type documentDiagnosticParams struct {
	TextDocument     protocol.TextDocumentIdentifier `json:"textDocument"`
	PreviousResultID string                          `json:"previousResultId,omitempty"`
}

// documentDiagnosticReport is the answer: the full list, or "unchanged"
// since the result id the client gave.
type documentDiagnosticReport struct {
	Kind     string                `json:"kind"` // "full" or "unchanged"
	ResultID string                `json:"resultId,omitempty"`
	Items    []protocol.Diagnostic `json:"items"`
}

// offersPull says whether an initialize result announces a
// diagnosticProvider.
func offersPull(initResult json.RawMessage) bool {
	var r struct {
		Capabilities struct {
			DiagnosticProvider json.RawMessage `json:"diagnosticProvider"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(initResult, &r) != nil {
		return false
	}
	p := r.Capabilities.DiagnosticProvider
	return len(p) > 0 && string(p) != "null" && string(p) != "false"
}

// pull asks s for the diagnostics of u at version and records them as if
// published, so that a server that offers pull needs no push to settle.
func (s *server) pull(ctx context.Context, u uri.URI, version int32) error {
	var rep documentDiagnosticReport
	params := documentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(u)}}
	if _, err := s.conn.Call(ctx, "textDocument/diagnostic", params, &rep); err != nil {
		return s.failed("textDocument/diagnostic", err)
	}
	items := rep.Items
	if rep.Kind == "unchanged" {
		s.mu.Lock()
		items = s.diags[u].items
		s.mu.Unlock()
	}
	s.published(u, version, items)
	return nil
}
