package textedit

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe or a device inside the root is never read or replaced:
// opening a pipe would block forever, and reading /dev/zero's twin would
// never end. Each tool answers at once, saying what it is.
func TestSpecialFilesAreRefusedAtOnce(t *testing.T) {
	root := newRoot(t)
	if err := syscall.Mkfifo(filepath.Join(root.Dir(), "pipe"), 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	specials := map[string]string{"pipe": "pipe is a named pipe, not a regular file"}
	// The device /dev/zero is (character 1:5); only root may make one.
	if err := syscall.Mknod(filepath.Join(root.Dir(), "zero"), syscall.S_IFCHR|0o666, 1<<8|5); err == nil {
		specials["zero"] = "zero is a device, not a regular file"
	} else {
		t.Logf("no device file (mknod needs root: %v); named pipe only", err)
	}
	files := NewFiles(root)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for name, want := range specials {
			for tool, call := range map[string]func() error{
				"write": func() error { _, err := files.Write(t.Context(), name, "x\n", WriteOptions{}, nil); return err },
				"edit":  func() error { _, err := files.Edit(t.Context(), name, Change{Old: "a", New: "b"}, nil); return err },
				"apply_patch": func() error {
					_, err := files.ApplyPatch(t.Context(), "*** Begin Patch\n*** Update File: "+name+"\n@@\n-a\n+b\n*** End Patch", nil, nil)
					return err
				},
			} {
				if err := call(); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s onto %s: %v", tool, name, err)
				}
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a tool blocked on a named pipe")
	}
}
