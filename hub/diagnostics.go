package hub

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"cchub/lspmux"
)

// Diagnostics is every current diagnostic of the files at paths (all
// files the servers know of, with none given), not only new ones.
// The run (nil for a one-off call) hears once per conversation that the
// workspace's configuration was skipped; other notes describe the moment
// and are said each time.
func (h *Hub) Diagnostics(ctx context.Context, r *Run, paths []string) (*DiagnosticsResult, error) {
	mux, err := h.servers()
	if err != nil {
		return nil, err
	}
	h.flushDisk(ctx) // what other processes changed reaches the servers first
	var rels []string
	for _, p := range paths {
		_, rel, err := h.Root.Resolve(p)
		if err != nil {
			return nil, err
		}
		rels = append(rels, rel)
	}
	var rep *lspmux.Report
	if len(rels) == 0 {
		rep, err = mux.Workspace(ctx)
	} else {
		rep, err = mux.Diagnostics(ctx, rels)
	}
	if err != nil {
		return nil, err
	}
	res := &DiagnosticsResult{}
	for _, n := range rep.Notes {
		if n != mux.ConfigNote() || !r.told(n) {
			res.Notes = append(res.Notes, n)
		}
	}
	asked := map[string]bool{}
	for _, rel := range rels {
		asked[rel] = true
	}
	for rel, ds := range rep.Files {
		if len(rels) > 0 && !asked[rel] {
			delete(rep.Files, rel) // only the files asked about
			continue
		}
		res.Diagnostics = append(res.Diagnostics, ds...)
	}
	sort.SliceStable(res.Diagnostics, func(i, j int) bool {
		a, b := res.Diagnostics[i], res.Diagnostics[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	res.Checked = len(rep.Files)
	res.Servers = rep.Servers
	// What could not be checked: what the report says, and each file
	// asked about that a server owns but that the report leaves out
	// (its server is missing, failed to start or is still starting).
	unchecked := map[string]bool{}
	for _, u := range rep.Unchecked {
		if len(rels) == 0 || asked[u] {
			unchecked[u] = true
		}
	}
	for _, rel := range rels {
		if _, ok := rep.Files[rel]; !ok && mux.Serves(rel) {
			unchecked[rel] = true
		}
	}
	for u := range unchecked {
		res.Unchecked = append(res.Unchecked, u)
	}
	sort.Strings(res.Unchecked)
	return res, nil
}

// DiagnosticsResult is the current diagnostics of some files.
type DiagnosticsResult struct {
	Diagnostics []lspmux.Diagnostic `json:"diagnostics"`
	Checked     int                 `json:"files_checked"`
	Servers     []string            `json:"servers,omitempty"` // the servers that answered
	Notes       []string            `json:"notes,omitempty"`
	// Unchecked names what could not be checked (Notes say why): the
	// files asked about, or with none asked the servers, whose server
	// was missing, failed to start, was still starting or crashed. Their
	// problems are not in Diagnostics: none found is not none there.
	Unchecked []string `json:"unchecked,omitempty"`
}

// Errors counts the diagnostics of severity error.
func (r *DiagnosticsResult) Errors() int {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Severity == "error" {
			n++
		}
	}
	return n
}

// Text lists the diagnostics, errors first within each file.
func (r *DiagnosticsResult) Text() string {
	var b strings.Builder
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "[%s]\n", n)
	}
	if len(r.Unchecked) > 0 {
		fmt.Fprintf(&b, "not checked: %s (the notes say why)\n", strings.Join(r.Unchecked, ", "))
	}
	if len(r.Diagnostics) == 0 {
		switch {
		case r.Checked > 0:
			fmt.Fprintf(&b, "no diagnostics in the %d file(s) checked\n", r.Checked)
		case len(r.Servers) > 0:
			fmt.Fprintf(&b, "no diagnostics from %s\n", strings.Join(r.Servers, ", "))
		case len(r.Notes) == 0:
			b.WriteString("no file here is served by a language server\n")
		}
		return b.String()
	}
	ds := append([]lspmux.Diagnostic(nil), r.Diagnostics...)
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Path != ds[j].Path {
			return ds[i].Path < ds[j].Path
		}
		return severityRank(ds[i].Severity) < severityRank(ds[j].Severity)
	})
	fmt.Fprintf(&b, "%d diagnostic(s), %d error(s):\n", len(ds), r.Errors())
	for _, d := range ds {
		b.WriteString(diagLine(d))
	}
	return b.String()
}

func severityRank(s string) int {
	switch s {
	case "error":
		return 0
	case "warning":
		return 1
	}
	return 2
}

// diagLine is one diagnostic as a line: place, severity, code, message.
func diagLine(d lspmux.Diagnostic) string {
	code := ""
	if d.Code != "" {
		code = " [" + d.Code + "]"
	}
	msg := strings.ReplaceAll(d.Message, "\n", " ")
	return fmt.Sprintf("%s:%d:%d: %s%s %s\n", d.Path, d.Line, d.Col, d.Severity, code, msg)
}
