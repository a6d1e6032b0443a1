package hub

import (
	"context"
	"strings"
	"testing"

	"cchub/textedit"
)

// A warning gopls's analyzers give, hidden while a type error in its
// package stops them and back once the error is fixed, is told as back
// (there before the run's changes), never as new; a warning the run's
// own change brings is new.
func TestHiddenProblemComesBackAsBack(t *testing.T) {
	requireGopls(t)
	const printf = "package p\n\nimport \"fmt\"\n\nfunc W() string { return fmt.Sprintf(\"%d\", \"not a number\") }\n"
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/p\n\ngo 1.22\n",
		"w.go":   printf,
		"b.go":   "package p\n\nfunc B() int { return 1 }\n",
	})
	h, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	r := NewRun()
	write := func(path, content string) string {
		t.Helper()
		w, err := h.Write(ctx, path, content, textedit.WriteOptions{}, r)
		if err != nil {
			t.Fatal(err)
		}
		return w.Text()
	}
	// A comment in w.go opens it: its package is analysed, and the
	// printf warning is the starting point.
	if got := write("w.go", "// W formats.\n"+printf); strings.Contains(got, "new warning") {
		t.Fatalf("a comment reported the warning that was there as new:\n%s", got)
	}
	broken := write("b.go", "package p\n\nfunc B() int { return \"one\" }\n")
	if !strings.Contains(broken, "1 new error in b.go") {
		t.Fatalf("the type error was not reported:\n%s", broken)
	}
	if !strings.Contains(broken, "gone: warning") {
		t.Fatalf("gopls did not hide the warning while the package had a type error (the case this test is about):\n%s", broken)
	}
	fixed := write("b.go", "package p\n\nfunc B() int { return 1 }\n")
	if strings.Contains(fixed, "new warning") {
		t.Errorf("the warning that was there before is told as new:\n%s", fixed)
	}
	if !strings.Contains(fixed, "1 warning back (there before your changes) in w.go") {
		t.Errorf("the warning's return is not told as back:\n%s", fixed)
	}
	// A second printf mistake is the run's own: new.
	second := write("b.go", "package p\n\nimport \"fmt\"\n\nfunc B() int { return len(fmt.Sprintf(\"%s\", 1)) }\n")
	if !strings.Contains(second, "1 new warning in b.go") {
		t.Errorf("the run's own warning is not new:\n%s", second)
	}
}
