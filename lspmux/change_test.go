package lspmux

import (
	"context"
	"strings"
	"testing"
	"time"

	"cchub/workspace"
)

// oldErrorsModule is a Go module whose files already hold errors: b.go a
// type error, c.go an unused variable, in every state the test puts a.go
// in.
func oldErrorsModule(t *testing.T) (*workspace.Root, string) {
	t.Helper()
	return module(t, map[string]string{
		"go.mod": "module example.com/old\n\ngo 1.22\n",
		"a.go":   "package old\n\n// F doubles.\nfunc F(x int) int { return 2 * x }\n\nvar _ int = \"already wrong in a\"\n",
		"b.go":   "package old\n\nvar _ = F(1)\n\nvar _ int = \"already wrong in b\"\n",
		"c.go":   "package old\n\nfunc g() {\n\tunused := 1\n}\n",
	})
}

// keys lists a report's new diagnostics as "file: message", sorted.
func newKeys(rep *Report) []string {
	var out []string
	for p, ds := range rep.New {
		for _, d := range ds {
			out = append(out, p+": "+d.Message)
		}
	}
	return out
}

// "New" means caused by the change, whoever saw what before: a server
// started for the change is told the file as it was and settles first,
// so the errors already in the edited file and in files the run never
// looked at are not news; a comment-only edit causes nothing; a second
// copy of an old error is new; a signature change's broken caller in
// another file is new, and its fix is counted gone.
func TestNewMeansCausedByTheChange(t *testing.T) {
	root, dir := oldErrorsModule(t)
	m := newGoMux(t, root, Options{Timeout: 30 * time.Second})
	ctx := context.Background()
	a := read(t, dir, "a.go")
	step := func(name, text string) *Report {
		t.Helper()
		f := write(t, dir, "a.go", text)
		f.Old = []byte(a)
		a = text
		rep, err := m.AfterWrite(ctx, []File{f})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Late != nil {
			t.Fatalf("%s: not settled in 30s: %v", name, rep.Late.Servers)
		}
		return rep
	}

	rep := step("comment", strings.Replace(a, "// F doubles.", "// F doubles its argument.", 1))
	if k := newKeys(rep); len(k) != 0 {
		t.Errorf("a comment-only edit, with old errors in a.go, b.go and c.go: new %v", k)
	}
	if len(rep.Files["a.go"]) == 0 {
		t.Errorf("a.go's current diagnostics are not listed: %+v", rep.Files)
	}

	rep = step("second copy", a+"\nvar _ int = \"already wrong in a\"\n")
	if k := newKeys(rep); len(k) != 1 || !strings.Contains(k[0], "a.go: cannot use \"already wrong in a\"") {
		t.Errorf("a second copy of an old error: new %v", k)
	} else if d := rep.New["a.go"][0]; d.Line != 8 {
		t.Errorf("the new copy is placed at %d:%d, want line 8", d.Line, d.Col)
	}

	rep = step("signature", strings.Replace(a, "func F(x int) int", "func F(x, y int) int", 1))
	if k := newKeys(rep); len(k) != 1 || !strings.Contains(k[0], "b.go: not enough arguments in call to F") {
		t.Errorf("a signature change: new %v", k)
	}

	rep = step("fix", strings.Replace(a, "func F(x, y int) int", "func F(x int) int", 1))
	if k := newKeys(rep); len(k) != 0 || rep.Gone["b.go"] != 1 {
		t.Errorf("the fix: new %v, gone %v", k, rep.Gone)
	}
}

// A change its server cannot settle within the bound is answered with
// Late, every time; its news comes from Late once the server settles.
func TestLateNewsArrives(t *testing.T) {
	root, dir := oldErrorsModule(t)
	m := newGoMux(t, root, Options{Timeout: time.Millisecond})
	ctx := context.Background()
	a := read(t, dir, "a.go")
	f := write(t, dir, "a.go", strings.Replace(a, "func F(x int) int", "func F(x, y int) int", 1))
	f.Old = []byte(a)
	rep, err := m.AfterWrite(ctx, []File{f})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Late == nil || len(rep.Late.Servers) != 1 || rep.Late.Servers[0] != "gopls" {
		t.Fatalf("a cold gopls settled within 1ms? late %+v, new %v", rep.Late, newKeys(rep))
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	late, ok := rep.Late.Wait(wctx)
	if !ok {
		t.Fatal("the late change never settled")
	}
	if k := newKeys(late); len(k) != 1 || !strings.Contains(k[0], "b.go: not enough arguments in call to F") {
		t.Errorf("late news: %v (notes %v)", k, late.Notes)
	}
	// The next change is measured from where the late one left the
	// server: the broken call is not its news again.
	g := write(t, dir, "c.go", read(t, dir, "c.go")+"\n// more\n")
	g.Old = []byte(strings.TrimSuffix(string(g.Data), "\n// more\n"))
	rep, err = m.AfterWrite(ctx, []File{g})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Late != nil {
		if rep, ok = rep.Late.Wait(wctx); !ok {
			t.Fatal("the second change never settled")
		}
	}
	if k := newKeys(rep); len(k) != 0 {
		t.Errorf("an unrelated change after a late one: new %v", k)
	}
}
