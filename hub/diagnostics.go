package hub

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"cchub/ledger"
	"cchub/lspmux"
	"cchub/textfmt"
)

// Diagnostics is every current diagnostic of the files at paths (all
// files the servers know of, with none given), not only new ones.
// The run (nil for a one-off call) hears once per conversation that the
// workspace's configuration was skipped; other notes describe the moment
// and are said each time.
func (h *Hub) Diagnostics(ctx context.Context, r *Run, paths []string) (*DiagnosticsResult, error) {
	return h.DiagnosticsWith(ctx, r, DiagnosticsOptions{Paths: paths})
}

// DiagnosticsOptions narrows a diagnostics question.
type DiagnosticsOptions struct {
	Paths []string // none: every file the servers know of
	// Severity keeps that severity and worse: "warning" is errors and
	// warnings. "" keeps all.
	Severity string
	// NewOnly keeps the diagnostics whose key (file, severity, code,
	// message) the run was not told yet, by an edit's news or an earlier
	// NewOnly answer; they are then told. Without a run, all are new.
	NewOnly bool
	// MaxBytes bounds the result's Text (0: no bound).
	MaxBytes int
}

// Severities are the severities a diagnostics question may name, most
// severe first.
var Severities = []string{ledger.Error, ledger.Warning, ledger.Info, ledger.Hint}

// DiagnosticsWith is Diagnostics narrowed by o.
func (h *Hub) DiagnosticsWith(ctx context.Context, r *Run, o DiagnosticsOptions) (*DiagnosticsResult, error) {
	sev := strings.ToLower(strings.TrimSpace(o.Severity))
	if sev == "information" {
		sev = ledger.Info
	}
	if sev != "" && !slices.Contains(Severities, sev) {
		return nil, fmt.Errorf("severity %q: use error, warning, info or hint; it keeps that severity and worse (warning: errors and warnings), e.g. diagnostics severity=error", o.Severity)
	}
	res, err := h.diagnostics(ctx, r, o.Paths)
	if err != nil {
		return nil, err
	}
	res.Severity, res.MaxBytes = sev, o.MaxBytes
	if sev != "" {
		kept := res.Diagnostics[:0:0]
		for _, d := range res.Diagnostics {
			if ledger.Rank(d.Severity) <= ledger.Rank(sev) {
				kept = append(kept, d)
			} else {
				res.LessSevere++
			}
		}
		res.Diagnostics = kept
	}
	if o.NewOnly && r != nil {
		res.NewOnly = true
		h.onlyNew(ctx, r, res)
	}
	return res, nil
}

// onlyNew keeps in res the diagnostics whose key r was not told, and
// records them as told. All current diagnostics of the files go to the
// ledger, so what r was told and is gone is forgotten (news again if it
// returns).
func (h *Hub) onlyNew(ctx context.Context, r *Run, res *DiagnosticsResult) {
	current := map[string][]lspmux.Diagnostic{}
	for p, ds := range res.all {
		current[p] = ds
	}
	keep := map[ledger.Key]bool{}
	for _, d := range res.Diagnostics {
		keep[ledger.Key{Path: d.Path, Severity: d.Severity, Code: d.Code, Message: d.Message}] = true
	}
	led, id, err := h.ledgerFor(ctx, r)
	var news ledger.News
	if err == nil {
		news, err = led.ReportCaused(ctx, id, toLedger(current), keep)
	}
	if err != nil {
		res.Notes = append(res.Notes, "what this conversation was told could not be read ("+err.Error()+"); every diagnostic is listed")
		return
	}
	fresh := map[ledger.Key]bool{}
	for _, f := range news.Files {
		for _, n := range f.New {
			fresh[n.Key] = true
		}
	}
	kept := res.Diagnostics[:0:0]
	for _, d := range res.Diagnostics {
		if fresh[ledger.Key{Path: d.Path, Severity: d.Severity, Code: d.Code, Message: d.Message}] {
			kept = append(kept, d)
		} else {
			res.Told++
		}
	}
	res.Diagnostics = kept
}

