package codegraph

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"cchub/textfmt"
)

// Query is one question for the code graph, as a front end asks it.
type Query struct {
	Op            string   // symbols, callers, callees, blast or tests
	Name          string   // symbols: a name or glob; the others: a definition as Name, Type.Name or path:Name
	Names         []string // blast, tests: more definitions
	Depth         int      // blast: how many calls away (0: 3)
	MinConfidence string   // blast: exact, import, name-only or possible ("": all)
	// Confirm asks the workspace's language server about the name-only
	// and possible edges of the answer (callers, blast): confirmed ones
	// are marked so, refuted ones left out and counted.
	Confirm bool
	// Offset and Path page the text's listing (symbols, callers, callees,
	// blast): the entries from Offset (0-based) on, of those in Path (a
	// file or directory) if given. The counts are of the whole answer.
	Offset int
	Path   string
}

// Answer is the code graph's answer to one Query: which fields are set
// depends on Op. Its text (TextWithin) pages through what it lists and
// names the call that lists more.
type Answer struct {
	Op string `json:"op"`
	// Name is what symbols looked for: a name or a glob.
	Name string `json:"name,omitempty"`
	// Definitions are the definitions symbols found, or those a blast
	// starts from.
	Definitions []Def `json:"definitions,omitempty"`
	// Definition is the one callers or callees asked about; Edges are its
	// call sites (callers) or the calls it makes (callees).
	Definition *Def   `json:"definition,omitempty"`
	Edges      []Edge `json:"edges,omitempty"`
	// Reached is what calls the blast's Definitions, nearest first.
	Reached []Reached `json:"reached,omitempty"`
	// Counts are the edges (callers, callees) or reached definitions
	// (blast) by evidence.
	Counts map[string]int `json:"counts,omitempty"`
	// TopLevel are the top-level calls of what a blast reached.
	TopLevel []Edge `json:"top_level,omitempty"`
	// Asked and Refuted count a confirmation's questions and the edges it
	// left out; Unconfirmed says why edges stayed unconfirmed.
	Asked       int    `json:"asked,omitempty"`
	Refuted     int    `json:"refuted,omitempty"`
	Unconfirmed string `json:"unconfirmed,omitempty"`
	// Confirmed says the language server was asked (Query.Confirm); the
	// text then says what stays unconfirmed, not how to confirm.
	Confirmed bool `json:"-"`
	// Query is what was asked: the text names the call for more.
	Query Query `json:"-"`
}

// Text is the answer for a model or a person: places as path:LINE, how
// sure each call edge is, and for a blast the counts by distance,
// directory and evidence, nearest first, then the files and tests reached.
// It lists everything (from the query's Offset, within its Path).
func (r *Answer) Text() string { return r.TextWithin(0) }

// TextWithin is Text within about maxBytes (0: no bound): the counts
// first, then the entries that fit, whole, then how many more there are
// and the call that lists them.
func (r *Answer) TextWithin(maxBytes int) string {
	var head, tail strings.Builder
	var items []string
	kept := 0 // entries (in Path) before the page (Offset)
	switch strings.TrimSpace(r.Op) {
	case "symbols":
		if len(r.Definitions) == 0 {
			return fmt.Sprintf("no definition matches %q; try a glob such as *%s*\n", r.Name, r.Name)
		}
		fmt.Fprintf(&head, "%d definition(s) match %q:\n", len(r.Definitions), r.Name)
		for _, d := range r.Definitions {
			items = append(items, fmt.Sprintf("%s:%d-%d\t%s %s\n", d.Path, d.Start, d.End, d.Kind, d.Qual()))
		}
		items, kept = r.page(items, func(i int) string { return r.Definitions[i].Path })
	case "callers", "callees":
		d := r.Definition
		fmt.Fprintf(&head, "%s of %s (%s:%d): %d%s\n", r.Op, d.Qual(), d.Path, d.Start, len(r.Edges), r.evidence())
		if len(r.Edges) > groupFrom {
			byFile := map[string]int{}
			for _, e := range r.Edges {
				byFile[e.Path]++
			}
			fmt.Fprintf(&head, "in %s: %s\n", textfmt.Count(len(byFile), "file"), topCounts(byFile, maxGroups))
		}
		for _, e := range r.Edges {
			other := "top level"
			if r.Op == "callers" && e.Caller != nil {
				other = e.Caller.Qual()
			}
			if r.Op == "callees" {
				other = e.Name + " (unresolved)"
				if e.Callee != nil {
					other = fmt.Sprintf("%s (%s:%d)", e.Callee.Qual(), e.Callee.Path, e.Callee.Start)
				}
			}
			conf := ""
			if e.Confidence != "" {
				conf = " [" + e.Confidence + "]"
			}
			items = append(items, fmt.Sprintf("%s:%d:%d\t%s%s\n", e.Path, e.Line, e.Col, other, conf))
		}
		items, kept = r.page(items, func(i int) string { return r.Edges[i].Path })
	case "blast":
		writeBlastHead(&head, r.Query, r.Definitions, r.Reached, r.evidence())
		for _, x := range r.Reached {
			items = append(items, fmt.Sprintf("  %s:%d\t%s [%s] via %s\n", x.Def.Path, x.Def.Start, x.Def.Qual(), x.Confidence, strings.Join(x.Via, " <- ")))
		}
		items, kept = r.page(items, func(i int) string { return r.Reached[i].Def.Path })
		for i, e := range r.TopLevel {
			if i == 0 {
				fmt.Fprintf(&tail, "called at a file's top level (runs when its package or module loads): %d\n", len(r.TopLevel))
			}
			if i == maxGroups && maxBytes > 0 {
				fmt.Fprintf(&tail, "  and %d more\n", len(r.TopLevel)-i)
				break
			}
			fmt.Fprintf(&tail, "  %s:%d\t%s [%s]\n", e.Path, e.Line, e.Name, e.Confidence)
		}
	}
	if r.Op == "callers" || r.Op == "blast" {
		tail.WriteString(r.confirmation())
	}
	var b strings.Builder
	b.WriteString(head.String())
	shown := 0
	for _, it := range items {
		if maxBytes > 0 && shown > 0 && b.Len()+len(it)+tail.Len()+moreRoom > maxBytes {
			break
		}
		if r.Op == "blast" {
			r.distanceHeading(&b, kept+shown)
		}
		b.WriteString(it)
		shown++
	}
	if shown < len(items) || kept > 0 || r.Query.Path != "" {
		b.WriteString(r.more(kept, shown, len(items)))
	}
	if r.Op == "blast" && shown == len(items) && len(r.Reached) <= groupFrom {
		// A short radius, listed to its end: its files and tests (a long
		// one was counted by directory, its tests named, first).
		writeBlastFiles(&b, r.pathed())
	}
	b.WriteString(tail.String())
	return b.String()
}

