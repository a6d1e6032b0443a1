package hub

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/textedit"
)

// diagModule is a module whose six files hold 50 type errors each
// (every message its own), and a package without errors whose printf
// call is a warning.
func diagModule() map[string]string {
	files := map[string]string{
		"go.mod": "module example.com/diag\n\ngo 1.22\n",
		"w/w.go": "package w\n\nimport \"fmt\"\n\nfunc W() string { return fmt.Sprintf(\"%d\", \"not a number\") }\n",
	}
	for f := range 6 {
		var b strings.Builder
		b.WriteString("package diag\n\n")
		for i := range 50 {
			fmt.Fprintf(&b, "var v%d_%d int = \"a string that is not an int, number %d of file %d\"\n", f, i, i, f)
		}
		files[fmt.Sprintf("f%d.go", f)] = b.String()
	}
	return files
}

// The diagnostics answer counts by severity first, lists errors first
// by file within its bound and names the call for the rest; severity
// keeps that severity and worse, and a wrong one teaches the right ones.
func TestDiagnosticsSeverityAndBound(t *testing.T) {
	requireGopls(t)
	dir := writeModule(t, diagModule())
	h, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	// Asked by path: gopls runs its analyzers (printf) on the files it
	// was told.
	paths := []string{"w/w.go"}
	for f := range 6 {
		paths = append(paths, fmt.Sprintf("f%d.go", f))
	}
	all, err := h.DiagnosticsWith(ctx, nil, DiagnosticsOptions{Paths: paths, MaxBytes: 8000})
	if err != nil {
		t.Fatal(err)
	}
	text := all.Text()
	if len(text) > 8000 {
		t.Errorf("the answer is %d bytes", len(text))
	}
	errs, warns := 0, 0
	for _, d := range all.Diagnostics {
		switch d.Severity {
		case "error":
			errs++
		case "warning":
			warns++
		}
	}
	if errs != 300 || warns != 1 {
		t.Fatalf("%d errors, %d warnings; want 300, 1:\n%s", errs, warns, text)
	}
	head := fmt.Sprintf("%d diagnostics: 300 errors, 1 warning", len(all.Diagnostics))
	if !strings.HasPrefix(text, head) || !strings.Contains(text, "in 7 files\n") {
		t.Errorf("the answer does not start with the counts %q:\n%.300s", head, text)
	}
	if !strings.Contains(text, "f0.go: 50 errors\n  3:") || !strings.Contains(text, "diagnostics paths=f") || !strings.Contains(text, "diagnostics severity=error lists errors only") {
		t.Errorf("no file group, or no call for the rest:\n%s", text)
	}
	if i, j := strings.Index(text, " error ["), strings.Index(text, " warning ["); i < 0 || j >= 0 && j < i {
		t.Errorf("errors are not first:\n%.600s", text)
	}

	errOnly, err := h.DiagnosticsWith(ctx, nil, DiagnosticsOptions{Paths: paths, Severity: "error"})
	if err != nil {
		t.Fatal(err)
	}
	if len(errOnly.Diagnostics) != 300 || errOnly.LessSevere != len(all.Diagnostics)-300 || !strings.Contains(errOnly.Text(), "less severe not listed (severity=error)") {
		t.Errorf("severity=error kept %d, left out %d", len(errOnly.Diagnostics), errOnly.LessSevere)
	}
	warnings, err := h.DiagnosticsWith(ctx, nil, DiagnosticsOptions{Paths: paths, Severity: "Warning"})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings.Diagnostics) != 301 {
		t.Errorf("severity=warning kept %d, want 301 (errors and warnings)", len(warnings.Diagnostics))
	}
	if _, err := h.DiagnosticsWith(ctx, nil, DiagnosticsOptions{Severity: "fatal"}); err == nil || !strings.Contains(err.Error(), "use error, warning, info or hint") {
		t.Errorf("an unknown severity: %v", err)
	}
}

