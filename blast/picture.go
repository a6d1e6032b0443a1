package blast

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"cchub/codegraph"
	"cchub/textfmt"
)

// The picture of a blast radius, for a pull request comment or a step
// summary (Mermaid, inside Markdown) and for Graphviz (DOT): the changed
// definitions in the middle, what calls them within two calls around
// them, at most a bounded number of nodes, and the rest counted by
// package. Edges point from caller to callee and are drawn by the
// evidence of the path that reached the caller.

const (
	// MermaidNodes bounds the definitions a Mermaid picture draws
	// (GitHub renders at most 50,000 characters of Mermaid, and a
	// reviewer reads a few dozen boxes).
	MermaidNodes = 30
	// DotNodes bounds the definitions a DOT picture draws.
	DotNodes = 400
	// pictureHops is how many calls from a changed definition a picture
	// reaches.
	pictureHops = 2
	// pictureGroups bounds the packages the rest is counted in; the
	// remainder is one count.
	pictureGroups = 8
	// labelRunes bounds a node's label.
	labelRunes = 80
	// MarkdownBytes bounds --format markdown in all (a step summary
	// holds 1 MiB).
	MarkdownBytes = 1 << 20
)

// picture is the part of a report a picture draws.
type picture struct {
	nodes  []picNode
	edges  []picEdge
	groups []picGroup
	more   int // reached definitions in no node and no group
	total  int // reached definitions in all
}

type picNode struct {
	id, label string
	changed   bool
}

type picEdge struct {
	from, to   string // node ids: caller, callee
	confidence string
}

type picGroup struct {
	dir string
	n   int
}

// picture chooses what to draw: every changed definition (up to
// maxNodes), then the reached ones within pictureHops calls, nearest and
// surest first, while there is room; the others are counted by package.
func (r *Report) picture(maxNodes int) picture {
	p := picture{total: len(r.Reached)}
	byQual := map[string]string{} // qualified name → node id (the first)
	add := func(qual, label string, changed bool) string {
		id := fmt.Sprintf("n%d", len(p.nodes))
		p.nodes = append(p.nodes, picNode{id: id, label: label, changed: changed})
		if _, ok := byQual[qual]; !ok {
			byQual[qual] = id
		}
		return id
	}
	place := func(d Definition) string {
		return fmt.Sprintf("%s\n%s:%d", d.QualifiedName, d.Path, d.StartLine)
	}
	for _, c := range r.Changed {
		if len(p.nodes) == maxNodes {
			break
		}
		add(c.QualifiedName, place(c.Definition)+" ("+c.Status+")", true)
	}
	reached := append([]Reached(nil), r.Reached...)
	sort.SliceStable(reached, func(i, j int) bool {
		a, b := reached[i], reached[j]
		if a.Distance != b.Distance {
			return a.Distance < b.Distance
		}
		if ra, rb := codegraph.Rank(a.Confidence), codegraph.Rank(b.Confidence); ra != rb {
			return ra < rb
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.QualifiedName < b.QualifiedName
	})
	groups := map[string]int{}
	for _, re := range reached {
		callee := ""
		if n := len(re.Via); n >= 2 {
			callee = byQual[re.Via[n-2]]
		}
		if re.Distance > pictureHops || len(p.nodes) >= maxNodes || callee == "" {
			groups[path.Dir(re.Path)]++
			continue
		}
		id := add(re.QualifiedName, place(re.Definition), false)
		p.edges = append(p.edges, picEdge{from: id, to: callee, confidence: re.Confidence})
	}
	for dir, n := range groups {
		p.groups = append(p.groups, picGroup{dir: dir, n: n})
	}
	sort.Slice(p.groups, func(i, j int) bool {
		if p.groups[i].n != p.groups[j].n {
			return p.groups[i].n > p.groups[j].n
		}
		return p.groups[i].dir < p.groups[j].dir
	})
	if len(p.groups) > pictureGroups {
		for _, g := range p.groups[pictureGroups:] {
			p.more += g.n
		}
		p.groups = p.groups[:pictureGroups]
	}
	return p
}

// label is s bounded, every character a terminal, a browser or the
// renderer would obey shown as its escape.
func label(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if r := []rune(l); len(r) > labelRunes {
			l = string(r[:labelRunes-1]) + "…"
		}
		lines[i] = textfmt.Visible(l)
	}
	return strings.Join(lines, "\n")
}

// mermaidText is a label inside a Mermaid node's quotes: its own entity
// codes for what would end or mark up the label.
func mermaidText(s string) string {
	return strings.NewReplacer("\n", "<br/>").Replace(strings.NewReplacer(
		"&", "#amp;", `"`, "#quot;", "<", "#lt;", ">", "#gt;", "`", "#96;", "#", "#35;").Replace(label(s)))
}

