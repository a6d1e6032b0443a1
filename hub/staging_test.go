package hub

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"cchub/astedit"
	"cchub/store"
	"cchub/workspace"
)

// A commit interrupted past its point of no return is finished by the
// next start of cchub, before anything else happens, and the hub says so
// to its front end.
func TestOpenFinishesAnInterruptedCommit(t *testing.T) {
	ws := copyWorkspace(t, "go")
	ctx := context.Background()
	root, err := workspace.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(filepath.Join(ws, "main.go"))
	s, err := astedit.Stage(ctx, st, &astedit.Change{Kind: "rewrite", Title: "t", Files: []astedit.FileEdit{{Path: "main.go", Old: old, New: []byte("package main\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	// What a commit killed just after the point of no return leaves: the
	// journal says renaming, the new content waits beside its target.
	temp := workspace.TempBeside("main.go", s.ID)
	if _, err := root.WriteTemp(temp, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := st.OpenJournal(ctx, s.ID, `{"files":[{"path":"main.go","temp":"`+temp+`"}]}`); err != nil {
		t.Fatal(err)
	}
	if err := st.JournalRenaming(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	// The marker every start looks for before opening the database.
	if err := os.WriteFile(filepath.Join(ws, ".cchub", "commit-journal-open"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st.Close()
	root.Close()

	// The hub says so through its front end's hook, never on stderr.
	var warned []string
	h, err := Open(ws, Options{OneShot: true, Warn: func(msg string) { warned = append(warned, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if want := "finished the interrupted commit of change " + s.ID + " (main.go)"; len(warned) != 1 || warned[0] != want {
		t.Errorf("warned %q, want [%q]", warned, want)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(data) != "package main\n" {
		t.Errorf("main.go after the next start: %q", data)
	}
	if _, err := os.Stat(filepath.Join(ws, temp)); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".cchub", "commit-journal-open")); !os.IsNotExist(err) {
		t.Errorf("the journal's marker is left: %v", err)
	}
}
