package ledger

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of one message in Text: some tools write paragraphs, and the
// first lines carry what a model acts on.
const (
	maxMessageLines = 4
	maxLineRunes    = 240
	maxAlso         = 3
	maxNamed        = 5 // files named when they are not listed
)

// Text writes the news for a model's context, errors first; counts
// count diagnostics (a key at three places is 3):
//
//	diagnostics: 3 new errors in store/store.go; 1 new warning in cmd/main.go (3 already reported still present)
//	store/store.go
//	  12:5 error [compiler UndeclaredName] undefined: foo (also 14:2, 20:9)
//	cmd/main.go
//	  40:2 warning [staticcheck SA4006] this value of x is never used
//	gone: error [compiler MissingReturn] missing return (cmd/main.go)
//
// At most maxPerFile diagnostics are listed per file and maxFiles files
// (the most severe first); what is left out is counted ("(and 3 more: 1
// warning, 2 hints)"). What went away is named, up to maxGone lines. A
// bound below 1 means no bound. With nothing new and nothing gone the
// text is one line. It ends with a newline.
func (n News) Text(maxPerFile, maxFiles int) string {
	var b strings.Builder
	b.WriteString("diagnostics: ")
	var withNew []FileNews
	for _, f := range n.Files {
		if len(f.New) > 0 {
			withNew = append(withNew, f)
		}
	}
	shown := withNew
	if maxFiles > 0 && len(shown) > maxFiles {
		shown = shown[:maxFiles]
	}
	if len(withNew) == 0 {
		b.WriteString("nothing new")
	}
	for i, f := range shown {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s in %s", newCounts(f.New), f.Path)
	}
	if rest := withNew[len(shown):]; len(rest) > 0 {
		c := 0
		var names []string
		for _, f := range rest {
			c += f.NewDiagnostics()
			if len(names) < maxNamed {
				names = append(names, f.Path)
			}
		}
		if len(rest) > maxNamed {
			names = append(names, "…")
		}
		fmt.Fprintf(&b, "; and %s in %s not listed (%s: diagnostics paths=%s lists them)", plural(c, "new diagnostic", "new diagnostics"), plural(len(rest), "more file", "more files"), strings.Join(names, ", "), rest[0].Path)
	}
	if a := n.AlreadyCount(); a > 0 {
		fmt.Fprintf(&b, " (%d already reported still present)", a)
	}
	b.WriteByte('\n')

	for _, f := range shown {
		b.WriteString(f.Path)
		b.WriteByte('\n')
		list := f.New
		if maxPerFile > 0 && len(list) > maxPerFile {
			list = list[:maxPerFile]
		}
		for _, r := range list {
			writeReported(&b, r)
		}
		if rest := f.New[len(list):]; len(rest) > 0 {
			fmt.Fprintf(&b, "  (and %d more: %s; diagnostics paths=%s lists every one)\n", weight(rest), bySeverity(rest), f.Path)
		}
	}
	writeGone(&b, n.Files)
	return b.String()
}

// maxGone bounds the lines naming what went away.
const maxGone = 8

// writeGone names what went away, most severe first, one line each:
// "gone: error [UndeclaredName] undefined: foo (a.go)".
func writeGone(b *strings.Builder, files []FileNews) {
	var all []GoneKey
	unnamed := map[string]int{}
	var unnamedPaths []string
	for _, f := range files {
		all = append(all, f.GoneKeys...)
		named := 0
		for _, g := range f.GoneKeys {
			named += g.Count
		}
		if f.Gone > named && len(f.GoneKeys) == 0 {
			unnamed[f.Path] = f.Gone
			unnamedPaths = append(unnamedPaths, f.Path)
		}
	}
	SortGone(all)
	for i, g := range all {
		if i == maxGone {
			var counts [4]int
			n := 0
			for _, x := range all[i:] {
				counts[Rank(x.Severity)] += x.Count
				n += x.Count
			}
			fmt.Fprintf(b, "gone: and %d more (%s)\n", n, severityCounts(counts))
			break
		}
		fmt.Fprintf(b, "gone: %s", g.Severity)
		if g.Code != "" {
			fmt.Fprintf(b, " [%s]", g.Code)
		}
		msg := strings.TrimSpace(strings.ReplaceAll(g.Message, "\r\n", "\n"))
		if k := strings.IndexByte(msg, '\n'); k >= 0 {
			msg = msg[:k] + " …"
		}
		fmt.Fprintf(b, " %s (%s", clip(msg), g.Path)
		if g.Count > 1 {
			fmt.Fprintf(b, ", %d places", g.Count)
		}
		b.WriteString(")\n")
	}
	for _, p := range unnamedPaths {
		fmt.Fprintf(b, "gone: %s from %s\n", plural(unnamed[p], "diagnostic", "diagnostics"), p)
	}
}

