package locate

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"cchub/workspace"
	"cchub/workspace/wstest"
)

// A directory that cannot be read is named in glob's and grep's results,
// in the JSON and in the text, instead of being passed over in silence.
func TestGlobAndGrepReportUnreadableDirectories(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "package a // needle\n", "z/b.go": "package z // needle\n"})
	bad, reason := wstest.UnreadableDir(t, dir)
	root := openRoot(t, dir)
	ctx := context.Background()
	wantDirs := workspace.UnreadableDirs{{Path: bad, Reason: reason}}
	wantJSON := `"unreadable":[{"path":"` + bad + `","reason":"` + reason + `"}]`

	g, err := Glob(ctx, root, GlobOptions{Pattern: "*.go"})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(g.Files)
	if !slices.Equal(g.Files, []string{"a.go", "z/b.go"}) || !slices.Equal(g.Unreadable, wantDirs) {
		t.Errorf("glob: files %q, unreadable %q", g.Files, g.Unreadable)
	}
	if !strings.HasSuffix(g.Text(), "[could not read 1 directory: "+bad+"/ ("+reason+"); their files are not listed]\n") {
		t.Errorf("glob text: %q", g.Text())
	}
	if js, _ := json.Marshal(g); !strings.Contains(string(js), wantJSON) {
		t.Errorf("glob JSON: %s", js)
	}
	g, _ = Glob(ctx, root, GlobOptions{Pattern: "*.rs"})
	if !strings.HasSuffix(g.Text(), "their files are not listed]\n") {
		t.Errorf("glob without matches: %q", g.Text())
	}

	r := grep(t, root, GrepOptions{Pattern: "needle"})
	if !slices.Equal(where(r), []string{"a.go:1", "z/b.go:1"}) || !slices.Equal(r.Unreadable, wantDirs) {
		t.Errorf("grep: %q, unreadable %q", where(r), r.Unreadable)
	}
	if !strings.HasSuffix(r.Text(), "\n[could not read 1 directory: "+bad+"/ ("+reason+"); their files were not searched]\n") {
		t.Errorf("grep text: %q", r.Text())
	}
	if js, _ := json.Marshal(r); !strings.Contains(string(js), wantJSON) {
		t.Errorf("grep JSON: %s", js)
	}
	r = grep(t, root, GrepOptions{Pattern: "nowhere"})
	if !strings.HasPrefix(r.Text(), "No matches") || !strings.HasSuffix(r.Text(), "their files were not searched]\n") {
		t.Errorf("grep without matches: %q", r.Text())
	}

	// A tree that reads whole says nothing of it.
	clean := openRoot(t, t.TempDir())
	if r, _ := Grep(ctx, clean, GrepOptions{Pattern: "x"}); r.Unreadable != nil || strings.Contains(r.Text(), "could not read") {
		t.Errorf("clean tree: %+v", r)
	}
	if cg, _ := Glob(ctx, clean, GlobOptions{Pattern: "*"}); cg == nil || strings.Contains(cg.Text(), "could not read") {
		t.Errorf("clean tree: %+v", cg)
	} else if js, _ := json.Marshal(cg); strings.Contains(string(js), "unreadable") {
		t.Errorf("unreadable in the JSON of a clean tree: %s", js)
	}
}
