package importfix

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/imports"
)

// fixed runs Fix and fails the test on an error.
func fixed(t *testing.T, old, new string, siblings ...string) Result {
	t.Helper()
	var sib [][]byte
	for _, s := range siblings {
		sib = append(sib, []byte(s))
	}
	var oldB []byte
	if old != "" {
		oldB = []byte(old)
	}
	r, err := Fix("a.go", oldB, []byte(new), sib)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestErrorfToNew(t *testing.T) {
	old := `package transport

import (
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

func check(r io.Reader) error {
	if r == nil {
		return fmt.Errorf("no reader")
	}
	_ = plumbing.ZeroHash
	return nil
}
`
	new := strings.Replace(old, `fmt.Errorf("no reader")`, `errors.New("no reader")`, 1)
	want := strings.Replace(new, "\t\"fmt\"\n", "\t\"errors\"\n", 1)
	r := fixed(t, old, new)
	if got := string(r.Data); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if !r.Done() || !slices.Equal(r.Added, []string{"errors"}) || !slices.Equal(r.Removed, []string{"fmt"}) {
		t.Errorf("added %v removed %v unresolved %v", r.Added, r.Removed, r.Unresolved)
	}
}

func TestStillUsedImportStays(t *testing.T) {
	old := "package p\n\nimport \"fmt\"\n\nfunc f() error { fmt.Println(); return fmt.Errorf(\"x\") }\n"
	new := strings.Replace(old, `fmt.Errorf("x")`, `errors.New("x")`, 1)
	r := fixed(t, old, new)
	want := strings.Replace(new, "import \"fmt\"\n", "import (\n\t\"errors\"\n\t\"fmt\"\n)\n", 1)
	if string(r.Data) != want || !r.Done() || r.Removed != nil {
		t.Errorf("got\n%s\nremoved %v unresolved %v", r.Data, r.Removed, r.Unresolved)
	}
}

func TestFirstImportAndLastImport(t *testing.T) {
	// No import yet: one goes after the package clause.
	old := "package p\n\n// F is f.\nfunc F(s string) string { return s }\n"
	new := strings.Replace(old, "return s", "return strings.ToUpper(s)", 1)
	r := fixed(t, old, new)
	if want := strings.Replace(new, "package p\n", "package p\n\nimport \"strings\"\n", 1); string(r.Data) != want {
		t.Errorf("added first import:\n%s", r.Data)
	}
	// The last import going leaves no empty declaration and no extra blank line.
	old2 := "package p\n\nimport \"strings\"\n\nfunc F(s string) string { return strings.ToUpper(s) }\n"
	new2 := strings.Replace(old2, "strings.ToUpper(s)", "s", 1)
	r = fixed(t, old2, new2)
	if want := "package p\n\nfunc F(s string) string { return s }\n"; string(r.Data) != want {
		t.Errorf("removed last import:\n%q\nwant\n%q", r.Data, want)
	}
}

// A file whose imports need nothing is returned as given, byte for
// byte, however it is laid out; one whose imports change keeps every
// byte outside its import declarations.
func TestOnlyImportsChange(t *testing.T) {
	ugly := "package p\nimport   \"fmt\"\nfunc  f( )  {fmt.Println( 1 ,2 )}\nvar x=   1\n"
	r := fixed(t, ugly, ugly)
	if string(r.Data) != ugly || len(r.Added)+len(r.Removed) != 0 {
		t.Errorf("an already correct file changed:\n%q", r.Data)
	}
	changed := strings.Replace(ugly, "fmt.Println( 1 ,2 )", "os.Exit( 1 )", 1)
	r = fixed(t, ugly, changed)
	want := strings.Replace(changed, "import   \"fmt\"\n", "import \"os\"\n", 1)
	if string(r.Data) != want {
		t.Errorf("got\n%q\nwant\n%q", r.Data, want)
	}
}

func TestLeftForTheServer(t *testing.T) {
	old := "package p\n\nfunc f() {}\n"
	for _, c := range []struct{ body, why string }{
		{"yaml.Marshal(1)", "yaml: not a standard-library package"},
		{"template.New(\"x\")", "html/template, text/template"},
	} {
		new := strings.Replace(old, "{}", "{ "+c.body+" }", 1)
		r := fixed(t, old, new)
		if r.Done() || !strings.Contains(strings.Join(r.Unresolved, "; "), c.why) || string(r.Data) != new {
			t.Errorf("%s: done %v unresolved %q", c.body, r.Done(), r.Unresolved)
		}
	}
	// A package a sibling file imports is copied from it.
	sib := "package p\n\nimport yaml \"gopkg.in/yaml.v3\"\n\nvar _ = yaml.Marshal\n"
	new := strings.Replace(old, "{}", "{ yaml.Marshal(1) }", 1)
	r := fixed(t, old, new, sib, "package other\n\nimport yaml \"example.com/other/yaml\"\n")
	if !r.Done() || !strings.Contains(string(r.Data), "import yaml \"gopkg.in/yaml.v3\"") {
		t.Errorf("sibling import not copied: %v\n%s", r.Unresolved, r.Data)
	}
	// A name the package declares is not a package.
	r = fixed(t, old, strings.Replace(old, "{}", "{ cfg.Load() }", 1), "package p\n\nvar cfg config\n")
	if !r.Done() || len(r.Added) != 0 {
		t.Errorf("package variable taken for a package: %v %v", r.Added, r.Unresolved)
	}
	// An import whose package name is only assumed is not removed.
	old = "package p\n\nimport \"example.com/go-thing\"\n\nfunc f() { thing.Do() }\n"
	r = fixed(t, old, strings.Replace(old, "thing.Do()", "", 1))
	if r.Done() || len(r.Removed) != 0 {
		t.Errorf("an import of unknown name was removed: %v %v", r.Removed, r.Unresolved)
	}
}

// Fix runs nothing: a `go` first on PATH that leaves a mark is never
// started, while golang.org/x/tools/imports.Process, which resolves
// through the go command, starts it (the check can fail).
func TestRunsNoGoCommand(t *testing.T) {
	bin := t.TempDir()
	mark := filepath.Join(t.TempDir(), "go-was-run")
	script := "#!/bin/sh\necho \"$@\" >> " + mark + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("GOFLAGS", "")
	old := "package p\n\nimport \"fmt\"\n\nfunc f() error { return fmt.Errorf(\"x\") }\n"
	new := strings.Replace(old, `fmt.Errorf("x")`, `errors.New(thing.X)`, 1)
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte(new), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Fix(file, []byte(old), []byte(new), nil)
	if err != nil || !slices.Equal(r.Added, []string{"errors"}) || r.Done() {
		t.Fatalf("Fix: %v added %v unresolved %v", err, r.Added, r.Unresolved)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("Fix ran the go command")
	}
	imports.Process(file, []byte(new), nil)
	if _, err := os.Stat(mark); err != nil {
		t.Fatal("the check cannot fail: imports.Process did not run the fake go either")
	}
}
