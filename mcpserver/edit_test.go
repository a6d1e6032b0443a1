package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMCPEditAfterReadThenStaleRefused(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	path := filepath.Join(ws, "store", "store.go")

	if text, isErr := callText(t, cs, "read", map[string]any{"path": "store/store.go", "offset": 60, "limit": 5}); isErr {
		t.Fatal(text)
	}
	// A near-miss old_string (spaces for tabs) still lands, at the one
	// place it means, and the answer shows the changed lines numbered.
	text, isErr := callText(t, cs, "edit", map[string]any{
		"path":       "store/store.go",
		"old_string": "    s.mu.Lock()\n    defer s.mu.Unlock()\n    if _, ok := s.items[it.SKU]; ok {",
		"new_string": "    s.mu.Lock()\n    defer s.mu.Unlock()\n    if _, dup := s.items[it.SKU]; dup {",
	})
	if isErr {
		t.Fatal(text)
	}
	if !strings.HasPrefix(text, "Edited store/store.go:67-69") || !strings.Contains(text, "\n69\t\tif _, dup := s.items[it.SKU]; dup {") {
		t.Fatalf("edit answer:\n%s", text)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "\tif _, dup := s.items[it.SKU]; dup {\n") {
		t.Fatal("the edit did not land in the file's own indentation")
	}

	// Someone else changes the file: this conversation's next edit is
	// refused until it reads the file again.
	if err := os.WriteFile(path, append(data, []byte("\n// changed elsewhere\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	text, isErr = callText(t, cs, "edit", map[string]any{"path": "store/store.go", "old_string": "dup := s.items", "new_string": "seen := s.items"})
	if !isErr || !strings.Contains(text, "store/store.go changed on disk since you last read it") {
		t.Fatalf("stale edit not refused: %s", text)
	}
	callText(t, cs, "read", map[string]any{"path": "store/store.go"})
	if text, isErr = callText(t, cs, "edit", map[string]any{"path": "store/store.go", "old_string": "_, dup := s.items[it.SKU]; dup", "new_string": "_, seen := s.items[it.SKU]; seen"}); isErr {
		t.Fatalf("edit after a fresh read refused: %s", text)
	}
}

func TestMCPEditAmbiguousLeavesFileAlone(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	before, _ := os.ReadFile(filepath.Join(ws, "store", "store.go"))
	text, isErr := callText(t, cs, "edit", map[string]any{"path": "store/store.go", "old_string": "s.mu.Lock()", "new_string": "s.mu.RLock()"})
	if !isErr || !strings.Contains(text, "Found ") || !strings.Contains(text, "replace_all") {
		t.Fatalf("ambiguous edit: %s", text)
	}
	after, _ := os.ReadFile(filepath.Join(ws, "store", "store.go"))
	if string(before) != string(after) {
		t.Fatal("a refused edit changed the file")
	}
}

func TestMCPWriteAndApplyPatch(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	if text, isErr := callText(t, cs, "write", map[string]any{"path": "notes/todo.txt", "content": "one\ntwo\n"}); isErr || !strings.HasPrefix(text, "Created notes/todo.txt") {
		t.Fatalf("write: %s", text)
	}
	patch := `*** Begin Patch
*** Update File: notes/todo.txt
@@
 one
-two
+three
*** Add File: notes/done.txt
+zero
*** End Patch`
	text, isErr := callText(t, cs, "apply_patch", map[string]any{"patch": patch})
	if isErr {
		t.Fatal(text)
	}
	for _, want := range []string{"M notes/todo.txt (+1 -1)", "A notes/done.txt (1 lines)"} {
		if !strings.Contains(text, want) {
			t.Errorf("patch answer lacks %q:\n%s", want, text)
		}
	}
	got, _ := os.ReadFile(filepath.Join(ws, "notes", "todo.txt"))
	if string(got) != "one\nthree\n" {
		t.Fatalf("todo.txt = %q", got)
	}
	// A patch whose second file does not fit changes nothing.
	bad := `*** Begin Patch
*** Update File: notes/todo.txt
@@
-three
+four
*** Update File: notes/done.txt
@@
-not there
+x
*** End Patch`
	text, isErr = callText(t, cs, "apply_patch", map[string]any{"patch": bad})
	if !isErr || !strings.Contains(text, "-not there") {
		t.Fatalf("bad patch: %s", text)
	}
	got, _ = os.ReadFile(filepath.Join(ws, "notes", "todo.txt"))
	if string(got) != "one\nthree\n" {
		t.Fatalf("a refused patch changed todo.txt: %q", got)
	}
}

func TestMCPRunEndsWithItsSession(t *testing.T) {
	s := newServer(newTestHub(t, copyWorkspace(t, "go")))
	cs := connectServer(t, s.mcp)
	callText(t, cs, "read", map[string]any{"path": "go.mod"})
	if n := s.runs.count(); n != 1 {
		t.Fatalf("%d runs after one session's call, want 1", n)
	}
	cs.Close()
	for i := 0; s.runs.count() != 0; i++ {
		if i == 500 {
			t.Fatal("the run outlived its session")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Over MCP, write replaces an existing file only once the conversation has
// read it; creating a file needs no read, and the CLI, a conversation of
// its own, is not asked.
func TestMCPWriteOfAnUnreadFileIsRefused(t *testing.T) {
	ws := copyWorkspace(t, "go")
	cs := connect(t, newTestHub(t, ws))
	path := filepath.Join(ws, "store", "store.go")
	before, _ := os.ReadFile(path)
	text, isErr := callText(t, cs, "write", map[string]any{"path": "store/store.go", "content": "package store\n"})
	if !isErr || !strings.Contains(text, "store/store.go exists and has not been read in this conversation; read it first (read path=store/store.go)") {
		t.Fatalf("write of an unread file: %s", text)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("the refused write changed the file")
	}
	if text, isErr := callText(t, cs, "write", map[string]any{"path": "store/new.go", "content": "package store\n"}); isErr {
		t.Fatalf("creating a file: %s", text)
	}
	// A page of it is a read.
	callText(t, cs, "read", map[string]any{"path": "store/store.go", "offset": 1, "limit": 3})
	if text, isErr := callText(t, cs, "write", map[string]any{"path": "store/store.go", "content": "package store\n"}); isErr {
		t.Fatalf("write after a read: %s", text)
	}
	// What it wrote, it has seen.
	if text, isErr := callText(t, cs, "write", map[string]any{"path": "store/new.go", "content": "package store\n\n// x\n"}); isErr {
		t.Fatalf("rewriting a file it wrote: %s", text)
	}
}

// count is how many sessions have a run now.
func (ss *sessions) count() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.m)
}