// Mermaid is the report's picture as a Mermaid flowchart (without the
// fence): at most MermaidNodes definitions.
func (r *Report) Mermaid() string {
	p := r.picture(MermaidNodes)
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for _, n := range p.nodes {
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", n.id, mermaidText(n.label))
	}
	for _, e := range p.edges {
		switch e.confidence {
		case codegraph.Confirmed:
			fmt.Fprintf(&b, "  %s ==> %s\n", e.from, e.to)
		case codegraph.Exact, codegraph.Imported:
			fmt.Fprintf(&b, "  %s --> %s\n", e.from, e.to)
		default:
			fmt.Fprintf(&b, "  %s -. %s .-> %s\n", e.from, e.confidence, e.to)
		}
	}
	if len(p.groups) > 0 || p.more > 0 {
		b.WriteString("  subgraph further[\"further out\"]\n")
		for i, g := range p.groups {
			fmt.Fprintf(&b, "    g%d[\"%s\"]\n", i, mermaidText(fmt.Sprintf("%s/: %s", g.dir, count(g.n, "more definition"))))
		}
		if p.more > 0 {
			fmt.Fprintf(&b, "    gmore[\"%s\"]\n", mermaidText(fmt.Sprintf("%s elsewhere", count(p.more, "more definition"))))
		}
		b.WriteString("  end\n")
	}
	var changed []string
	for _, n := range p.nodes {
		if n.changed {
			changed = append(changed, n.id)
		}
	}
	if len(changed) > 0 {
		b.WriteString("  classDef changed stroke-width:3px,stroke:#d73a49\n")
		fmt.Fprintf(&b, "  class %s changed\n", strings.Join(changed, ","))
	}
	return b.String()
}

// Markdown is the report for a pull request comment or
// $GITHUB_STEP_SUMMARY: the summary line, the picture (Mermaid), the
// tests to run with why when the report has a selection, then the
// tables (StepSummary, each cut at limit rows); at most MarkdownBytes.
func (r *Report) Markdown(limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### cchub blast: %s\n\n%s.\n\n", mdText(r.Title()), mdText(r.Line()))
	if len(r.Changed) > 0 {
		p := r.picture(MermaidNodes)
		fmt.Fprintf(&b, "The changed definitions (red) and what calls them within %d calls: %d of %s drawn", pictureHops, len(p.nodes)-len(r.Changed), count(p.total, "reached definition"))
		b.WriteString("; a solid arrow is an exact or imported call, a thick one a confirmed one, a dotted one a name-only or possible one.\n\n")
		b.WriteString("```mermaid\n" + r.Mermaid() + "```\n\n")
	}
	if s := r.Selection; s != nil {
		b.WriteString("#### Tests to run\n\n")
		var t strings.Builder
		s.WriteText(&t, r.Title())
		b.WriteString("```text\n")
		for _, line := range strings.Split(strings.TrimSuffix(t.String(), "\n"), "\n")[1:] { // the title is above
			// Nothing ends the fence early: a backtick in a test's
			// title is shown as a quote.
			b.WriteString(strings.ReplaceAll(textfmt.Visible(line), "`", "'") + "\n")
		}
		b.WriteString("```\n\n")
	}
	tables := r.StepSummary(limit)
	if _, rest, ok := strings.Cut(tables, ".\n\n"); ok { // its heading and line are above
		tables = rest
	}
	b.WriteString(tables)
	out := b.String()
	if len(out) > MarkdownBytes {
		const cut = "\n\n… cut at 1 MiB: `--format json` has it all, or lower `--limit`.\n"
		out = strings.ToValidUTF8(out[:MarkdownBytes-len(cut)], "") + cut
	}
	return out
}

// WriteDot writes the report's picture in Graphviz's DOT language: at
// most DotNodes definitions.
func (r *Report) WriteDot(w io.Writer) error {
	p := r.picture(DotNodes)
	var b strings.Builder
	b.WriteString("digraph blast {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n")
	for _, n := range p.nodes {
		attrs := ""
		if n.changed {
			attrs = ", color=\"#d73a49\", penwidth=3"
		}
		fmt.Fprintf(&b, "  %s [label=%s%s];\n", n.id, dotString(n.label), attrs)
	}
	for _, e := range p.edges {
		style := "solid"
		switch e.confidence {
		case codegraph.Confirmed:
			style = "bold"
		case codegraph.Exact, codegraph.Imported:
		default:
			style = "dashed"
		}
		fmt.Fprintf(&b, "  %s -> %s [style=%s, tooltip=%s];\n", e.from, e.to, style, dotString(e.confidence))
	}
	for i, g := range p.groups {
		fmt.Fprintf(&b, "  g%d [shape=folder, label=%s];\n", i, dotString(fmt.Sprintf("%s/: %s", g.dir, count(g.n, "more definition"))))
	}
	if p.more > 0 {
		fmt.Fprintf(&b, "  gmore [shape=folder, label=%s];\n", dotString(fmt.Sprintf("%s elsewhere", count(p.more, "more definition"))))
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// dotString is s as a DOT quoted string, lines as \n.
func dotString(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(label(s))
	return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"`
}
