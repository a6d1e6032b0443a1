package locate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"cchub/workspace"
)

// searchFileWith greps one file of root with a worker whose buffer holds
// bufCap bytes: with a small one, the file is read and matched in pieces,
// the searched lines make room for the next read, and a line longer than
// the buffer grows it.
func searchFileWith(t *testing.T, root *workspace.Root, rel string, m *lineMatcher, bufCap int) (*grepWorker, error) {
	t.Helper()
	o, err := root.OpenRead(rel, MaxGrepFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	w := newGrepWorker(m.clone(), 1000)
	w.buf = make([]byte, 0, bufCap)
	return w, w.search(context.Background(), 0, rel, &o)
}

// keptLines is a worker's result as comparable text.
func keptLines(w *grepWorker) string {
	s := fmt.Sprintf("total=%d files=%d searched=%d\n", w.total, w.files, w.searched)
	for _, f := range w.kept {
		for _, m := range f.matches {
			s += fmt.Sprintf("%d:%q:%d\n", m.Line, m.Text, m.Chars)
		}
	}
	return s
}

// Whatever the size of the pieces a file is read in, grep finds the same
// lines, with the same numbers and text, as when it reads the file whole:
// lines cut by a read, CRLF, a byte-order mark, a line longer than the
// buffer, anchors, no final newline, and a NUL past the binary check's
// head.
func FuzzGrepInPieces(f *testing.F) {
	f.Add([]byte("alpha\nbeta gamma\r\ngamma\n"), "gamma", uint8(3))
	f.Add([]byte("\xef\xbb\xbf^start\nstart\nx start\n"), "^start", uint8(1))
	f.Add([]byte("a\n"+string(slices.Repeat([]byte("long "), 300))+"end\nend"), "end$", uint8(7))
	f.Add([]byte("no newline at all but a match"), `m\w+h`, uint8(2))
	f.Add([]byte("x\n\n\n\ny\n"), "^$", uint8(0))
	f.Add([]byte("café\ncafe\n"), `caf.`, uint8(4))
	dir := f.TempDir()
	root, err := workspace.Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	defer root.Close()
	f.Fuzz(func(t *testing.T, data []byte, pattern string, piece uint8) {
		m, err := compileMatcher(pattern, false, false)
		if err != nil {
			return
		}
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		whole, errWhole := searchFileWith(t, root, "f.txt", m, len(data)+1)
		small, errSmall := searchFileWith(t, root, "f.txt", m, 1+int(piece)%40)
		if (errWhole == nil) != (errSmall == nil) {
			t.Fatalf("whole: %v; in pieces: %v", errWhole, errSmall)
		}
		if a, b := keptLines(whole), keptLines(small); a != b {
			t.Fatalf("read whole:\n%s\nin pieces of %d:\n%s", a, 1+int(piece)%40, b)
		}
	})
}