// groupFrom is how many entries make a list long enough to be counted by
// file or directory first; maxGroups bounds the groups named.
const (
	groupFrom = 20
	maxGroups = 10
	moreRoom  = 400
)

// page keeps the entries the query's Path and Offset select; pathOf is the
// path of entry i. It returns them and the offset of the first.
func (r *Answer) page(items []string, pathOf func(i int) string) ([]string, int) {
	var in []string
	for i, it := range items {
		if inPath(pathOf(i), r.Query.Path) {
			in = append(in, it)
		}
	}
	off := min(max(r.Query.Offset, 0), len(in))
	return in[off:], off
}

// inPath reports whether p is the file or under the directory dir ("" or
// "." is everything).
func inPath(p, dir string) bool {
	dir = strings.Trim(strings.TrimPrefix(strings.TrimSpace(dir), "./"), "/")
	return dir == "" || dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// pathed is the reached definitions the listing covers (those in Path).
func (r *Answer) pathed() []Reached {
	if r.Query.Path == "" {
		return r.Reached
	}
	var out []Reached
	for _, x := range r.Reached {
		if inPath(x.Def.Path, r.Query.Path) {
			out = append(out, x)
		}
	}
	return out
}

// distanceHeading writes "distance N (M):" before the i-th entry of the
// blast's listing (in Path) when it starts a distance or the page.
func (r *Answer) distanceHeading(b *strings.Builder, i int) {
	all := r.pathed()
	if i >= len(all) {
		return
	}
	d := all[i].Distance
	if i > 0 && all[i-1].Distance == d && i != max(r.Query.Offset, 0) {
		return
	}
	n := 0
	for _, x := range all {
		if x.Distance == d {
			n++
		}
	}
	fmt.Fprintf(b, "distance %d (%d):\n", d, n)
}

// more says what the listing left out and the call that shows it.
func (r *Answer) more(before, shown, rest int) string {
	total := before + rest
	after := rest - shown
	var b strings.Builder
	in := ""
	if r.Query.Path != "" {
		in = fmt.Sprintf(" in %s (of %d in all)", r.Query.Path, r.listed())
	}
	if shown == 0 {
		fmt.Fprintf(&b, "[nothing to show from offset %d: %d entries%s; from the start: %s]\n", r.Query.Offset, total, in, r.Query.call(0))
		return b.String()
	}
	fmt.Fprintf(&b, "[showing %d-%d of %d%s", before+1, before+shown, total, in)
	if after > 0 {
		fmt.Fprintf(&b, "; %d more", after)
		if r.Op == "blast" {
			byDist := map[int]int{}
			all := r.pathed()
			for _, x := range all[before+shown:] {
				byDist[x.Distance]++
			}
			fmt.Fprintf(&b, " (%s)", byDistance(byDist))
		}
		fmt.Fprintf(&b, ": %s", r.Query.call(before+shown))
	}
	b.WriteString("]\n")
	return b.String()
}

// listed is how many entries the answer lists, in every path.
func (r *Answer) listed() int {
	switch strings.TrimSpace(r.Op) {
	case "symbols":
		return len(r.Definitions)
	case "blast":
		return len(r.Reached)
	}
	return len(r.Edges)
}

// call is the graph call that asks q again and lists from offset on.
func (q Query) call(offset int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "graph op=%s", strings.TrimSpace(q.Op))
	if q.Name != "" {
		fmt.Fprintf(&b, " name=%s", q.Name)
	}
	if len(q.Names) > 0 {
		js, _ := json.Marshal(q.Names)
		fmt.Fprintf(&b, " names=%s", js)
	}
	if q.Depth != 0 {
		fmt.Fprintf(&b, " depth=%d", q.Depth)
	}
	if q.MinConfidence != "" {
		fmt.Fprintf(&b, " min_confidence=%s", q.MinConfidence)
	}
	if q.Confirm {
		b.WriteString(" confirm=true")
	}
	if q.Path != "" {
		fmt.Fprintf(&b, " path=%s", q.Path)
	}
	if offset > 0 {
		fmt.Fprintf(&b, " offset=%d", offset)
	}
	return b.String()
}

