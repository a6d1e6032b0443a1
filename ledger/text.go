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

// Text writes the news for a model's context, errors first:
//
//	diagnostics: 2 new in store/store.go, 1 new in cmd/main.go (3 already reported still present)
//	store/store.go
//	  12:5 error [compiler UndeclaredName] undefined: foo
//	  40:2 warning [staticcheck SA4006] this value of x is never used (also 52:2)
//	cmd/main.go
//	  7:1 error [compiler] missing return
//
// At most maxPerFile diagnostics are listed per file and maxFiles files
// (the most severe first); what is left out is counted ("(and 3 more: 1
// warning, 2 hints)"). A bound below 1 means no bound. With nothing new
// the text is one line. It ends with a newline.
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
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d new in %s", len(f.New), f.Path)
	}
	if rest := withNew[len(shown):]; len(rest) > 0 {
		c := 0
		var names []string
		for _, f := range rest {
			c += len(f.New)
			if len(names) < maxNamed {
				names = append(names, f.Path)
			}
		}
		if len(rest) > maxNamed {
			names = append(names, "…")
		}
		fmt.Fprintf(&b, ", and %d new in %s not listed (%s: the diagnostics tool with their paths lists them)", c, plural(len(rest), "more file", "more files"), strings.Join(names, ", "))
	}
	var notes []string
	if a := n.AlreadyCount(); a > 0 {
		notes = append(notes, fmt.Sprintf("%d already reported still present", a))
	}
	if g := n.GoneCount(); g > 0 {
		notes = append(notes, fmt.Sprintf("%d gone", g))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
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
			fmt.Fprintf(&b, "  (and %d more: %s; the diagnostics tool with paths [%q] lists every one)\n", len(rest), bySeverity(rest), f.Path)
		}
	}
	return b.String()
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
		counts[Rank(r.Severity)]++
	}
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
