package lspmux

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"cchub/textfmt"
)

// Current is the current diagnostics of some files, as a question of
// them answers: what it keeps, what it left out and why, and its text.
type Current struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
	Checked     int          `json:"files_checked"`
	Servers     []string     `json:"servers,omitempty"` // the servers that answered
	Notes       []string     `json:"notes,omitempty"`
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
	// All is every current diagnostic of the files checked, by file,
	// before any filter.
	All map[string][]Diagnostic `json:"-"`
}

// KeepSeverity keeps the diagnostics of severity sev and worse ("": all),
// counting the others in LessSevere.
func (r *Current) KeepSeverity(sev string) {
	r.Severity = sev
	if sev == "" {
		return
	}
	kept := r.Diagnostics[:0:0]
	for _, d := range r.Diagnostics {
		if SeverityRank(d.Severity) <= SeverityRank(sev) {
			kept = append(kept, d)
		} else {
			r.LessSevere++
		}
	}
	r.Diagnostics = kept
}

// Errors counts the diagnostics of severity error.
func (r *Current) Errors() int {
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
func (r *Current) Text() string {
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
			fc[SeverityRank(d.Severity)]++
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
					rest[SeverityRank(x.Severity)]++
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
		if r.Severity != "error" && counts[0] > 0 && counts[0] < len(r.Diagnostics) {
			b.WriteString("; diagnostics severity=error lists errors only")
		}
		b.WriteString(")\n")
	}
	return b.String()
}

// byFile groups the diagnostics by file: files with errors first (then
// by path), errors first in each (then by place); and counts them by
// severity rank.
func (r *Current) byFile() (paths []string, files map[string][]Diagnostic, counts [4]int) {
	files = map[string][]Diagnostic{}
	for _, d := range r.Diagnostics {
		if _, ok := files[d.Path]; !ok {
			paths = append(paths, d.Path)
		}
		files[d.Path] = append(files[d.Path], d)
		counts[SeverityRank(d.Severity)]++
	}
	worst := func(p string) int {
		w := 3
		for _, d := range files[p] {
			w = min(w, SeverityRank(d.Severity))
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
			if a, c := SeverityRank(ds[i].Severity), SeverityRank(ds[j].Severity); a != c {
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
func (r *Current) Lines() string {
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
func (r *Current) leftOut() string {
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
func diagLine(d Diagnostic) string {
	return fmt.Sprintf("  %d:%d %s", d.Line, d.Col, diagBody(d))
}

// diagBody is what a diagnostic says: severity, code, message (its lines
// joined, clipped), and a newline.
func diagBody(d Diagnostic) string {
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
