package textedit

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe inside the root is never read or replaced: opening it
// would block forever. Each tool answers at once, saying what it is.
func TestSpecialFilesAreRefusedAtOnce(t *testing.T) {
	root := newRoot(t)
	if err := syscall.Mkfifo(filepath.Join(root.Dir(), "pipe"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	files := NewFiles(root)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for name, call := range map[string]func() error{
			"write": func() error { _, err := files.Write(t.Context(), "pipe", "x\n", WriteOptions{}, nil); return err },
			"edit":  func() error { _, err := files.Edit(t.Context(), "pipe", Change{Old: "a", New: "b"}, nil); return err },
			"apply_patch": func() error {
				_, err := files.ApplyPatch(t.Context(), "*** Begin Patch\n*** Update File: pipe\n@@\n-a\n+b\n*** End Patch", nil)
				return err
			},
		} {
			if err := call(); err == nil || !strings.Contains(err.Error(), "pipe is a named pipe, not a regular file") {
				t.Errorf("%s onto a named pipe: %v", name, err)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a tool blocked on a named pipe")
	}
}
