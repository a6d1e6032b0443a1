package anchor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
)

// gitRepo makes a git repository with files committed, then applies
// changes to the working tree (a nil content deletes the file).
func gitRepo(t *testing.T, files, changes map[string]string) (*workspace.Root, string) {
	t.Helper()
	dir := t.TempDir()
	write := func(m map[string]string) {
		for p, c := range m {
			full := filepath.Join(dir, p)
			os.MkdirAll(filepath.Dir(full), 0o755)
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write(files)
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	write(changes)
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

const serverGo = `package server

import "net/http"

// Handler serves the API.
func Handler(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Write([]byte("ok"))
}
`

const serverGoNew = `package server

import "net/http"

// Handler serves the API.
func Handler(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.Method == http.MethodHead {
		return
	}
	w.Write([]byte("ok"))
}

func helper() {
	return
}
`

const headerGo = `package server

// Limit is the most requests served at once.
const Limit = 64
`

const headerGoNew = `package server

// Limit is the most requests served at once.
const Limit = 128

// Burst is how many may wait.
const Burst = 16
`

func repo(t *testing.T) (*workspace.Root, string) {
	return gitRepo(t,
		map[string]string{"server.go": serverGo, "limits.go": headerGo, "README.md": "# The request server, with limits\n"},
		map[string]string{"server.go": serverGoNew, "limits.go": headerGoNew})
}

func TestAnchorTiers(t *testing.T) {
	root, _ := repo(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		req      Request
		anchored bool
		tier     string
		path     string
		start    int
		end      int
		moved    string
		cands    int
	}{
		{name: "exact, diff mode",
			req:      Request{Path: "server.go", Snippet: "\tif r.Method == http.MethodHead {\n\t\treturn\n\t}", Base: "HEAD"},
			anchored: true, tier: TierSameFile, path: "server.go", start: 11, end: 13},
		{name: "re-indented with trailing spaces and diff markers left in",
			req:      Request{Path: "server.go", Snippet: "\n+  if r.Method == http.MethodHead {   \n+      return\n+  }\n\n", Base: "HEAD"},
			anchored: true, tier: TierSameFile, path: "server.go", start: 11, end: 13},
		{name: "context lines of the hunk count",
			req:      Request{Path: "server.go", Snippet: "http.Error(w, \"method not allowed\", http.StatusMethodNotAllowed)\nreturn", Base: "HEAD"},
			anchored: true, tier: TierSameFile, path: "server.go", start: 8, end: 9},
		{name: "a line paraphrased does not anchor",
			req:  Request{Path: "server.go", Snippet: "if r.Method == \"HEAD\" {\n\treturn\n}", Base: "HEAD"},
			path: ""},
		{name: "a removed line is not on the new side",
			req:  Request{Path: "server.go", Snippet: "-\tif r.Method != http.MethodGet {", Base: "HEAD"},
			path: ""},
		{name: "duplicate block: unplaced with candidates",
			req:   Request{Path: "server.go", Snippet: "return\n}", Base: "HEAD"},
			cands: 3},
		{name: "quoted from another file of the diff: moved",
			req:      Request{Path: "server.go", Snippet: "// Burst is how many may wait.\nconst Burst = 16", Base: "HEAD"},
			anchored: true, tier: TierOtherFile, path: "limits.go", start: 6, end: 7, moved: "server.go"},
		{name: "working tree: the whole file, not only the diff",
			req:      Request{Path: "server.go", Snippet: "// Handler serves the API."},
			anchored: true, tier: TierSameFile, path: "server.go", start: 5, end: 5},
		{name: "working tree: from another file of the workspace",
			req:      Request{Path: "limits.go", Snippet: "# The request server, with limits"},
			anchored: true, tier: TierOtherFile, path: "README.md", start: 1, end: 1, moved: "limits.go"},
		{name: "too short to move files for",
			req:  Request{Path: "limits.go", Snippet: "return\n}"},
			path: ""},
		{name: "diff mode: lines outside every hunk are not in the diff",
			req:  Request{Path: "server.go", Snippet: "import \"net/http\"", Base: "HEAD"},
			path: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Anchor(ctx, root, tc.req, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Anchored != tc.anchored || r.Tier != tc.tier || r.Path != tc.path || r.StartLine != tc.start || r.EndLine != tc.end || r.MovedFrom != tc.moved || len(r.Candidates) != tc.cands {
				t.Fatalf("got %+v", r)
			}
			if r.Snippet != tc.req.Snippet {
				t.Errorf("the snippet changed: %q", r.Snippet)
			}
			if tc.anchored && len(r.Lines) != tc.end-tc.start+1 {
				t.Errorf("lines: %q", r.Lines)
			}
			if !tc.anchored && r.Reason == "" {
				t.Error("unplaced without a reason")
			}
		})
	}
}

// The verbatim lines are the file's, with its own indentation.
func TestAnchorVerbatimLines(t *testing.T) {
	root, _ := repo(t)
	r, err := Anchor(context.Background(), root, Request{Path: "server.go", Snippet: "if r.Method == http.MethodHead {\nreturn", Base: "HEAD"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Lines, "\n") != "\tif r.Method == http.MethodHead {\n\t\treturn" {
		t.Errorf("lines: %q", r.Lines)
	}
}

// A diff given as text works like one from git, and mistakes are errors
// that say what to do.
func TestAnchorDiffTextAndErrors(t *testing.T) {
	root, dir := repo(t)
	out, err := exec.Command("git", "-C", dir, "diff", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Anchor(context.Background(), root, Request{Path: "limits.go", Snippet: "const Limit = 128", DiffText: string(out)}, Options{})
	if err != nil || !r.Anchored || r.StartLine != 4 || r.Mode != "diff" {
		t.Fatalf("%+v %v", r, err)
	}
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{Path: "server.go", Snippet: " \n\n"}, "snippet is empty"},
		{Request{Path: "../etc/passwd", Snippet: "x"}, "outside"},
		{Request{Path: "server.go", Snippet: "x", Base: "no-such-branch"}, "no-such-branch"},
		{Request{Path: "server.go", Snippet: "x", Base: "--output=/tmp/x"}, "not a revision"},
		{Request{Path: "", Snippet: "x"}, "path is empty"},
	} {
		if _, err := Anchor(context.Background(), root, tc.req, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.req, err, tc.want)
		}
	}
}

// A file renamed in the diff: a quote filed on its old name moves to the
// new one; lines that moved within a file are found where they are now.
func TestAnchorRenamedFileAndMovedLines(t *testing.T) {
	root, dir := gitRepo(t, map[string]string{"old_name.go": serverGo}, nil)
	if out, err := exec.Command("git", "-C", dir, "mv", "old_name.go", "new_name.go").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The body's first statement moves below the write.
	moved := strings.Replace(serverGo, "\tw.Write([]byte(\"ok\"))\n", "", 1)
	moved = strings.Replace(moved, "// Handler serves the API.\nfunc Handler(w http.ResponseWriter, r *http.Request) {\n", "// Handler serves the API.\nfunc Handler(w http.ResponseWriter, r *http.Request) {\n\tw.Write([]byte(\"ok\"))\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "new_name.go"), []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Anchor(context.Background(), root, Request{Path: "old_name.go", Snippet: "w.Write([]byte(\"ok\"))", Base: "HEAD"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Anchored || r.Tier != TierOtherFile || r.Path != "new_name.go" || r.StartLine != 7 || r.MovedFrom != "old_name.go" {
		t.Fatalf("%+v", r)
	}
}
