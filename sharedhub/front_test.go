package sharedhub

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A hub that exits as it starts (it could not listen) is said at once,
// with the last line of its log, not after the start's whole wait; a
// socket path longer than a unix socket's is refused before any start.
func TestAHubThatExitsAtStartIsSaidAtOnce(t *testing.T) {
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	starts := 0
	f := &Front{Dir: dir, ID: "0123456789abcdef", Start: func() (<-chan struct{}, error) {
		starts++
		os.WriteFile(hubFiles(dir, "0123456789abcdef").log, []byte("serving\ncchub: listen unix: bind: \x1b[2Jinvalid argument\n"), 0o600)
		exited := make(chan struct{})
		close(exited)
		return exited, nil
	}}
	began := time.Now()
	_, _, err = f.Join(context.Background(), Hello{Op: OpMCP, Root: dir})
	if err == nil || !strings.Contains(err.Error(), "exited at once") || !strings.Contains(err.Error(), `bind: \x1b[2Jinvalid argument`) {
		t.Fatalf("Join: %v", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("Join took %v for a hub that exited at once", d)
	}
	if starts != 1 {
		t.Errorf("%d starts, want 1", starts)
	}

	long := &Front{Dir: filepath.Join(dir, strings.Repeat("x", 100)), ID: "0123456789abcdef", Start: f.Start}
	if _, _, err := long.Join(context.Background(), Hello{Op: OpMCP, Root: dir}); err == nil || !strings.Contains(err.Error(), "set "+EnvDir+" to a shorter directory") {
		t.Fatalf("Join with a socket path too long: %v", err)
	}
	if starts != 1 {
		t.Errorf("a socket path too long started a hub")
	}
}
