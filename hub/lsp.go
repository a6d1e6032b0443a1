package hub

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"cchub/astedit"
	"cchub/lspmux"
	"cchub/outline"
	"cchub/textfmt"
	"cchub/workspace"
)

// LSPQuery is a question for the language server of a file: at a 1-based
// line and column, or at a symbol named as read_symbol names them, which
// is resolved through the outline (models get positions wrong more often
// than names).
type LSPQuery struct {
	Op      string
	Path    string
	Line    int
	Col     int
	Symbol  string
	Query   string // workspace_symbols
	NewName string // rename
	// Run is the conversation asking (nil: a one-off call); it hears once
	// that the workspace's configuration was skipped.
	Run *Run
}

// LSP answers q through the language server of q.Path.
func (h *Hub) LSP(ctx context.Context, q LSPQuery) (*LSPAnswer, error) {
	mux, err := h.servers()
	if err != nil {
		return nil, err
	}
	if q.Op == "" {
		return nil, fmt.Errorf("op is required: one of %s", strings.Join(lspmux.Ops, ", "))
	}
	if err := workspace.CheckFilePath(q.Path); err != nil {
		return nil, err
	}
	_, rel, err := h.Root.Resolve(q.Path)
	if err != nil {
		return nil, err
	}
	line, col := q.Line, q.Col
	needsPos := q.Op != "document_symbols" && q.Op != "workspace_symbols"
	if q.Op == "workspace_symbols" && q.Query == "" {
		q.Query = q.Symbol // the name asked about, in the field every other op takes
	}
	switch {
	case !needsPos:
	case q.Symbol != "":
		line, col, err = h.symbolPosition(ctx, rel, q.Symbol)
		if err != nil {
			return nil, err
		}
	case line < 1:
		return nil, fmt.Errorf("%s needs a place: line and column (1-based), or symbol (a name as outline shows it, e.g. Store.Add)", q.Op)
	case col < 1:
		col = firstWordCol(h, rel, line)
	}
	// A line and column from a read may be stale, or miscounted: checked
	// against the file as it is and as the run read it.
	byPlace := needsPos && q.Symbol == ""
	var stale string
	if byPlace {
		if stale, err = h.checkPlace(ctx, q, rel, line, col); err != nil {
			return nil, err
		}
	}
	a, err := mux.Query(ctx, lspmux.Query{Op: q.Op, Path: rel, Line: line, Col: col, Name: q.Query, NewName: q.NewName})
	if err != nil {
		if errors.Is(err, lspmux.ErrNoServer) {
			return nil, fmt.Errorf("no language server knows %s files; cchub has none for %q (see .cchub.json in the README to add one)", path.Ext(rel), path.Ext(rel))
		}
		if byPlace {
			return nil, h.noIdentifier(ctx, q, rel, line, col, err)
		}
		return nil, err
	}
	ans := &LSPAnswer{Answer: *a, Path: rel, Line: line, Col: col, NewName: q.NewName, Stale: stale}
	if n := mux.ConfigNote(); n != "" && !q.Run.told(n) {
		ans.Note = n
	}
	if q.Op == "rename" && len(a.Diffs) > 0 {
		// A rename is a wide change: it is staged for review like a
		// rewrite, never written by the query.
		c := &astedit.Change{Kind: "rename", Title: fmt.Sprintf("rename at %s:%d:%d to %s", rel, line, col, q.NewName)}
		for _, d := range a.Diffs {
			c.Files = append(c.Files, astedit.FileEdit{Path: d.Path, Old: d.OldText, New: []byte(d.NewText)})
			// Each of the server's edits is a place: a file with 4
			// renamed identifiers is 4 edits, not 1 change.
			old := strings.Split(string(d.OldText), "\n")
			for _, l := range d.Lines {
				text := ""
				if l >= 1 && l <= len(old) {
					text = textfmt.ClipLine(strings.TrimSpace(old[l-1]))
				}
				c.Locations = append(c.Locations, astedit.Location{Path: d.Path, Line: l, Text: text})
			}
		}
		if ans.Staged, err = h.stageFiles(ctx, c); err != nil {
			return nil, err
		}
	}
	return ans, nil
}

// symbolPosition is the line and column of symbol's name in rel.
func (h *Hub) symbolPosition(ctx context.Context, rel, symbol string) (int, int, error) {
	st, err := outline.ReadSymbol(ctx, h.Root, h.Parses, rel+":"+symbol, outline.Budget{})
	if err != nil {
		return 0, 0, err
	}
	name := symbol
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		name = name[i+1:]
	}
	lines := strings.Split(string(st.Source), "\n")
	for l := st.Symbol.StartLine; l <= st.Symbol.EndLine && l <= len(lines); l++ {
		if c := lspmux.IdentIndex(lines[l-1], name); c >= 0 {
			return l, len([]rune(lines[l-1][:c])) + 1, nil
		}
	}
	return st.Symbol.StartLine, 1, nil
}

