package workspace

import (
	"bytes"
	"io"
	"testing"
)

// chunkReader serves data a few bytes a read, as procfs's seq files do,
// and counts the reads.
type chunkReader struct {
	data  []byte
	chunk int
	reads int
}

func (c *chunkReader) read(p []byte) (int, error) {
	c.reads++
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.chunk)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// readAll stops at the size the stat gave when a read ends short of the
// byte of room past it, and otherwise reads to EOF: a file that grew, one
// that shrank, and one whose stat says nothing are read whole.
func TestReadAllEndsAtTheStatSizeOnlyWhenTheReadSaysSo(t *testing.T) {
	text := []byte("0123456789abcdef")
	for _, c := range []struct {
		name      string
		size      int64 // what the stat said
		data      []byte
		chunk     int
		wantReads int // 0: not counted
	}{
		{"as the stat said", 16, text, 1 << 20, 1},
		{"grew since the stat", 10, text, 1 << 20, 3},
		{"shrank since the stat", 20, text, 1 << 20, 2},
		{"no size (procfs): a page a read", 0, text, 5, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &chunkReader{data: c.data, chunk: c.chunk}
			got, err := readAll("f", c.size, nil, 1<<20, r.read)
			if err != nil || !bytes.Equal(got, c.data) {
				t.Fatalf("readAll = %q, %v; want %q", got, err, c.data)
			}
			if c.wantReads > 0 && r.reads != c.wantReads {
				t.Errorf("%d reads, want %d", r.reads, c.wantReads)
			}
		})
	}
}
