package blast

import (
	"fmt"
	"io"
	"strings"

	"cchub/codegraph"
	"cchub/textfmt"
)

// DefaultLimit is how many entries of each list the text forms show
// unless told: enough to act on, few enough for a terminal or a model's
// context. The JSON and SARIF forms are always complete.
const DefaultLimit = 50

// Title says what was compared: "origin/main (1a2b3c4d5e6f) → working tree".
func (r *Report) Title() string {
	return r.Base.show() + " → " + r.Head.show()
}

func (v Revision) show() string {
	if v.WorkingTree {
		return "working tree"
	}
	if v.Ref == v.Commit || strings.HasPrefix(v.Commit, v.Ref) {
		return short(v.Commit)
	}
	return fmt.Sprintf("%s (%s)", v.Ref, short(v.Commit))
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Line is the one-line summary of the report.
func (r *Report) Line() string {
	s := r.Summary
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{s.Modified, "modified"}, {s.Added, "added"}, {s.Removed, "removed"}, {s.Moved, "moved"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	detail := ""
	if len(parts) > 0 {
		detail = " (" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("%s changed%s; %s reached within %d calls in %s; %s",
		count(s.Changed, "definition"), detail, count(s.Reached, "definition"), r.MaxDepth, count(s.Files, "file"), count(s.Tests, "test"))
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// WriteText writes the report for a person: the changed definitions, the
// reached ones by distance, their files, the tests among them and a
// summary line. Each list shows at most limit entries (0: all) and says
// how many more there are.
func (r *Report) WriteText(w io.Writer, limit int) error {
	if limit <= 0 {
		limit = int(^uint(0) >> 1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "blast radius of %s, up to %d calls away (%s and surer edges)\n", r.Title(), r.MaxDepth, r.MinConfidence)
	if len(r.Changed) == 0 {
		b.WriteString("no definition changed: the diff touches no function, method or type the code graph reads\n")
	}
	if len(r.Changed) > 0 {
		fmt.Fprintf(&b, "changed (%d):\n", len(r.Changed))
	}
	for i, c := range r.Changed {
		if i == limit {
			more(&b, len(r.Changed)-limit, "changed definitions")
			break
		}
		where := textfmt.Place(c.Path, c.StartLine, c.EndLine)
		if c.Status == StatusRemoved {
			where += " (base)"
		}
		fmt.Fprintf(&b, "  %s\t%s %s\t%s\n", where, c.Kind, c.QualifiedName, c.effect())
	}
	if len(r.Reached) > 0 {
		fmt.Fprintf(&b, "reached (%d%s):\n", len(r.Reached), r.evidenceCounts())
	}
	dist := 0
	for i, re := range r.Reached {
		if i == limit {
			more(&b, len(r.Reached)-limit, "reached definitions")
			break
		}
		if re.Distance != dist {
			dist = re.Distance
			fmt.Fprintf(&b, "  distance %d:\n", dist)
		}
		fmt.Fprintf(&b, "    %s\t%s %s [%s] via %s\n", textfmt.Place(re.Path, re.StartLine, re.EndLine), re.Kind, re.QualifiedName, re.Confidence, strings.Join(re.Via, " <- "))
	}
	if len(r.Files) > 0 {
		shown := r.Files
		if len(shown) > limit {
			shown = shown[:limit]
		}
		var ps []string
		for _, f := range shown {
			ps = append(ps, textfmt.ShowPath(f))
		}
		fmt.Fprintf(&b, "files (%d): %s", len(r.Files), strings.Join(ps, ", "))
		if n := len(r.Files) - len(shown); n > 0 {
			fmt.Fprintf(&b, " and %d more", n)
		}
		b.WriteByte('\n')
	}
	if len(r.Tests) > 0 {
		fmt.Fprintf(&b, "tests (%d):\n", len(r.Tests))
	}
	for i, t := range r.Tests {
		if i == limit {
			more(&b, len(r.Tests)-limit, "tests")
			break
		}
		what := "changed"
		if t.Distance > 0 {
			what = fmt.Sprintf("distance %d", t.Distance)
		}
		fmt.Fprintf(&b, "  %s\t%s (%s)\n", textfmt.Place(t.Path, t.StartLine, t.EndLine), t.QualifiedName, what)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if c := r.Confirmation; c != nil {
		fmt.Fprintf(&b, "confirmation: %d edge(s) asked, %d confirmed, %d refuted (left out)", c.Asked, c.Confirmed, c.Refuted)
		if c.Unconfirmed != "" {
			fmt.Fprintf(&b, "; unconfirmed: %s", c.Unconfirmed)
		}
		b.WriteByte('\n')
	} else if r.Evidence[codegraph.NameOnly]+r.Evidence[codegraph.Possible] > 0 {
		b.WriteString("name-only and possible edges are unconfirmed: --confirm asks the language server\n")
	}
	fmt.Fprintf(&b, "summary: %s\n", r.Line())
	_, err := io.WriteString(w, b.String())
	return err
}

func more(b *strings.Builder, n int, what string) {
	fmt.Fprintf(b, "  … and %d more %s (--limit 0 shows all; --format json lists everything)\n", n, what)
}

// evidenceCounts is the reached definitions by evidence, surest first
// (": 3 exact, 1 name-only"), or "".
func (r *Report) evidenceCounts() string {
	var parts []string
	for _, ev := range codegraph.Evidences {
		if n := r.Evidence[ev]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, ev))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}

// effect says what a changed definition does to the rest of the code.
func (c Changed) effect() string {
	reach := fmt.Sprintf("reaches %d", c.Reached)
	if c.TestsReached > 0 {
		reach += fmt.Sprintf(" (%s)", count(c.TestsReached, "test"))
	}
	switch c.Status {
	case StatusRemoved:
		switch {
		case c.Callers == 0:
			return "removed; nothing calls it now"
		case c.breaks():
			return fmt.Sprintf("removed, but %d caller(s) still call it; %s", c.sureCallers, reach)
		}
		return fmt.Sprintf("removed; %d caller(s) call its name, by name only; %s", c.Callers, reach)
	case StatusMoved:
		return fmt.Sprintf("moved from %s; %s", textfmt.Place(c.Was.Path, c.Was.StartLine, c.Was.EndLine), reach)
	}
	return c.Status + "; " + reach
}
