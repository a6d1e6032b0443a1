package textedit

import (
	"bytes"
	"context"
	"testing"

	"cchub/workspace"
)

// Every change says what it wrote: each file's content as the change
// read it under the file's lock (the bytes it was applied to) and as it
// left it on disk, in patch order, so its caller never reads the file
// again for that; a committer is handed the same bytes.
func TestChangesSayWhatTheyWrote(t *testing.T) {
	root, files := patchRoot(t)
	writeFile(t, root, "notes.txt", "one\r\ntwo\r\n")
	writeFile(t, root, "gone.txt", "bye\n")
	f := NewFiles(root)
	check := func(what string, got []workspace.Written, want ...workspace.Written) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d files written, want %d", what, len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if g.Path != w.Path || !bytes.Equal(g.Old, w.Old) || (g.Old == nil) != (w.Old == nil) ||
				!bytes.Equal(g.New, w.New) || (g.New == nil) != (w.New == nil) {
				t.Errorf("%s: file %d = {%s, %.20q, %.20q}, want {%s, %.20q, %.20q}", what, i, g.Path, g.Old, g.New, w.Path, w.Old, w.New)
			}
		}
	}
	disk := func(rel string) []byte { return []byte(readRel(t, root, rel)) }

	e, err := f.Edit(t.Context(), "notes.txt", Change{Old: "two", New: "three"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("edit", e.Written, workspace.Written{Path: "notes.txt", Old: []byte("one\r\ntwo\r\n"), New: disk("notes.txt")})

	before := disk("notes.txt")
	w, err := f.Write(t.Context(), "notes.txt", "", WriteOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("write", w.Written, workspace.Written{Path: "notes.txt", Old: before, New: []byte{}})
	w, err = f.Write(t.Context(), "new.txt", "fresh\n", WriteOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("write a new file", w.Written, workspace.Written{Path: "new.txt", New: []byte("fresh\n")})

	patch := "*** Begin Patch\n*** Update File: go/builder.go\n@@\n-func (b *Builder) Reset() {\n+func (b *Builder) Clear() {\n" +
		"*** Delete File: gone.txt\n*** Update File: py/colorsys.py\n*** Move to: py/moved.py\n*** Add File: empty.txt\n*** End Patch"
	var handed []PlannedFile
	record := func(ctx context.Context, pf []PlannedFile) error {
		handed = pf // writes nothing: the bytes are what is checked
		return nil
	}
	p, err := f.ApplyPatch(t.Context(), patch, nil, record)
	if err != nil {
		t.Fatal(err)
	}
	builder := []byte(files["go/builder.go"])
	newBuilder := bytes.Replace(builder, []byte("func (b *Builder) Reset() {"), []byte("func (b *Builder) Clear() {"), 1)
	colorsys := []byte(files["py/colorsys.py"])
	check("patch", p.Written,
		workspace.Written{Path: "go/builder.go", Old: builder, New: newBuilder},
		workspace.Written{Path: "gone.txt", Old: []byte("bye\n")},
		workspace.Written{Path: "py/colorsys.py", Old: colorsys},
		workspace.Written{Path: "py/moved.py", New: colorsys},
		workspace.Written{Path: "empty.txt", New: []byte{}},
	)
	old := map[string][]byte{}
	for _, pf := range handed {
		old[pf.Path] = pf.Old
	}
	for _, w := range p.Written {
		if !bytes.Equal(old[w.Path], w.Old) {
			t.Errorf("the committer was handed other old bytes of %s than the result carries", w.Path)
		}
	}
	if len(handed) != len(p.Written) {
		t.Errorf("the committer was handed %d files, the result names %d", len(handed), len(p.Written))
	}
}