// new_only lists what the conversation was not told: all at first, then
// nothing, then only an error that appeared since.
func TestDiagnosticsNewOnly(t *testing.T) {
	requireGopls(t)
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/n\n\ngo 1.22\n",
		"a.go":   "package n\n\nvar a int = \"one\"\n",
		"b.go":   "package n\n\nvar b bool = 2\n",
	})
	h, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	r := NewRun()
	paths := []string{"a.go", "b.go"}
	first, err := h.DiagnosticsWith(ctx, r, DiagnosticsOptions{Paths: paths, NewOnly: true, Severity: "error"})
	if err != nil {
		t.Fatal(err)
	}
	if first.Errors() != 2 {
		t.Fatalf("first new_only call: %s", first.Text())
	}
	again, err := h.DiagnosticsWith(ctx, r, DiagnosticsOptions{Paths: paths, NewOnly: true, Severity: "error"})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Diagnostics) != 0 || again.Told != 2 || !strings.HasPrefix(again.Text(), "no new diagnostics of severity error or worse in the 2 files checked; 2 told before not listed (new_only)\n") {
		t.Errorf("second new_only call:\n%s", again.Text())
	}
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package n\n\nvar a int = \"one\"\n\nvar c string = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := h.DiagnosticsWith(ctx, r, DiagnosticsOptions{Paths: paths, NewOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(third.Diagnostics) != 1 || !strings.Contains(third.Diagnostics[0].Message, "as string value") {
		t.Errorf("after a new error:\n%s", third.Text())
	}
	// What a write of the conversation reported is told: the same
	// ledger, the same keys.
	w, err := h.Write(ctx, "c.go", "package n\n\nvar d float64 = \"x\"\n", textedit.WriteOptions{}, r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.Text(), "1 new error in c.go") {
		t.Fatalf("the write did not report its error:\n%s", w.Text())
	}
	fourth, err := h.DiagnosticsWith(ctx, r, DiagnosticsOptions{Paths: []string{"a.go", "b.go", "c.go"}, NewOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(fourth.Diagnostics) != 0 || fourth.Told != 4 {
		t.Errorf("after the write's news:\n%s", fourth.Text())
	}
	// Another conversation was told nothing.
	other, err := h.DiagnosticsWith(ctx, NewRun(), DiagnosticsOptions{Paths: []string{"a.go", "b.go", "c.go"}, NewOnly: true, Severity: "error"})
	if err != nil {
		t.Fatal(err)
	}
	if other.Errors() != 4 {
		t.Errorf("another run:\n%s", other.Text())
	}
}

// The whole workspace's diagnostics, asked of a fresh gopls, are what
// `gopls check` reports for every file: gopls runs its analyzers only on
// packages with an open file, so the answer opens one file of each
// package first (a package's own tests and its external test package
// included; a file for another platform is not opened, as it would be
// reported as in no package).
func TestWorkspaceDiagnosticsMatchGoplsCheck(t *testing.T) {
	requireGopls(t)
	const bad = "fmt.Sprintf(\"%d\", \"not a number\")"
	files := map[string]string{
		"go.mod":              "module example.com/w\n\ngo 1.22\n",
		"w.go":                "package w\n\nimport \"fmt\"\n\nfunc W() string { return " + bad + " }\n",
		"deep/a/b/b.go":       "package b\n\nimport \"fmt\"\n\nfunc B() string { return " + bad + " }\n",
		"deep/a/b/b2.go":      "package b\n\nfunc B2(x int) int {\n\tx = x\n\treturn x\n}\n",
		"ext/e.go":            "package e\n\nfunc E() int { return 1 }\n",
		"ext/e_test.go":       "package e_test\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestE(t *testing.T) { _ = " + bad + " }\n",
		"win/w_windows.go":    "package win\n\nfunc Win() {}\n",
		"win/w.go":            "package win\n\nimport \"fmt\"\n\nfunc U() string { return " + bad + " }\n",
		"testdata/t/t.go":     "package t\n\nvar T int = \"no\"\n",
		"nested/go.mod":       "module example.com/nested\n\ngo 1.22\n",
		"nested/n.go":         "package n\n\nvar N int = \"another module\"\n",
		"clean/clean.go":      "package clean\n\nfunc C() int { return 2 }\n",
		"clean/clean_test.go": "package clean\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) {}\n",
	}
	dir := writeModule(t, files)
	h, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	res, err := h.Diagnostics(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, d := range res.Diagnostics {
		if d.Severity == "error" || d.Severity == "warning" {
			got[fmt.Sprintf("%s:%d", d.Path, d.Line)] = true
		}
	}
	// The checker, over every Go file of the module.
	var goFiles []string
	for rel := range files {
		if strings.HasSuffix(rel, ".go") && !strings.HasPrefix(rel, "testdata/") && !strings.HasPrefix(rel, "nested/") {
			goFiles = append(goFiles, rel)
		}
	}
	cmd := exec.Command("gopls", append([]string{"check"}, goFiles...)...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput() // it exits non-zero when it reports
	want := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		rel, rest, ok := strings.Cut(strings.TrimPrefix(line, dir+"/"), ":")
		if !ok || !strings.HasSuffix(rel, ".go") {
			continue
		}
		n, _, _ := strings.Cut(rest, ":")
		want[rel+":"+n] = true
	}
	if len(want) != 5 {
		t.Fatalf("gopls check reported %d places, the module has 5:\n%s", len(want), out)
	}
	for w := range want {
		if !got[w] {
			t.Errorf("gopls check reports %s; the workspace's diagnostics do not:\n%s", w, res.Text())
		}
	}
	for g := range got {
		if !want[g] {
			t.Errorf("the workspace's diagnostics report %s; gopls check does not:\n%s", g, res.Text())
		}
	}
}