// firstWordCol is the column of the first non-blank character of line.
func firstWordCol(h *Hub, rel string, line int) int {
	data, err := h.Root.ReadText(rel)
	if err != nil {
		return 1
	}
	lines := strings.Split(string(data), "\n")
	if line > len(lines) {
		return 1
	}
	l := lines[line-1]
	return len([]rune(l[:len(l)-len(strings.TrimLeft(l, " \t"))])) + 1
}

// LSPAnswer is a query's answer, and where it was asked.
type LSPAnswer struct {
	lspmux.Answer
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	NewName string `json:"new_name,omitempty"`
	// Staged is a rename's change, staged for review.
	Staged *StagedOutcome `json:"staged,omitempty"`
	// Note says the workspace's configuration was skipped (once a run).
	Note string `json:"note,omitempty"`
	// Stale says the file changed since the run read it: the answer is
	// about the place as the file is now.
	Stale string `json:"stale,omitempty"`
}

// Text lists the answer for a model: places as path:line:col and their
// source line, a hover's text, a rename's diffs; then the notes, if any.
func (a *LSPAnswer) Text() string {
	t := a.text()
	if a.Stale != "" {
		t += "note: " + a.Stale + "\n"
	}
	if a.Note != "" {
		t += "note: " + a.Note + "\n"
	}
	return t
}

func (a *LSPAnswer) text() string {
	var b strings.Builder
	at := fmt.Sprintf("%s:%d:%d", a.Path, a.Line, a.Col)
	switch a.Op {
	case "hover":
		if a.Answer.Text == "" {
			return fmt.Sprintf("nothing to show at %s: put line and column on a name, or give symbol\n", at)
		}
		fmt.Fprintf(&b, "hover at %s:\n%s\n", at, a.Answer.Text)
		return b.String()
	case "rename":
		if len(a.Diffs) == 0 {
			return fmt.Sprintf("renaming at %s to %s changes nothing\n", at, a.NewName)
		}
		if a.Staged != nil {
			return a.Staged.Text()
		}
		var diff strings.Builder
		for _, d := range a.Diffs {
			diff.WriteString(d.Diff)
		}
		fmt.Fprintf(&b, "rename at %s to %s would change %d file(s); nothing was written:\n%s", at, a.NewName, len(a.Diffs), diff.String())
		return b.String()
	}
	if len(a.Locations) == 0 {
		what := "at " + at
		if a.Op == "workspace_symbols" || a.Op == "document_symbols" {
			what = "in " + a.Path
		}
		return fmt.Sprintf("%s: none found %s\n", a.Op, what)
	}
	switch a.Op {
	case "document_symbols", "workspace_symbols":
		fmt.Fprintf(&b, "%s: %d\n", a.Op, len(a.Locations))
	default:
		fmt.Fprintf(&b, "%s of %s: %d\n", a.Op, at, len(a.Locations))
	}
	for _, l := range a.Locations {
		indent := strings.Repeat("  ", l.Depth)
		name := ""
		if l.Name != "" {
			name = strings.TrimSpace(l.Kind+" "+l.Name) + "\t"
		}
		fmt.Fprintf(&b, "%s%s:%d:%d\t%s%s\n", indent, l.Path, l.Line, l.Col, name, l.Text)
	}
	return b.String()
}

// servers is the hub's Mux, made on first need (it starts nothing
// itself), or why there is none (.cchub.json does not read).
func (h *Hub) servers() (*lspmux.Mux, error) {
	h.lspOnce.Do(func() {
		h.lsp, h.lspErr = lspmux.New(h.Root, lspmux.Options{TimeoutOverride: h.diagWait, OnCrash: h.tellCrash, Pool: h.pool})
		h.lspMade.Store(true)
		if h.lspErr == nil {
			h.watchDisk() // before any server starts: none misses a change
		}
	})
	if h.lspErr != nil {
		return nil, fmt.Errorf("language servers are off: %w; fix %s", h.lspErr, lspmux.ConfigFile)
	}
	return h.lsp, nil
}

// RunningServers names the language servers running now, as name@root
// ("gopls@" for one at the workspace's root): none until a call needed
// one, since servers start on first need.
func (h *Hub) RunningServers() []string {
	if !h.lspMade.Load() || h.lsp == nil {
		return nil
	}
	return h.lsp.Running()
}

// ServerProcesses are the language servers running now, with their
// process ids (cchub status).
func (h *Hub) ServerProcesses() []lspmux.Process {
	if !h.lspMade.Load() || h.lsp == nil {
		return nil
	}
	return h.lsp.Processes()
}

// tellCrash gives every live conversation the note of a server's crash,
// for its next answer (the one whose call found it is told in that
// answer, and not again).
func (h *Hub) tellCrash(note string) {
	for _, r := range h.runs.all() {
		r.mu.Lock()
		r.notes = append(r.notes, note)
		r.mu.Unlock()
	}
}
