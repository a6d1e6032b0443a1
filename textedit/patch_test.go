package textedit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
)

// patchRoot is a workspace holding real files: strings/builder.go from
// GOROOT and colorsys.py from Python's stdlib.
func patchRoot(t *testing.T) (*workspace.Root, map[string]string) {
	t.Helper()
	root := newRoot(t)
	files := map[string]string{
		"go/builder.go":  readGo(t, "strings/builder.go"),
		"py/colorsys.py": readPy(t, "colorsys.py"),
		"go/cut.go":      readGo(t, "strings/strings.go"),
	}
	for rel, text := range files {
		writeFile(t, root, rel, text)
	}
	return root, files
}

func writeFile(t *testing.T, root *workspace.Root, rel, text string) {
	t.Helper()
	p := filepath.Join(root.Dir(), rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readRel(t *testing.T, root *workspace.Root, rel string) string {
	t.Helper()
	return string(mustRead(t, filepath.Join(root.Dir(), rel)))
}

func exists(root *workspace.Root, rel string) bool {
	_, err := os.Stat(filepath.Join(root.Dir(), rel))
	return err == nil
}

func TestPatchAddDeleteUpdateMove(t *testing.T) {
	root, files := patchRoot(t)
	writeFile(t, root, "old/notes.txt", "to be deleted\n")
	patch := `*** Begin Patch
*** Add File: go/doc.txt
+Builder notes.
+
+Second paragraph.
*** Delete File: old/notes.txt
*** Update File: go/builder.go
@@ func (b *Builder) Reset() {
 	b.addr = nil
-	b.buf = nil
+	b.buf = b.buf[:0]
 }
@@ func (b *Builder) WriteString(s string) (int, error) {
 	b.copyCheck()
-	b.buf = append(b.buf, s...)
+	b.buf = append(b.buf, s...) // amortized
 	return len(s), nil
*** Update File: py/colorsys.py
*** Move to: py/colors.py
@@ def hls_to_rgb(h, l, s):
     if s == 0.0:
-        return l, l, l
+        return (l, l, l)
*** End Patch`
	res, err := NewFiles(root).ApplyPatch(t.Context(), patch, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := readRel(t, root, "go/doc.txt"); got != "Builder notes.\n\nSecond paragraph.\n" {
		t.Errorf("added file = %q", got)
	}
	if exists(root, "old/notes.txt") {
		t.Error("deleted file still there")
	}
	want := strings.Replace(files["go/builder.go"], "\tb.addr = nil\n\tb.buf = nil\n", "\tb.addr = nil\n\tb.buf = b.buf[:0]\n", 1)
	want = strings.Replace(want, "\tb.buf = append(b.buf, s...)\n\treturn len(s), nil", "\tb.buf = append(b.buf, s...) // amortized\n\treturn len(s), nil", 1)
	if got := readRel(t, root, "go/builder.go"); got != want {
		t.Error("updated file is not the two hunks applied")
	}
	if exists(root, "py/colorsys.py") {
		t.Error("moved file still at its old path")
	}
	if got := readRel(t, root, "py/colors.py"); got != strings.Replace(files["py/colorsys.py"], "        return l, l, l\n", "        return (l, l, l)\n", 1) {
		t.Error("moved file is not the update applied")
	}
	text := res.Text()
	for _, s := range []string{"A go/doc.txt (3 lines)", "D old/notes.txt", "M go/builder.go (+2 -2)", "R py/colorsys.py -> py/colors.py (+1 -1)"} {
		if !strings.Contains(text, s) {
			t.Errorf("result lacks %q:\n%s", s, text)
		}
	}
}

// Hunks apply in order, each sought after the previous one; an @@ line
// picks which of two equal runs of lines is meant.
func TestPatchContextAnchorsAndOrder(t *testing.T) {
	root, files := patchRoot(t)
	orig := files["py/colorsys.py"]
	runs := "    rc = (maxc-r) / rangec\n    gc = (maxc-g) / rangec\n    bc = (maxc-b) / rangec\n"
	if strings.Count(orig, runs) != 2 {
		t.Fatal("premise: colorsys.py has the rc/gc/bc lines in rgb_to_hls and rgb_to_hsv")
	}
	patch := `*** Begin Patch
*** Update File: py/colorsys.py
@@ def rgb_to_hsv(r, g, b):
     rc = (maxc-r) / rangec
-    gc = (maxc-g) / rangec
+    gc = (maxc-g) / rangec  # green
     bc = (maxc-b) / rangec
@@
     if i == 5:
-        return v, p, q
+        return (v, p, q)
*** End Patch`
	if _, err := NewFiles(root).ApplyPatch(t.Context(), patch, nil, nil); err != nil {
		t.Fatal(err)
	}
	hsv := strings.Index(orig, "def rgb_to_hsv")
	want := orig[:hsv] + strings.Replace(orig[hsv:], "    gc = (maxc-g) / rangec\n", "    gc = (maxc-g) / rangec  # green\n", 1)
	want = strings.Replace(want, "        return v, p, q\n", "        return (v, p, q)\n", 1)
	if got := readRel(t, root, "py/colorsys.py"); got != want {
		t.Fatalf("anchored hunk did not land in rgb_to_hsv:\n%s", firstDiff(want, got))
	}
	// Without the anchor, the first run (rgb_to_hls) is taken.
	writeFile(t, root, "py/colorsys.py", orig)
	if _, err := NewFiles(root).ApplyPatch(t.Context(), strings.Replace(patch, "@@ def rgb_to_hsv(r, g, b):", "@@", 1), nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := readRel(t, root, "py/colorsys.py"); !strings.Contains(got[:hsv], "# green") {
		t.Error("unanchored hunk did not take the first run")
	}
	// Hunks out of order do not fit: the second is sought after the first.
	writeFile(t, root, "py/colorsys.py", orig)
	swapped := `*** Begin Patch
*** Update File: py/colorsys.py
@@ def hsv_to_rgb(h, s, v):
-    i = i%6
+    i %= 6
@@ def rgb_to_hls(r, g, b):
-    l = sumc/2.0
+    l = sumc / 2.0
*** End Patch`
	_, err := NewFiles(root).ApplyPatch(t.Context(), swapped, nil, nil)
	if !errors.Is(err, ErrPatchDoesNotFit) || !strings.Contains(err.Error(), "def rgb_to_hls(r, g, b):") {
		t.Fatalf("out-of-order hunks: %v", err)
	}
	if readRel(t, root, "py/colorsys.py") != orig {
		t.Error("a patch that did not fit changed the file")
	}
}

func TestPatchEndOfFile(t *testing.T) {
	root, files := patchRoot(t)
	orig := files["go/builder.go"]
	// "\treturn len(s), nil\n}" ends WriteString, the last function, and
	// no other; "}" alone is everywhere: End of File says which.
	patch := `*** Begin Patch
*** Update File: go/builder.go
@@
 	return len(s), nil
 }
+
+// Done reports nothing.
+func (b *Builder) Done() {}
*** End of File
*** End Patch`
	if _, err := NewFiles(root).ApplyPatch(t.Context(), patch, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := readRel(t, root, "go/builder.go"); got != orig+"\n// Done reports nothing.\nfunc (b *Builder) Done() {}\n" {
		t.Errorf("End of File hunk: file ends %q", got[len(got)-80:])
	}
	// Lines that are not at the end do not fit an End of File hunk.
	writeFile(t, root, "go/builder.go", orig)
	_, err := NewFiles(root).ApplyPatch(t.Context(), "*** Begin Patch\n*** Update File: go/builder.go\n@@\n-func (b *Builder) Reset() {\n+func (b *Builder) Clear() {\n*** End of File\n*** End Patch", nil, nil)
	if !errors.Is(err, ErrPatchDoesNotFit) || !strings.Contains(err.Error(), "at the end of the file") {
		t.Errorf("End of File mismatch: %v", err)
	}
}

// Context and removed lines are found with blanks forgiven; added lines
// then take the file's indentation.
func TestPatchTolerantContext(t *testing.T) {
	root, files := patchRoot(t)
	orig := files["go/builder.go"]
	// Trailing blanks on context lines, and spaces for the file's tabs.
	patch := "*** Begin Patch\n*** Update File: go/builder.go\n@@ func (b *Builder) Reset() {\n     b.addr = nil   \n-    b.buf = nil\n+    b.buf = nil // drop\n+    if b.buf == nil {\n+        b.addr = nil\n+    }\n }\n*** End Patch"
	if _, err := NewFiles(root).ApplyPatch(t.Context(), patch, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(orig, "\tb.addr = nil\n\tb.buf = nil\n}", "\tb.addr = nil\n\tb.buf = nil // drop\n\tif b.buf == nil {\n\t\tb.addr = nil\n\t}\n}", 1)
	if got := readRel(t, root, "go/builder.go"); got != want {
		t.Fatalf("tolerant hunk:\n%s", firstDiff(want, got))
	}
}

// Every file is checked before any is written: a hunk that does not fit
// in the third file leaves the first two as they were, byte for byte.
func TestPatchAllOrNothing(t *testing.T) {
	root, files := patchRoot(t)
	writeFile(t, root, "gone.txt", "x\n")
	patch := `*** Begin Patch
*** Update File: go/builder.go
@@ func (b *Builder) Reset() {
-	b.buf = nil
+	b.buf = b.buf[:0]
*** Delete File: gone.txt
*** Update File: py/colorsys.py
@@ def hsv_to_rgb(h, s, v):
     if s == 0.0:
-        return v, v, v, v
+        return (v, v, v)
*** Add File: new.txt
+new
*** End Patch`
	_, err := NewFiles(root).ApplyPatch(t.Context(), patch, nil, nil)
	if !errors.Is(err, ErrPatchDoesNotFit) {
		t.Fatalf("err = %v", err)
	}
	msg := err.Error()
	// The error names the file and hunk, quotes the lines that did not
	// fit, and says what to do.
	for _, s := range []string{"py/colorsys.py", "hunk 1", "patch line 8", "     if s == 0.0:", "-        return v, v, v, v", "were not found after py/colorsys.py:", "Read the file again", "nothing was changed"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error lacks %q:\n%s", s, msg)
		}
	}
	if readRel(t, root, "go/builder.go") != files["go/builder.go"] || readRel(t, root, "py/colorsys.py") != files["py/colorsys.py"] {
		t.Error("a file changed although the patch failed")
	}
	if !exists(root, "gone.txt") || exists(root, "new.txt") {
		t.Error("a delete or add happened although the patch failed")
	}
}

func TestPatchPathsOutsideRootRefused(t *testing.T) {
	root, files := patchRoot(t)
	outside := filepath.Join(filepath.Dir(root.Dir()), "outside.txt")
	for _, p := range []string{
		"*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch",
		"*** Begin Patch\n*** Add File: " + outside + "\n+x\n*** End Patch",
		"*** Begin Patch\n*** Delete File: ../../etc/passwd\n*** End Patch",
		"*** Begin Patch\n*** Update File: go/builder.go\n*** Move to: ../moved.go\n@@\n-func (b *Builder) Reset() {\n+func (b *Builder) Clear() {\n*** End Patch",
		"*** Begin Patch\n*** Update File: go/builder.go\n@@\n-func (b *Builder) Reset() {\n+func (b *Builder) Clear() {\n*** Add File: ../x.txt\n+x\n*** End Patch",
	} {
		_, err := NewFiles(root).ApplyPatch(t.Context(), p, nil, nil)
		if !errors.Is(err, workspace.ErrOutsideRoot) || !strings.Contains(err.Error(), root.Dir()) {
			t.Errorf("%q: err = %v, want outside-root naming the root", p, err)
		}
	}
	if readRel(t, root, "go/builder.go") != files["go/builder.go"] {
		t.Error("a refused patch changed a file inside the root")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("a file was created outside the root")
	}
}

func TestPatchAddOntoExistingRefused(t *testing.T) {
	root, files := patchRoot(t)
	_, err := NewFiles(root).ApplyPatch(t.Context(), "*** Begin Patch\n*** Add File: go/builder.go\n+package strings\n*** End Patch", nil, nil)
	if !errors.Is(err, ErrPatchDoesNotFit) || !strings.Contains(err.Error(), "already exists") || !strings.Contains(err.Error(), "Update File") {
		t.Fatalf("err = %v", err)
	}
	if readRel(t, root, "go/builder.go") != files["go/builder.go"] {
		t.Error("file overwritten")
	}
	// A move onto an existing file is refused too.
	_, err = NewFiles(root).ApplyPatch(t.Context(), "*** Begin Patch\n*** Update File: go/builder.go\n*** Move to: go/cut.go\n*** End Patch", nil, nil)
	if !errors.Is(err, ErrPatchDoesNotFit) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("move onto existing: %v", err)
	}
	// Update and Delete of a missing file say to Add it.
	_, err = NewFiles(root).ApplyPatch(t.Context(), "*** Begin Patch\n*** Update File: nope.go\n@@\n-x\n+y\n*** End Patch", nil, nil)
	if !errors.Is(err, ErrPatchDoesNotFit) || !strings.Contains(err.Error(), "Add File") {
		t.Errorf("update of missing file: %v", err)
	}
}

func TestPatchKeepsCRLFBOMAndMode(t *testing.T) {
	root, files := patchRoot(t)
	crlf := "\uFEFF" + strings.ReplaceAll(files["py/colorsys.py"], "\n", "\r\n")
	writeFile(t, root, "py/colorsys.py", crlf)
	os.Chmod(filepath.Join(root.Dir(), "py/colorsys.py"), 0o755)
	patch := "*** Begin Patch\r\n*** Update File: py/colorsys.py\r\n*** Move to: py/colors2.py\r\n@@ def hls_to_rgb(h, l, s):\r\n     if s == 0.0:\r\n-        return l, l, l\r\n+        return (l, l, l)\r\n*** End Patch\r\n"
	if _, err := NewFiles(root).ApplyPatch(t.Context(), patch, nil, nil); err != nil {
		t.Fatal(err)
	}
	got := readRel(t, root, "py/colors2.py")
	want := strings.Replace(crlf, "        return l, l, l\r\n", "        return (l, l, l)\r\n", 1)
	if got != want {
		t.Fatalf("CRLF/BOM file after patch:\n%s", firstDiff(want, got))
	}
	if st, _ := os.Stat(filepath.Join(root.Dir(), "py/colors2.py")); st.Mode().Perm() != 0o755 {
		t.Errorf("moved file mode = %v, want 0755", st.Mode().Perm())
	}
}

// Models wrap patches in heredocs and prose, and put blank lines between
// sections.
func TestPatchWrappedInHeredocAndProse(t *testing.T) {
	root, files := patchRoot(t)
	patch := `Here is the change you asked for:

apply_patch <<'EOF'
*** Begin Patch
*** Update File: go/builder.go
@@ func (b *Builder) Reset() {
 	b.addr = nil
-	b.buf = nil
+	b.buf = b.buf[:0]

*** Add File: empty.txt

*** Add File: notes.md
+# Notes

*** End Patch
EOF

Let me know if you want more.`
	if _, err := NewFiles(root).ApplyPatch(t.Context(), patch, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := readRel(t, root, "go/builder.go"); got != strings.Replace(files["go/builder.go"], "\tb.buf = nil\n}", "\tb.buf = b.buf[:0]\n}", 1) {
		t.Error("wrapped patch not applied")
	}
	if got := readRel(t, root, "empty.txt"); got != "" {
		t.Errorf("empty added file = %q, want empty", got)
	}
	if got := readRel(t, root, "notes.md"); got != "# Notes\n" {
		t.Errorf("added file = %q", got)
	}
}

func TestPatchSameFileTwiceRefused(t *testing.T) {
	root, _ := patchRoot(t)
	for _, p := range []string{
		"*** Begin Patch\n*** Delete File: go/builder.go\n*** Delete File: go/builder.go\n*** End Patch",
		"*** Begin Patch\n*** Delete File: go/builder.go\n*** Delete File: go/../go/builder.go\n*** End Patch",
	} {
		if _, err := NewFiles(root).ApplyPatch(t.Context(), p, nil, nil); !errors.Is(err, ErrPatchSyntax) || !strings.Contains(err.Error(), "one section") {
			t.Errorf("%q: %v", p, err)
		}
	}
	if !exists(root, "go/builder.go") {
		t.Error("file deleted")
	}
}

func TestPatchStaleFileRefused(t *testing.T) {
	root, files := patchRoot(t)
	var seen Seen
	seen.Saw("go/builder.go", []byte("what it was before"))
	_, err := NewFiles(root).ApplyPatch(t.Context(), "*** Begin Patch\n*** Update File: go/builder.go\n@@\n-func (b *Builder) Reset() {\n+func (b *Builder) Clear() {\n*** End Patch", &seen, nil)
	if !errors.Is(err, ErrStale) {
		t.Fatalf("err = %v", err)
	}
	if readRel(t, root, "go/builder.go") != files["go/builder.go"] {
		t.Error("stale patch applied")
	}
}

func TestParsePatchErrors(t *testing.T) {
	for _, c := range []struct{ patch, want string }{
		{"*** Update File: a\n@@\n-x\n+y\n*** End Patch", `start with "*** Begin Patch"`},
		{"*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n", `end with "*** End Patch"`},
		{"*** Begin Patch\n*** End Patch", "changes no file"},
		{"*** Begin Patch\n*** Frobnicate File: a\n*** End Patch", "line 2: expected"},
		{"*** Begin Patch\n*** Update File: a\n@@\n-x\n~y\n*** End Patch", "line 5: a hunk line starts with"},
		{"*** Begin Patch\n*** Update File: a\n*** End Patch", "a has no hunks"},
		{"*** Begin Patch\n*** Update File: a\n@@\n*** End Patch", "empty hunk"},
		{"*** Begin Patch\n*** Add File: b\n+x\ny\n*** End Patch", "starts with '+'"},
		{"*** Begin Patch\n*** Add File:   \n+x\n*** End Patch", "needs a path"},
		{"*** Begin Patch\n*** Update File: a\n*** Move to: \n@@\n-x\n*** End Patch", "needs a path"},
		{"*** Begin Patch\n*** Delete File: a\n*** Update File: a\n@@\n-x\n*** End Patch", "touched again (first at line 2)"},
	} {
		_, err := ParsePatch(c.patch)
		if !errors.Is(err, ErrPatchSyntax) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n err = %v\nwant %q", c.patch, err, c.want)
		}
	}
}

func TestParsePatchStructure(t *testing.T) {
	ops, err := ParsePatch("*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n -ctx\n-old\n+new\n@@ func f() {\n \n+x\n*** End of File\n*** Delete File: c.go\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].Kind != OpUpdate || ops[0].Path != "a.go" || ops[0].MoveTo != "b.go" || ops[1].Kind != OpDelete || ops[1].Path != "c.go" {
		t.Fatalf("ops = %+v", ops)
	}
	h := ops[0].Hunks
	if len(h) != 2 || h[0].Context != "" || len(h[0].Lines) != 3 || h[0].Lines[0] != (HunkLine{' ', "-ctx"}) ||
		h[1].Context != "func f() {" || !h[1].AtEOF || h[1].Lines[0] != (HunkLine{' ', ""}) {
		t.Fatalf("hunks = %+v", h)
	}
}

// A patch that fails part way leaves nothing behind: not the files it had
// written, nor the directories it made for them; a read-only file is
// refused in words.
func TestPatchRollbackRemovesDirectoriesItMade(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro.txt")
	if err := os.WriteFile(ro, []byte("keep\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	patch := "*** Begin Patch\n*** Add File: sub/deep/er/x.txt\n+new\n*** Update File: ro.txt\n@@\n-keep\n+changed\n*** End Patch"
	_, err = NewFiles(root).ApplyPatch(t.Context(), patch, nil, nil)
	if !errors.Is(err, workspace.ErrReadOnly) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err = %v, want a read-only refusal saying nothing was changed", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("sub/ was left behind after the rollback (%v)", err)
	}
	if got, _ := os.ReadFile(ro); string(got) != "keep\n" {
		t.Errorf("ro.txt holds %q", got)
	}
}

// A path that ends in a slash names a directory: write, edit and patch
// refuse it instead of creating a file of that name.
func TestTrailingSlashIsRefused(t *testing.T) {
	dir := t.TempDir()
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f := NewFiles(root)
	errs := map[string]error{}
	_, errs["write"] = f.Write(t.Context(), "newdir/", "x\n", WriteOptions{}, nil)
	_, errs["edit"] = f.Edit(t.Context(), "newdir/", Change{Old: "a", New: "b"}, nil)
	_, errs["apply_patch"] = f.ApplyPatch(t.Context(), "*** Begin Patch\n*** Add File: newdir/\n+x\n*** End Patch", nil, nil)
	for tool, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "ends in a slash") {
			t.Errorf("%s: err = %v, want a refusal of the trailing slash", tool, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "newdir")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("newdir was created (%v)", err)
	}
}