// diagnostics is every current diagnostic of the files at paths.
func (h *Hub) diagnostics(ctx context.Context, r *Run, paths []string) (*DiagnosticsResult, error) {
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
	res.all = rep.Files
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
	// Severity is the least severity kept ("" all); LessSevere counts
	// the diagnostics it left out.
	Severity   string `json:"severity,omitempty"`
	LessSevere int    `json:"less_severe,omitempty"`
	// NewOnly: only what the run was not told is kept; Told counts the
	// diagnostics left out because it was.
	NewOnly bool `json:"new_only,omitempty"`
	Told    int  `json:"told_before,omitempty"`
	// MaxBytes bounds Text (0: no bound).
	MaxBytes int `json:"-"`
	// all is every current diagnostic of the files checked, by file.
	all map[string][]lspmux.Diagnostic
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

// Text counts the diagnostics by severity, then lists them by file,
// files with errors first and errors first in each; within MaxBytes,
// ending with the calls that show what did not fit.
func (r *DiagnosticsResult) Text() string {
	var b strings.Builder
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "[%s]\n", n)
	}
	if len(r.Unchecked) > 0 {
		names := r.Unchecked
		more := ""
		if r.MaxBytes > 0 && len(names) > maxUnchecked {
			names, more = names[:maxUnchecked], fmt.Sprintf(" and %d more", len(r.Unchecked)-maxUnchecked)
		}
		fmt.Fprintf(&b, "not checked: %s%s (the notes say why)\n", strings.Join(names, ", "), more)
	}
	left := r.leftOut()
	if len(r.Diagnostics) == 0 {
		what := "diagnostics"
		if r.NewOnly {
			what = "new diagnostics"
		}
		if r.Severity != "" {
			what += " of severity " + r.Severity + " or worse"
		}
		switch {
		case r.Checked > 0:
			fmt.Fprintf(&b, "no %s in the %s checked%s\n", what, textfmt.Count(r.Checked, "file"), left)
		case len(r.Servers) > 0:
			fmt.Fprintf(&b, "no %s from %s%s\n", what, strings.Join(r.Servers, ", "), left)
		case len(r.Notes) == 0:
			b.WriteString("no file here is served by a language server\n")
		}
		return b.String()
	}
	paths, files, counts := r.byFile()
	fmt.Fprintf(&b, "%s: %s in %s%s\n", textfmt.Count(len(r.Diagnostics), "diagnostic"), severityCounts(counts), textfmt.Count(len(paths), "file"), left)
	// The footer needs room: it is kept out of the budget for the list.
	limit := r.MaxBytes - diagFooterRoom
	shown, firstCut := 0, ""
	var rest [4]int
	restFiles := 0
	for _, p := range paths {
		ds := files[p]
		var fc [4]int
		for _, d := range ds {
			fc[ledger.Rank(d.Severity)]++
		}
		for i, d := range ds {
			line := diagLine(d)
			if i == 0 {
				line = fmt.Sprintf("%s: %s\n", p, severityCounts(fc)) + line
			}
			if firstCut != "" || r.MaxBytes > 0 && b.Len()+len(line) > limit {
				if firstCut == "" {
					firstCut = p
				}
				for _, x := range ds[i:] {
					rest[ledger.Rank(x.Severity)]++
				}
				restFiles++
				break
			}
			b.WriteString(line)
			shown++
		}
	}
	if n := len(r.Diagnostics) - shown; n > 0 {
		fmt.Fprintf(&b, "(%d more not shown (%s) in %s: diagnostics paths=%s lists that file's", n, severityCounts(rest), textfmt.Count(restFiles, "file"), firstCut)
		if r.Severity != ledger.Error && counts[0] > 0 && counts[0] < len(r.Diagnostics) {
			b.WriteString("; diagnostics severity=error lists errors only")
		}
		b.WriteString(")\n")
	}
	return b.String()
}

