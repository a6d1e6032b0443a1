package blast

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// bigReport is a change reaching n definitions in 50 packages, three
// calls deep, with names that try to break out of a label, a fence or a
// terminal.
func bigReport(n int) *Report {
	hostile := "Evil\"]\n```\x1b[2J<script>#x"
	r := &Report{Base: Revision{Ref: "base"}, Head: Revision{WorkingTree: true}}
	r.Changed = []Changed{{Definition: Definition{Name: "Root", QualifiedName: "Root", Path: "core/root.go", StartLine: 3}, Status: StatusModified}}
	r.Changed = append(r.Changed, Changed{Definition: Definition{Name: hostile, QualifiedName: hostile, Path: "core/evil.go", StartLine: 9}, Status: StatusModified})
	for i := range n {
		dist := 1 + i%3
		via := []string{"Root"}
		for d := 1; d < dist; d++ {
			via = append(via, fmt.Sprintf("F%d", (i/3)*3+d-1))
		}
		name := fmt.Sprintf("F%d", i)
		via = append(via, name)
		conf := []string{"exact", "import", "name-only", "possible", "confirmed"}[i%5]
		r.Reached = append(r.Reached, Reached{Definition: Definition{Name: name, QualifiedName: name, Path: fmt.Sprintf("pkg%d/f.go", i%50), StartLine: i + 1}, Distance: dist, Confidence: conf, Via: via})
	}
	r.Summary.Reached = n
	return r
}

// The picture stays within its bounds for a change that reaches
// thousands of definitions, and no name gets out of its label.
func TestPictureBounds(t *testing.T) {
	r := bigReport(5000)
	m := r.Mermaid()
	if nodes := strings.Count(m, "[\"") - strings.Count(m, "subgraph"); nodes > MermaidNodes+pictureGroups+1 {
		t.Errorf("%d boxes drawn, want at most %d definitions and %d groups", nodes, MermaidNodes, pictureGroups+1)
	}
	if len(m) > 50000 {
		t.Errorf("Mermaid is %d characters, more than GitHub renders", len(m))
	}
	for _, bad := range []string{"\x1b", "```", "<script>", "Evil\"]"} {
		if strings.Contains(m, bad) {
			t.Errorf("a name got out of its label (%q):\n%s", bad, m)
		}
	}
	if !strings.Contains(m, "class n0,n1 changed") || !strings.Contains(m, "Evil#quot;]") || !strings.Contains(m, "further out") {
		t.Errorf("the picture lacks its focus, its escaped name or its groups:\n%s", m)
	}
	if small := bigReport(10).Mermaid(); !strings.Contains(small, "-. name-only .->") || !strings.Contains(small, "-. possible .->") || !strings.Contains(small, "==>") || !strings.Contains(small, " --> ") {
		t.Errorf("10 reached definitions: each edge drawn by its evidence:\n%s", small)
	}
	md := bigReport(30000).Markdown(0)
	if len(md) > MarkdownBytes {
		t.Errorf("markdown is %d bytes, more than a step summary holds", len(md))
	}
	if strings.Count(md, "```mermaid\n") != 1 || strings.Count(md, "```") != 2 {
		t.Errorf("the Mermaid fence is not one closed block")
	}
	if !strings.Contains(md, "cut at 1 MiB") {
		t.Errorf("30000 reached definitions with --limit 0 fit in 1 MiB? %d bytes", len(md))
	}
	withTests := bigReport(3)
	withTests.Selection = &Selection{Groups: []TestGroup{{Runner: "jest", Command: "npx jest -t 'a```b'", Why: "reached\x1b[31m"}}}
	if md := withTests.Markdown(10); strings.Count(md, "```") != 4 || !strings.Contains(md, "#### Tests to run") || strings.Contains(md, "\x1b") || !strings.Contains(md, "npx jest -t 'a'''b'") {
		t.Errorf("the tests to run, fenced, nothing ending the fence or reaching a terminal:\n%s", md)
	}
	var dot bytes.Buffer
	if err := r.WriteDot(&dot); err != nil {
		t.Fatal(err)
	}
	d := dot.String()
	if strings.Contains(d, "\x1b") || strings.Contains(d, "Evil\"]") || !strings.Contains(d, `Evil\"]`) || !strings.HasSuffix(d, "}\n") {
		t.Errorf("a name got out of its DOT string:\n%s", d[:min(len(d), 2000)])
	}
	if n := strings.Count(d, "[label="); n > DotNodes+pictureGroups+1 {
		t.Errorf("DOT draws %d nodes", n)
	}
}