// newCounts is "3 new errors", or "2 new errors, 1 warning": the
// diagnostics of rs by severity, each place of a key counted; those back
// (Reported.Back) are counted apart: "1 new error, 2 errors back (there
// before your changes)".
func newCounts(rs []Reported) string {
	var fresh, back []Reported
	for _, r := range rs {
		if r.Back {
			back = append(back, r)
		} else {
			fresh = append(fresh, r)
		}
	}
	var parts []string
	if len(fresh) > 0 {
		s := bySeverity(fresh)
		if n := strings.IndexByte(s, ' '); n >= 0 {
			s = s[:n] + " new" + s[n:]
		}
		parts = append(parts, s)
	}
	if len(back) > 0 {
		parts = append(parts, bySeverity(back)+" back (there before your changes)")
	}
	return strings.Join(parts, ", ")
}

// weight counts rs's diagnostics, each place of a key once.
func weight(rs []Reported) int {
	n := 0
	for _, r := range rs {
		n += 1 + len(r.Also)
	}
	return n
}

// writeReported writes one diagnostic: "  LINE:COL severity [source code]
// message (also LINE:COL, ...)", a long message's further lines indented
// under it.
func writeReported(b *strings.Builder, r Reported) {
	fmt.Fprintf(b, "  %d:%d %s", r.Line, r.Col, r.Severity)
	if tag := strings.TrimSpace(r.Source + " " + r.Code); tag != "" {
		fmt.Fprintf(b, " [%s]", tag)
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(r.Message, "\r\n", "\n")), "\n")
	cut := len(lines) > maxMessageLines
	if cut {
		lines = lines[:maxMessageLines]
	}
	b.WriteByte(' ')
	b.WriteString(clip(lines[0]))
	if len(r.Also) > 0 {
		b.WriteString(" (also ")
		for i, p := range r.Also {
			if i == maxAlso {
				fmt.Fprintf(b, " and %s", plural(len(r.Also)-maxAlso, "more place", "more places"))
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%d:%d", p.Line, p.Col)
		}
		b.WriteByte(')')
	}
	b.WriteByte('\n')
	for _, l := range lines[1:] {
		b.WriteString("      ")
		b.WriteString(clip(strings.TrimRight(l, " \t")))
		b.WriteByte('\n')
	}
	if cut {
		b.WriteString("      …\n")
	}
	if r.Back {
		b.WriteString("      back: it was there before your changes, hidden for a while\n")
	}
	if r.Fix != "" {
		fmt.Fprintf(b, "      quick fix: %s\n", clip(r.Fix))
	}
}

// clip cuts a line of a message to maxLineRunes.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxLineRunes {
		return s
	}
	return string([]rune(s)[:maxLineRunes]) + "…"
}

// bySeverity counts rs by severity, most severe first: "1 error, 2 hints".
func bySeverity(rs []Reported) string {
	var counts [4]int
	for _, r := range rs {
		counts[Rank(r.Severity)] += 1 + len(r.Also)
	}
	return severityCounts(counts)
}

// severityCounts writes counts by rank: "1 error, 2 hints".
func severityCounts(counts [4]int) string {
	names := [4][2]string{{"error", "errors"}, {"warning", "warnings"}, {"info", "infos"}, {"hint", "hints"}}
	var parts []string
	for i, c := range counts {
		if c > 0 {
			parts = append(parts, plural(c, names[i][0], names[i][1]))
		}
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
