package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

func (c *chunkReader) Read(p []byte) (int, error) { return c.read(p) }
func (c *chunkReader) Close() error               { return nil }

// ReadAll stops at the size the stat gave when a read ends short of the
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
			o := &Opened{rel: "f", size: c.size, max: 1 << 20, src: r}
			got, err := o.ReadAll(nil)
			if err != nil || !bytes.Equal(got, c.data) {
				t.Fatalf("ReadAll = %q, %v; want %q", got, err, c.data)
			}
			if c.wantReads > 0 && r.reads != c.wantReads {
				t.Errorf("%d reads, want %d", r.reads, c.wantReads)
			}
		})
	}
}

// ReadMore gives a file a buffer at a time and says where it ends, with no
// read past the size the stat gave when the last read stops short; a
// file that grows past the open's max while it is read is refused.
func TestReadMoreStreamsAFileAndEndsWhereItEnds(t *testing.T) {
	text := bytes.Repeat([]byte("0123456789"), 10) // 100 bytes
	r := &chunkReader{data: text, chunk: 1 << 20}
	o := &Opened{rel: "f", size: int64(len(text)), max: 1 << 20, src: r}
	var got []byte
	for end := false; !end; {
		buf := make([]byte, 0, 32)
		var err error
		if buf, end, err = o.ReadMore(buf); err != nil {
			t.Fatal(err)
		}
		got = append(got, buf...)
	}
	if !bytes.Equal(got, text) || r.reads != 4 {
		t.Errorf("read %q in %d reads; want the 100 bytes in 4 (32+32+32+4, the last short at the stat's size)", got, r.reads)
	}

	grown := &chunkReader{data: bytes.Repeat([]byte("x"), 100), chunk: 1 << 20}
	o = &Opened{rel: "g", size: 10, max: 50, src: grown}
	if _, err := o.ReadAll(nil); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "grew past 50 bytes") {
		t.Errorf("a file that grew past max: err = %v, want ErrTooLarge saying it grew", err)
	}
}

// A file the walk listed as regular and that is swapped, before it is
// read, for a symlink that leads out of the root or for a named pipe
// gives nothing from outside, and does not block: the symlink is refused,
// the pipe (opened non-blocking) reads as what it holds, here nothing.
func TestOpenReadAtRefusesWhatAFileWasSwappedFor(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"d/link.txt", "d/pipe.txt", "d/kept.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("text\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	type listed struct {
		d   fs.DirEntry
		dir *Dir
	}
	held := map[string]listed{}
	err = r.WalkHeld(context.Background(), "d", func(rel string, d fs.DirEntry, in *Dir) error {
		if !d.IsDir() {
			in.Hold()
			held[rel] = listed{d, in}
		}
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, l := range held {
			l.dir.Release()
		}
	}()
	if len(held) != 3 {
		t.Fatalf("walk gave %d files, want 3", len(held))
	}
	read := func(rel string) ([]byte, error) {
		return readAt(r, held[rel].dir, held[rel].d, rel, 1<<20)
	}
	link := filepath.Join(dir, "d", "link.txt")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "secret.txt"), link); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "d", "pipe.txt")
	if err := os.Remove(pipe); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if data, err := read("d/link.txt"); err == nil || strings.Contains(string(data), "secret") {
		t.Errorf("a file swapped for a symlink out of the root: read %q, %v; want a refusal", data, err)
	}
	done := make(chan string, 1)
	go func() {
		data, err := read("d/pipe.txt")
		done <- fmt.Sprintf("%q, %v", data, err)
	}()
	select {
	case got := <-done:
		if got != `"", <nil>` && !strings.Contains(got, "not a regular file") {
			t.Errorf("a file swapped for an empty named pipe: %s; want nothing read, or a refusal", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a file swapped for a named pipe blocked")
	}
	if data, err := read("d/kept.txt"); err != nil || string(data) != "text\n" {
		t.Errorf("the file left as it was: %q, %v", data, err)
	}
}

// A file opened with no stat learns its size once a read fills the room
// it had: one over max is refused then, not read whole first; one under
// it is read to its end.
func TestAFileOpenedWithNoStatIsRefusedOverMaxAtItsFirstFullRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), bytes.Repeat([]byte("x"), 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var d fs.DirEntry
	var in *Dir
	err = r.WalkHeld(context.Background(), ".", func(rel string, e fs.DirEntry, h *Dir) error {
		if rel == "big.txt" {
			d, in = e, h
			in.Hold()
		}
		return nil
	}, nil)
	if err != nil || in == nil {
		t.Fatalf("walk: %v, held %v", err, in)
	}
	defer in.Release()
	for _, c := range []struct {
		max     int64
		wantErr bool
	}{{1000, true}, {1 << 20, false}} {
		o, err := r.OpenReadAt(in, d, "big.txt", c.max)
		if c.wantErr && errors.Is(err, ErrTooLarge) && !in.shortReadsEnd() {
			continue // stat'd at the open, and refused there
		}
		if err != nil {
			t.Fatal(err)
		}
		if in.shortReadsEnd() && o.size != -1 {
			t.Errorf("opened with a stat (size %d) on a file system where a short read is the end", o.size)
		}
		var n int
		for buf, end := make([]byte, 0, 100), false; !end; buf = buf[:0] {
			if buf, end, err = o.ReadMore(buf); err != nil {
				break
			}
			n += len(buf)
		}
		o.Close()
		switch {
		case c.wantErr && (!errors.Is(err, ErrTooLarge) || o.got != 100):
			t.Errorf("max %d: %v after %d bytes; want ErrTooLarge after the first 100", c.max, err, o.got)
		case !c.wantErr && (err != nil || n != 5000):
			t.Errorf("max %d: %v, %d bytes read; want the 5000", c.max, err, n)
		}
	}
}