// topCounts is "a 12, b 3, …" for the largest n of counts, and how many
// more there are.
func topCounts(counts map[string]int, n int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for i, k := range keys {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}

// evidence is the counts by evidence, surest first (" — 3 exact, 1
// name-only"), and what a confirmation refuted.
func (r *Answer) evidence() string {
	var parts []string
	for _, ev := range Evidences {
		if n := r.Counts[ev]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, ev))
		}
	}
	if r.Refuted > 0 {
		parts = append(parts, fmt.Sprintf("%d refuted by the language server (left out)", r.Refuted))
	}
	if len(parts) == 0 {
		return ""
	}
	return " — " + strings.Join(parts, ", ")
}

// confirmation says what stays unconfirmed and how to confirm it.
func (r *Answer) confirmation() string {
	weak := r.Counts[NameOnly] + r.Counts[Possible]
	switch {
	case !r.Confirmed && weak > 0:
		return fmt.Sprintf("%d name-only or possible: unconfirmed; confirm: true (cchub: --confirm) asks the language server\n", weak)
	case r.Confirmed && r.Unconfirmed != "":
		return "unconfirmed: " + r.Unconfirmed + "\n"
	}
	return ""
}

// writeBlastHead says what a change reaches: the totals (by distance,
// files, tests, evidence), and for a long radius the counts by directory
// and the tests by name.
func writeBlastHead(b *strings.Builder, q Query, starts []Def, reached []Reached, evidence string) {
	var names []string
	for _, d := range starts {
		names = append(names, d.Qual())
	}
	byDist := map[int]int{}
	files, dirs := map[string]bool{}, map[string]int{}
	var tests []string
	for _, r := range reached {
		byDist[r.Distance]++
		files[r.Def.Path] = true
		dirs[path.Dir(r.Def.Path)]++
		if RunsAsTest(r.Def) {
			tests = append(tests, fmt.Sprintf("%s (%s)", r.Def.Qual(), r.Def.Path))
		}
	}
	fmt.Fprintf(b, "blast radius of %s: %d definition(s)", strings.Join(names, ", "), len(reached))
	if len(reached) > 0 {
		fmt.Fprintf(b, " (%s) in %s, %s", byDistance(byDist), textfmt.Count(len(files), "file"), textfmt.Count(len(tests), "test"))
	}
	fmt.Fprintf(b, "%s\n", evidence)
	if len(reached) > groupFrom {
		fmt.Fprintf(b, "by directory: %s\n", topCounts(dirs, maxGroups))
		if len(tests) > 0 {
			call := Query{Op: "tests", Name: q.Name, Names: q.Names}.call(0)
			shown := tests
			more := ""
			if len(shown) > maxGroups {
				shown = shown[:maxGroups]
				more = fmt.Sprintf(" and %d more", len(tests)-maxGroups)
			}
			fmt.Fprintf(b, "tests: %s%s (to run them: %s)\n", strings.Join(shown, ", "), more, call)
		}
	}
}

// writeBlastFiles names the files and the tests a short radius reaches.
func writeBlastFiles(b *strings.Builder, reached []Reached) {
	files := map[string]bool{}
	var tests []string
	for _, r := range reached {
		files[r.Def.Path] = true
		if RunsAsTest(r.Def) {
			tests = append(tests, fmt.Sprintf("%s (%s)", r.Def.Qual(), r.Def.Path))
		}
	}
	if len(files) > 0 {
		var fs []string
		for f := range files {
			fs = append(fs, f)
		}
		sort.Strings(fs)
		fmt.Fprintf(b, "files: %s\n", strings.Join(fs, ", "))
	}
	if len(tests) > 0 {
		fmt.Fprintf(b, "tests: %s\n", strings.Join(tests, ", "))
	}
}

// byDistance says counts by distance, nearest first: "300 at distance 1,
// 50 at distance 2".
func byDistance(counts map[int]int) string {
	ds := make([]int, 0, len(counts))
	for d := range counts {
		ds = append(ds, d)
	}
	sort.Ints(ds)
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%d at distance %d", counts[d], d)
	}
	return strings.Join(parts, ", ")
}
