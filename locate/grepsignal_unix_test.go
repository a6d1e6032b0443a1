//go:build unix

package locate

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// A grep while the process is flooded with signals (Go's runtime sends
// itself SIGURG to preempt goroutines; this sends thousands) lists every
// file and reads every byte: getdents cut short by a pending signal is
// read on to its end, and a read of a regular file that stops short
// before its end is not taken for the end.
func TestGrepUnderASignalStormMissesNothing(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	want := 0
	// Directories too large for one getdents answer, and files larger
	// than one read.
	for d := 0; d < 3; d++ {
		for f := 0; f < 1200; f++ {
			files[fmt.Sprintf("d%d/file-with-a-longish-name-%04d.txt", d, f)] = "needle\n"
			want++
		}
	}
	big := strings.Repeat("filler text that is not the word\n", 20000) + "needle at the end\n"
	for f := 0; f < 8; f++ {
		files[fmt.Sprintf("big/%d.txt", f)] = big
		want++
	}
	writeTree(t, dir, files)
	root := openRoot(t, dir)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				syscall.Kill(os.Getpid(), syscall.SIGURG)
			}
		}
	}()
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for i := 0; i < 5; i++ {
		res, err := Grep(context.Background(), root, GrepOptions{Pattern: "needle"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != want || res.Searched != len(files) {
			t.Fatalf("run %d: %d matches in %d files searched; want %d in %d", i, res.Total, res.Searched, want, len(files))
		}
	}
}
