package hub

import (
	"context"
	"fmt"
	"os"
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
