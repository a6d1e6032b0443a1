package hub

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cchub/astedit"
)

// manyMatches is a module of 30 files with 3 matches each, and one file
// whose 150 consecutive matches make one hunk longer than a page.
func manyMatches() map[string]string {
	files := map[string]string{
		"go.mod":      "module example.com/many\n\ngo 1.22\n",
		".cchub.json": `{"servers": [{"name": "gopls", "disabled": true}]}`,
	}
	msg := "a message long enough that the diff of this file takes room on a page"
	for i := range 30 {
		var b strings.Builder
		fmt.Fprintf(&b, "package many\n\nfunc f%d() {\n", i)
		for j := range 3 {
			fmt.Fprintf(&b, "\tlegacyLog(%q, %d)\n\n\n\n\n\n\n\n", msg, j)
		}
		b.WriteString("}\n")
		files[fmt.Sprintf("f%02d.go", i)] = b.String()
	}
	var b strings.Builder
	b.WriteString("package many\n\nfunc big() {\n")
	for j := range 150 {
		fmt.Fprintf(&b, "\tlegacyLog(%q, %d)\n", msg, j)
	}
	b.WriteString("}\n\nfunc legacyLog(string, int) {}\n")
	files["big.go"] = b.String()
	return files
}

// pageDiffOf is the diff part of a page of a staged change's answer: from
// its first file header to the line before its last.
func pageDiffOf(t *testing.T, page string) string {
	t.Helper()
	i := strings.Index(page, "\n--- a/")
	if i < 0 {
		t.Fatalf("a page without a diff:\n%s", page)
	}
	body := page[i+1:]
	j := strings.LastIndex(strings.TrimSuffix(body, "\n"), "\n")
	return body[:j+1]
}

// A rewrite of 240 matches in 31 files answers within 8 KB: the counts,
// each file's share, how to resolve, the first places and hunks, and the
// call for page 2. Paging through resolve show gives back the whole diff,
// every page within 8 KB, a hunk longer than a page cut only at lines.
func TestStagedRewriteAnswerIsASummaryAndPagesTheDiff(t *testing.T) {
	dir := writeModule(t, manyMatches())
	h, err := Open(dir, Options{Approval: ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	o, err := h.Rewrite(ctx, astedit.RewriteOptions{Pattern: "legacyLog($A, $B)", Template: "slogInfo($A, $B)", Lang: "go"})
	if err != nil {
		t.Fatal(err)
	}
	text := o.Text()
	id := o.ID
	if len(text) > 8*1024 {
		t.Errorf("the answer is %d bytes:\n%s", len(text), text)
	}
	for _, want := range []string{
		"staged rewrite " + id + ": 240 edits in 31 files; nothing is written yet.\n",
		"To apply it: resolve action=accept id=" + id,
		"  big.go: 150 edits, +150 -150\n",
		"  f00.go: 3 edits, +3 -3\n",
		"  and 11 more files (each in the diff's pages)\n",
		"  and 230 more places (each in the diff)\n",
		"resolve action=show id=" + id + " page=2;",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "resolve action=accept") > strings.Index(text, "\n--- a/") {
		t.Errorf("how to resolve comes after the diff:\n%s", text)
	}

	shown, err := h.StagedChange(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if p1, _ := shown.PageText(1); p1 != text {
		t.Errorf("show's page 1 differs from the staging answer:\n%s\n----\n%s", p1, text)
	}
	var full strings.Builder
	for _, f := range shown.Files {
		full.WriteString(f.Diff)
	}
	var got strings.Builder
	header := ""
	pages, continued := 0, 0
	for n := 1; ; n++ {
		page, err := shown.PageText(n)
		if err != nil {
			t.Fatalf("page %d: %v", n, err)
		}
		pages++
		if strings.Contains(strings.SplitN(page, "\n", 2)[0], "too long for a page, goes on from page") {
			continued++
		}
		if len(page) > 8*1024 {
			t.Errorf("page %d is %d bytes", n, len(page))
		}
		if n > 1 && !strings.HasPrefix(page, fmt.Sprintf("staged rewrite %s, diff page %d of ", id, n)) {
			t.Errorf("page %d does not say which it is:\n%.200s", n, page)
		}
		// A page repeats the header of a file continued from the page
		// before: dropped, the pages read as the one diff.
		lines := strings.SplitAfter(pageDiffOf(t, page), "\n")
		for i := 0; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") {
				h := lines[i] + lines[i+1]
				if h == header {
					i++
					continue
				}
				header = h
			}
			got.WriteString(lines[i])
		}
		if strings.Contains(page, "(last page;") {
			break
		}
		if !strings.Contains(page, fmt.Sprintf("resolve action=show id=%s page=%d", id, n+1)) {
			t.Fatalf("page %d does not name the next:\n%s", n, page[len(page)-300:])
		}
		if n > 50 {
			t.Fatal("no last page")
		}
	}
	if got.String() != full.String() {
		t.Errorf("the pages do not make the diff: %d bytes of %d", got.Len(), full.Len())
	}
	if pages < 3 || continued == 0 {
		t.Errorf("%d pages, %d continuing a hunk: the test wants a diff over several, with a hunk longer than a page", pages, continued)
	}
	if _, err := shown.PageText(pages + 1); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("resolve action=show id=%s page=%d", id, pages)) {
		t.Errorf("a page past the end: %v", err)
	}
}

// A rename counts each identifier it changes: a function called three
// times in another file is 4 edits in 2 files, not "2 changes".
func TestRenameCountsEdits(t *testing.T) {
	requireGopls(t)
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/ren\n\ngo 1.22\n",
		"a.go":   "package ren\n\nfunc A() int { return 1 }\n",
		"b.go":   "package ren\n\nfunc B() int {\n\treturn A() + A() +\n\t\tA()\n}\n",
	})
	h, err := Open(dir, Options{Approval: ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	a, err := h.LSP(context.Background(), LSPQuery{Op: "rename", Path: "a.go", Symbol: "A", NewName: "One"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Staged == nil {
		t.Fatalf("nothing staged: %s", a.Text())
	}
	text := a.Text()
	for _, want := range []string{
		": 4 edits in 2 files; nothing is written yet.\n",
		"  a.go: 1 edit, +1 -1\n",
		"  b.go: 3 edits, +2 -2\n",
		"  b.go:4: return A() + A() +\n",
		"  b.go:5: A()\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the rename's answer lacks %q:\n%s", want, text)
		}
	}
}
