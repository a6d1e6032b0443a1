package textedit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
)

const numberedBody = "package a\n\nfunc f() {\n\tx := 1\n\ty := 2\n\treturn\n}\n\nfunc g() {\n\ty := 2\n}\n"

// Lines copied from read output with their numbers ("4\t\tx := 1") are
// found without them, and new_string loses the numbers it copied too; its
// own new lines keep their text.
func TestNumberedOldString(t *testing.T) {
	for _, c := range []struct {
		name, old, new, want string
	}{
		{
			name: "read output",
			old:  "4\t\tx := 1\n5\t\ty := 2\n",
			new:  "4\t\tx := 1\n\tz := 3\n5\t\ty := 2\n",
			want: strings.Replace(numberedBody, "\ty := 2\n\treturn", "\tz := 3\n\ty := 2\n\treturn", 1),
		},
		{
			name: "the older padded numbers",
			old:  "     4\t\tx := 1\n     5\t\ty := 2",
			new:  "     4\t\tx := 10\n     5\t\ty := 2",
			want: strings.Replace(numberedBody, "x := 1\n", "x := 10\n", 1),
		},
		{
			name: "a blank line whose tab was trimmed",
			old:  "7\t}\n8\n9\tfunc g() {",
			new:  "7\t}\n8\n9\tfunc h() {",
			want: strings.Replace(numberedBody, "func g()", "func h()", 1),
		},
		{
			name: "numbers from before an edit that moved the lines",
			old:  "40\t\tx := 1\n41\t\ty := 2",
			new:  "40\t\tx := 1\n41\t\ty := 3",
			want: strings.Replace(numberedBody, "x := 1\n\ty := 2", "x := 1\n\ty := 3", 1),
		},
		{
			name: "numbered and misremembered: the tolerant chain still applies",
			old:  "3\tfunc f() {\n4\t    x := 1\n5\t    y := 2\n6\t    return\n7\t}",
			new:  "3\tfunc f() {\n4\t    x := 1\n5\t    y := 2\n6\t    return x\n7\t}",
			want: strings.Replace(numberedBody, "\treturn\n", "\treturn x\n", 1),
		},
	} {
		if got := apply(t, numberedBody, Change{Old: c.old, New: c.new}); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// The prefixes are dropped only when the model plainly copied numbered
// lines; otherwise, and where the text without numbers would land in the
// wrong place, the edit is refused.
func TestNumberedOldStringRefused(t *testing.T) {
	for _, c := range []struct {
		name, body, old string
		kind            error
	}{
		{"numbers not consecutive", numberedBody, "4\t\tx := 1\n6\t\treturn", ErrNotFound},
		{"one line without a number", numberedBody, "4\t\tx := 1\n\ty := 2", ErrNotFound},
		{"numbers only, no tab", numberedBody, "4\n5", ErrNotFound},
		// "y := 2" is in two places: the numbers do not pick one.
		{"ambiguous without the numbers", numberedBody, "5\t\ty := 2", ErrAmbiguous},
		// The text without its number is inside another line: a model
		// copies whole lines, so that is not the place.
		{"would land inside a line", "total := 12\n", "1\t12", ErrNotFound},
		{"the same once the numbers are dropped", numberedBody, "4\t\tx := 1", ErrNoChange},
	} {
		nw := "X"
		if c.kind == ErrNoChange {
			nw = "\tx := 1"
		}
		_, err := Apply([]byte(c.body), "a.go", Change{Old: c.old, New: nw})
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.kind)
		}
	}
	// Numbered lines that are not consecutive are not stripped, but the
	// error says what to leave out.
	if _, err := Apply([]byte(numberedBody), "a.go", Change{Old: "4\t\tx := 1\n6\t\treturn", New: "X"}); err == nil || !strings.Contains(err.Error(), "without the line numbers read puts before them") {
		t.Errorf("numbers not consecutive: %v", err)
	}
	// A file whose text really is numbered lines is edited as text: the
	// exact match comes first and new_string keeps its numbers.
	tsv := "id\tname\n1\talpha\n2\tbeta\n"
	if got := apply(t, tsv, Change{Old: "1\talpha\n2\tbeta", New: "1\talpha\n2\tgamma"}); got != "id\tname\n1\talpha\n2\tgamma\n" {
		t.Errorf("numbered data file: %q", got)
	}
	// A numbered old_string not found is reported without its numbers,
	// pointing at the nearest text.
	_, err := Apply([]byte(numberedBody), "a.go", Change{Old: "3\tfunc ff() {\n4\t\tx := 1\n5\t\ty := 2\n6\t\treturn 0", New: "X"})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "The closest text is at a.go:3-6 (read path=a.go offset=3 limit=4)") {
		t.Errorf("not found: %v", err)
	}
}