// byFile groups the diagnostics by file: files with errors first (then
// by path), errors first in each (then by place); and counts them by
// severity rank.
func (r *DiagnosticsResult) byFile() (paths []string, files map[string][]lspmux.Diagnostic, counts [4]int) {
	files = map[string][]lspmux.Diagnostic{}
	for _, d := range r.Diagnostics {
		if _, ok := files[d.Path]; !ok {
			paths = append(paths, d.Path)
		}
		files[d.Path] = append(files[d.Path], d)
		counts[ledger.Rank(d.Severity)]++
	}
	worst := func(p string) int {
		w := 3
		for _, d := range files[p] {
			w = min(w, ledger.Rank(d.Severity))
		}
		return w
	}
	sort.SliceStable(paths, func(i, j int) bool {
		if wi, wj := worst(paths[i]), worst(paths[j]); wi != wj {
			return wi < wj
		}
		return paths[i] < paths[j]
	})
	for _, ds := range files {
		sort.SliceStable(ds, func(i, j int) bool {
			if a, c := ledger.Rank(ds[i].Severity), ledger.Rank(ds[j].Severity); a != c {
				return a < c
			}
			if ds[i].Line != ds[j].Line {
				return ds[i].Line < ds[j].Line
			}
			return ds[i].Col < ds[j].Col
		})
	}
	return paths, files, counts
}

// Lines is the listing for a terminal or a CI log, never cut: the
// counts, then a line per diagnostic as compilers write them
// (path:line:col: severity [code] message), which editors and CI
// annotators parse; in byFile's order.
func (r *DiagnosticsResult) Lines() string {
	if len(r.Diagnostics) == 0 {
		return r.Text()
	}
	var b strings.Builder
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "[%s]\n", n)
	}
	if len(r.Unchecked) > 0 {
		fmt.Fprintf(&b, "not checked: %s (the notes say why)\n", strings.Join(r.Unchecked, ", "))
	}
	paths, files, counts := r.byFile()
	fmt.Fprintf(&b, "%s: %s in %s%s\n", textfmt.Count(len(r.Diagnostics), "diagnostic"), severityCounts(counts), textfmt.Count(len(paths), "file"), r.leftOut())
	for _, p := range paths {
		for _, d := range files[p] {
			fmt.Fprintf(&b, "%s:%d:%d: %s", p, d.Line, d.Col, diagBody(d))
		}
	}
	return b.String()
}

// leftOut says what the filters left out: "; 7 less severe not listed
// (severity=warning); 3 told before not listed (new_only)".
func (r *DiagnosticsResult) leftOut() string {
	s := ""
	if r.LessSevere > 0 {
		s += fmt.Sprintf("; %d less severe not listed (severity=%s)", r.LessSevere, r.Severity)
	}
	if r.Told > 0 {
		s += fmt.Sprintf("; %d told before not listed (new_only)", r.Told)
	}
	return s
}

// severityCounts is "3 errors, 9 warnings": counts by rank.
func severityCounts(counts [4]int) string {
	names := [4]string{"error", "warning", "info", "hint"}
	var parts []string
	for i, c := range counts {
		if c > 0 {
			parts = append(parts, textfmt.Count(c, names[i]))
		}
	}
	return strings.Join(parts, ", ")
}

// maxUnchecked bounds the names of what was not checked in a bounded
// Text.
const maxUnchecked = 10

// diagFooterRoom is kept, out of MaxBytes, for the line that says what
// was not shown.
const diagFooterRoom = 400

// maxDiagRunes bounds one diagnostic's message in a listing.
const maxDiagRunes = 300

// diagLine is one diagnostic under its file: place, severity, code,
// message.
func diagLine(d lspmux.Diagnostic) string {
	return fmt.Sprintf("  %d:%d %s", d.Line, d.Col, diagBody(d))
}

// diagBody is what a diagnostic says: severity, code, message (its lines
// joined, clipped), and a newline.
func diagBody(d lspmux.Diagnostic) string {
	code := ""
	if d.Code != "" {
		code = " [" + d.Code + "]"
	}
	msg := strings.Join(strings.Fields(strings.ReplaceAll(d.Message, "\n", " ")), " ")
	if utf8.RuneCountInString(msg) > maxDiagRunes {
		msg = string([]rune(msg)[:maxDiagRunes]) + "…"
	}
	return d.Severity + code + " " + msg + "\n"
}
