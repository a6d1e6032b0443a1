package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/bench/corpus"
)

// The change commit 2 makes: a statement at the top of the function's
// body, indented as the body is, and nothing else.
func TestChangeFunc(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, src, opening, want string }{
		{"a.go", "package a\n\nfunc F(s string,\n\tt int) int {\n\n\treturn 1\n}\n", "func F(",
			"package a\n\nfunc F(s string,\n\tt int) int {\n\t_ = len(\"a changed line\")\n\n\treturn 1\n}\n"},
		{"b.py", "class C:\n    def m(self):\n        \"\"\"Doc.\"\"\"\n        return 1\n", "    def m(",
			"class C:\n    def m(self):\n        _changed = len(\"a changed line\")\n        \"\"\"Doc.\"\"\"\n        return 1\n"},
	} {
		p := filepath.Join(dir, c.file)
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		ok, err := changeFunc(p, c.opening)
		if err != nil || !ok {
			t.Fatalf("%s: changeFunc = %v, %v; want true, nil", c.file, ok, err)
		}
		got, _ := os.ReadFile(p)
		if string(got) != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.file, got, c.want)
		}
		if ok, err := changeFunc(p, "func Missing("); ok || err != nil {
			t.Errorf("%s: a missing function: %v, %v; want false, nil", c.file, ok, err)
		}
	}
	if ok, err := changeFunc(filepath.Join(dir, "none.go"), "func F("); ok || err != nil {
		t.Errorf("a missing file: %v, %v; want false, nil", ok, err)
	}
}

func TestDiffer(t *testing.T) {
	a := []byte("{\n  \"path\": \"x.go\",\n  \"line\": 3\n}\n")
	if d := differ(a, a); d != "" {
		t.Errorf("equal answers differ: %s", d)
	}
	b := []byte("{\n  \"path\": \"x.go\",\n  \"line\": 4\n}\n")
	if d := differ(a, b); !strings.Contains(d, "line 3, column 11:") {
		t.Errorf("differ = %q; want the third line and the column of 4 named", d)
	}
	if d := differ(a, a[:len(a)-3]); d == "" {
		t.Error("a truncated answer compares equal")
	}
	got := normalize([]byte(`{"root": "/tmp/x/runner-a", "p": "/tmp/x/runner-a/f.go"}`), "/tmp/x/runner-a")
	if string(got) != `{"root": "<checkout>", "p": "<checkout>/f.go"}` {
		t.Errorf("normalize = %s", got)
	}
	ds := differAnswers("B vs A", answers{"F": a, "G": a}, answers{"F": a, "G": b})
	if len(ds) != 1 || !strings.Contains(ds[0], "callers of G differ") {
		t.Errorf("differAnswers = %q; want G's difference only", ds)
	}
	if m := corpus.Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median = %v; want 2", m)
	}
}
