package lspmux

import (
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
)

// Diagnostic is one problem a server reported, in cchub's terms: a path
// relative to the workspace root, 1-based lines and character columns.
type Diagnostic struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	EndLine  int    `json:"end_line"`
	EndCol   int    `json:"end_col"`
	Severity string `json:"severity"` // error, warning, info, hint
	Code     string `json:"code,omitempty"`
	Source   string `json:"source,omitempty"`
	Message  string `json:"message"`
}

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error" // LSP: a missing severity is the client's to interpret
}

// SeverityRank orders severities for a reader: errors first.
func SeverityRank(s string) int {
	switch s {
	case "error":
		return 0
	case "warning":
		return 1
	case "info":
		return 2
	}
	return 3
}

// codeText is a diagnostic's code as text: servers send numbers or
// strings.
func codeText(c any) string {
	switch v := c.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprint(c)
}

// convert turns the server's diagnostics of rel, whose text is text,
// into Diagnostics, sorted by position.
func convert(rel string, text []byte, items []protocol.Diagnostic) []Diagnostic {
	lines := lineStarts(text)
	out := make([]Diagnostic, 0, len(items))
	for _, d := range items {
		l, c := charPos(text, lines, d.Range.Start)
		el, ec := charPos(text, lines, d.Range.End)
		out = append(out, Diagnostic{
			Path: rel, Line: l, Col: c, EndLine: el, EndCol: ec,
			Severity: severityName(d.Severity), Code: codeText(d.Code), Source: d.Source,
			Message: strings.TrimSpace(d.Message),
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Col < out[j].Col
	})
	return out
}

func lineStarts(text []byte) []int {
	starts := []int{0}
	for i, b := range text {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// charPos turns an LSP position (0-based line, UTF-16 code units) into a
// 1-based line and character column of text.
func charPos(text []byte, starts []int, p protocol.Position) (line, col int) {
	return charPosRaw(text, starts, p.Line, p.Character)
}
