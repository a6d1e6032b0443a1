package framing

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// countingWriter records each Write call.
type countingWriter struct {
	mu     sync.Mutex
	writes [][]byte
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

func TestWriteFrame(t *testing.T) {
	var cw countingWriter
	w := NewWriter(&cw)
	for _, body := range []string{"hello", "", `{"jsonrpc":"2.0"}`} {
		if err := w.WriteFrame([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"Content-Length: 5\r\n\r\nhello", "Content-Length: 0\r\n\r\n", "Content-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}"}
	if len(cw.writes) != len(want) {
		t.Fatalf("%d Write calls, want one per frame (%d)", len(cw.writes), len(want))
	}
	for i, got := range cw.writes {
		if string(got) != want[i] {
			t.Errorf("write %d = %q, want %q", i, got, want[i])
		}
	}
}

func TestWriteAfterClose(t *testing.T) {
	var cw countingWriter
	w := NewWriter(&cw)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	err := w.WriteFrame([]byte("late"))
	if !errors.Is(err, ErrClosed) || !errors.Is(err, net.ErrClosed) {
		t.Errorf("WriteFrame after Close = %v, want ErrClosed", err)
	}
	if len(cw.writes) != 0 {
		t.Errorf("a write after Close reached the writer: %q", cw.writes)
	}
}

// failingWriter accepts accept bytes of its first Write, then fails it; later
// Writes succeed.
type failingWriter struct {
	accept int
	calls  int
	buf    bytes.Buffer
}

func (f *failingWriter) Write(p []byte) (int, error) {
	f.calls++
	if f.calls == 1 {
		f.buf.Write(p[:f.accept])
		return f.accept, errors.New("pipe trouble")
	}
	return f.buf.Write(p)
}

// TestWriteFrameTorn checks that a frame that went out in part breaks the
// Writer (the peer holds a torn frame), and one that did not go out at all
// does not.
func TestWriteFrameTorn(t *testing.T) {
	torn := &failingWriter{accept: 7}
	w := NewWriter(torn)
	if err := w.WriteFrame([]byte("first")); err == nil || !strings.Contains(err.Error(), "pipe trouble") {
		t.Fatalf("first WriteFrame = %v", err)
	}
	err := w.WriteFrame([]byte("second"))
	if err == nil || !strings.Contains(err.Error(), "went out in part (7 of 26 bytes)") {
		t.Fatalf("WriteFrame after a torn frame = %v, want the Writer broken", err)
	}
	if torn.calls != 1 {
		t.Errorf("a broken Writer wrote again")
	}

	clean := &failingWriter{accept: 0}
	w = NewWriter(clean)
	if err := w.WriteFrame([]byte("first")); err == nil {
		t.Fatal("first WriteFrame succeeded")
	}
	if err := w.WriteFrame([]byte("second")); err != nil {
		t.Fatalf("WriteFrame after a failure that wrote nothing = %v", err)
	}
	if got := clean.buf.String(); got != "Content-Length: 6\r\n\r\nsecond" {
		t.Errorf("wrote %q", got)
	}
}

// TestConcurrentWriters has many goroutines write frames of many sizes at
// once and checks, on the reading side, that every frame arrives whole and
// each goroutine's frames arrive in its order. Run with -race.
func TestConcurrentWriters(t *testing.T) {
	const writers, perWriter = 16, 50
	pr, pw := io.Pipe()
	w := NewWriter(pw)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range perWriter {
				// Sizes from a few bytes to 200 KB, so some frames take
				// many pipe reads.
				size := (g*perWriter + i) * 4001 % 200_000
				body := fmt.Sprintf("%d %d|%s", g, i, strings.Repeat(string(rune('a'+g)), size))
				if err := w.WriteFrame([]byte(body)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); pw.Close() }()

	r := NewReader(&smallReads{r: pr}, Options{})
	next := make([]int, writers)
	frames := 0
	for {
		body, err := r.ReadFrame()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var g, i int
		head, _, _ := strings.Cut(string(body), "|")
		if _, err := fmt.Sscanf(head, "%d %d", &g, &i); err != nil || g < 0 || g >= writers {
			t.Fatalf("frame %q... is damaged: %v", clip(body), err)
		}
		size := (g*perWriter + i) * 4001 % 200_000
		want := fmt.Sprintf("%d %d|%s", g, i, strings.Repeat(string(rune('a'+g)), size))
		if string(body) != want {
			t.Fatalf("frame from writer %d, #%d is damaged (%d bytes, want %d)", g, i, len(body), len(want))
		}
		if i != next[g] {
			t.Fatalf("writer %d: frame #%d arrived when #%d was due", g, i, next[g])
		}
		next[g]++
		frames++
	}
	if frames != writers*perWriter {
		t.Errorf("read %d frames, want %d", frames, writers*perWriter)
	}
}

// smallReads cuts reads to 1000 bytes, so frames are reassembled from
// pieces.
type smallReads struct{ r io.Reader }

func (s *smallReads) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), 1000)]) }
