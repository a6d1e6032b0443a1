package blast

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"cchub/textfmt"
)

// MaxAnnotations is how many changed definitions get a workflow
// annotation: GitHub shows at most 10 warnings of a step, so the ten that
// reach the most are the ones shown; the step summary lists all.
const MaxAnnotations = 10

// WriteGitHub writes GitHub Actions workflow commands: a warning on each
// of the changed definitions that reach the most (at most
// MaxAnnotations), a notice saying how many were left out, and the
// summary line.
func (r *Report) WriteGitHub(w io.Writer) error {
	var b strings.Builder
	order := make([]Changed, len(r.Changed))
	copy(order, r.Changed)
	sort.SliceStable(order, func(i, j int) bool {
		bi, bj := order[i].breaks(), order[j].breaks()
		if bi != bj {
			return bi
		}
		return order[i].Reached > order[j].Reached
	})
	for i, c := range order {
		if i == MaxAnnotations {
			fmt.Fprintf(&b, "::notice title=cchub blast::%s\n", escapeData(fmt.Sprintf(
				"%d more changed definitions are not annotated; the step summary (or --format text) lists them all", len(order)-MaxAnnotations)))
			break
		}
		path, start, end := c.Path, c.StartLine, c.EndLine
		if c.RemovedAt != nil {
			path, start, end = c.RemovedAt.Path, c.RemovedAt.StartLine, c.RemovedAt.EndLine
		}
		title := fmt.Sprintf("cchub blast: %s %s", c.QualifiedName, c.Status)
		fmt.Fprintf(&b, "::warning file=%s,line=%d,endLine=%d,title=%s::%s\n",
			escapeProperty(path), start, end, escapeProperty(title), escapeData(c.sentence(r.MaxDepth)))
	}
	fmt.Fprintf(&b, "cchub blast %s: %s\n", r.Title(), r.Line())
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// breaks says whether a change leaves calls to a definition that is gone,
// resolved to it by more than its name.
func (c Changed) breaks() bool { return c.Status == StatusRemoved && c.sureCallers > 0 }

// sentence is what an annotation or a SARIF result says of a change.
func (c Changed) sentence(depth int) string {
	what := fmt.Sprintf("%s (%s) %s", c.QualifiedName, c.Kind, c.Status)
	switch {
	case c.breaks():
		what += fmt.Sprintf(", but %d caller(s) still call it and will break", c.sureCallers)
		if n := c.Callers - c.sureCallers; n > 0 {
			what += fmt.Sprintf(" (and %d more call a method of its name)", n)
		}
	case c.Status == StatusRemoved && c.Callers > 0:
		what += fmt.Sprintf(" (base %s:%d-%d); %d caller(s) call a method or function of its name, which may have been it", c.Path, c.StartLine, c.EndLine, c.Callers)
	case c.Status == StatusRemoved:
		return what + fmt.Sprintf(" (base %s:%d-%d); nothing in head calls it.", c.Path, c.StartLine, c.EndLine)
	case c.Status == StatusMoved && c.Was != nil:
		what += fmt.Sprintf(" from %s:%d", c.Was.Path, c.Was.StartLine)
	}
	tests := ""
	if c.TestsReached > 0 {
		tests = fmt.Sprintf(", %s among them", count(c.TestsReached, "test"))
	}
	return fmt.Sprintf("%s. It reaches %s within %d calls%s.", what, count(c.Reached, "definition"), depth, tests)
}

// StepSummary is the report as Markdown for $GITHUB_STEP_SUMMARY: the
// summary line, then tables of the changed and the reached definitions
// and the tests, each cut at limit rows (0: all) with a line saying how
// many more there are.
func (r *Report) StepSummary(limit int) string {
	if limit <= 0 {
		limit = int(^uint(0) >> 1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### cchub blast: %s\n\n%s.\n\n", mdText(r.Title()), mdText(r.Line()))
	if len(r.Changed) > 0 {
		b.WriteString("| changed | kind | status | place | reached | tests |\n|---|---|---|---|--:|--:|\n")
		for i, c := range r.Changed {
			if i == limit {
				fmt.Fprintf(&b, "\n… and %d more changed definitions (`--format json` lists them all).\n", len(r.Changed)-limit)
				break
			}
			where := fmt.Sprintf("%s:%d-%d", c.Path, c.StartLine, c.EndLine)
			if c.Status == StatusRemoved {
				where += " (base)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d |\n", mdCode(c.QualifiedName), c.Kind, c.Status, mdCode(where), c.Reached, c.TestsReached)
		}
		b.WriteString("\n")
	}
	if len(r.Reached) > 0 {
		fmt.Fprintf(&b, "<details><summary>Reached: %s</summary>\n\n", count(len(r.Reached), "definition"))
		b.WriteString("| distance | definition | place | confidence | via |\n|--:|---|---|---|---|\n")
		for i, re := range r.Reached {
			if i == limit {
				fmt.Fprintf(&b, "\n… and %d more reached definitions.\n", len(r.Reached)-limit)
				break
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", re.Distance, mdCode(re.QualifiedName),
				mdCode(fmt.Sprintf("%s:%d-%d", re.Path, re.StartLine, re.EndLine)), re.Confidence, mdText(strings.Join(re.Via, " ← ")))
		}
		b.WriteString("\n</details>\n\n")
	}
	if len(r.Tests) > 0 {
		fmt.Fprintf(&b, "**Tests** (%d):", len(r.Tests))
		for i, t := range r.Tests {
			if i == limit {
				fmt.Fprintf(&b, " and %d more", len(r.Tests)-limit)
				break
			}
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s (%s)", mdCode(t.QualifiedName), mdCode(fmt.Sprintf("%s:%d", t.Path, t.StartLine)))
		}
		b.WriteString("\n\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "> %s\n", mdText(n))
	}
	return b.String()
}

// escapeData escapes a workflow command's message, as @actions/core does.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// mdCode is s as inline code in a table cell; what a terminal or a
// browser would obey or reorder (a control or bidirectional character)
// is shown as its escape (textfmt.Visible), as everywhere else.
func mdCode(s string) string {
	s = strings.NewReplacer("`", "'", "|", `\|`, "\n", " ", "\r", " ").Replace(s)
	return "`" + textfmt.Visible(s) + "`"
}

// mdText is s as plain text in Markdown: no markup, no broken table, no
// control or bidirectional character (textfmt.Visible).
func mdText(s string) string {
	return textfmt.Visible(strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\n", " ", "\r", " ", "*", `\*`, "_", `\_`, "`", "'", "[", `\[`).Replace(s))
}