func TestStripLineNumbers(t *testing.T) {
	for in, want := range map[string]string{
		"12\tfoo\n13\tbar":      "foo\nbar",
		"12\tfoo\n13\tbar\n":    "foo\nbar\n",
		"  9\t\ta\n 10\t\tb":    "\ta\n\tb",
		"1\t":                   "",
		"5\tx\n6\n7\ty":         "x\n\ny",
		"12\tfoo\n14\tbar":      "",
		"0\tfoo":                "",
		"12 foo":                "",
		"12":                    "",
		"x12\tfoo":              "",
		"1234567890123\tfoo":    "",
		"12\tfoo\n13\tbar\n14x": "",
	} {
		got, _, ok := stripLineNumbers(in)
		if ok != (want != "" || in == "1\t") || got != want {
			t.Errorf("stripLineNumbers(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// An edit's answer writes its place as path:START-END and lists the lines
// around it as "N\ttext", unpadded.
func TestEditResultText(t *testing.T) {
	dir := t.TempDir()
	body := "a\nb\nc\nd\ne\nf\ng\nh\n"
	if err := os.WriteFile(filepath.Join(dir, "x.txt"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := NewFiles(root)
	res, err := files.Edit(t.Context(), "x.txt", Change{Old: "d\ne\n", New: "D\nE\nE2\n"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "Edited x.txt:4-6\n1\ta\n2\tb\n3\tc\n4\tD\n5\tE\n6\tE2\n7\tf\n8\tg\n9\th\n"
	if got := res.Text(); got != want {
		t.Errorf("edit text:\n got %q\nwant %q", got, want)
	}
	res, err = files.Edit(t.Context(), "x.txt", Change{Old: "b\n", New: ""}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); !strings.HasPrefix(got, "Edited x.txt:2 (deleted text)\n1\ta\n2\tc\n") {
		t.Errorf("deletion text: %q", got)
	}
	res, err = files.Edit(t.Context(), "x.txt", Change{Old: "E", New: "e", ReplaceAll: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); !strings.HasPrefix(got, "Edited x.txt:4 (2 places; first shown)\n1\ta\n") {
		t.Errorf("replace_all text: %q", got)
	}
}

// A new line that starts with a number and a tab outside the numbers
// old_string was copied with (a row of a TSV file) keeps its number.
func TestNumberedNewLinesKeepOtherNumbers(t *testing.T) {
	body := "id\tname\n1\tapple\n2\tpear\n"
	// Copied from read: lines 2-3 of the file, each "N\t" + the line.
	old := "2\t1\tapple\n3\t2\tpear"
	repl := "2\t1\tapple\n3\t2\tpear\n900\tplum"
	a, err := Apply([]byte(body), "fruit.tsv", Change{Old: old, New: repl})
	if err != nil {
		t.Fatal(err)
	}
	if want := "id\tname\n1\tapple\n2\tpear\n900\tplum\n"; string(a.Data) != want {
		t.Errorf("got %q, want %q", a.Data, want)
	}
}
