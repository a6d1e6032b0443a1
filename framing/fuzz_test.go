package framing

import (
	"bytes"
	"io"
	"runtime"
	"testing"
)

// FuzzReadFrame checks two properties.
//
// Arbitrary input: ReadFrame never panics, never returns a body over
// MaxFrameSize, always ends (with an error) once the input is consumed, and
// allocates in proportion to what it received, never to what a header
// declared.
//
// Round trip: bodies written by a Writer, with junk before the first frame
// and between frames, read back identical through a reader that cuts the
// bytes at places the fuzzer picks.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte("Content-Length: 5\r\n\r\nhello"), []byte{1, 2, 3})
	f.Add([]byte("Starting server...\ncontent-length: 2\r\nContent-Type: x\r\n\r\nhi"), []byte{0})
	f.Add([]byte("Content-Length: 60000\r\n\r\nshort"), []byte{7})
	f.Add([]byte("Content-Length: 99999999999999999999\r\n\r\n"), []byte{})
	f.Add([]byte("Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"), []byte{2, 2})
	f.Add([]byte("Content-Le"), []byte{1})
	f.Add([]byte("junk Content-Length: 1\n\nxContent-Type: a\r\ncontent-LENGTH:0\r\n\r\n"), []byte{3, 5})
	f.Add([]byte{0, 'a', 0, 0, 'b', 'c'}, []byte{255, 1})

	const maxFrame = 4 << 10
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		// Arbitrary input.
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := NewReader(&cutReader{data: data, cuts: cuts}, Options{MaxFrameSize: maxFrame, MaxJunk: 64})
		for calls := 0; ; calls++ {
			body, err := r.ReadFrame()
			if err != nil {
				break
			}
			if len(body) > maxFrame {
				t.Fatalf("a body of %d bytes, over the maximum of %d", len(body), maxFrame)
			}
			if calls > len(data) {
				t.Fatalf("%d frames from %d bytes", calls, len(data))
			}
		}
		runtime.ReadMemStats(&after)
		// The window, a body's first chunk (at most maxFrame here), the
		// junk buffers, and what arrived, twice over for growth.
		if alloc, bound := after.TotalAlloc-before.TotalAlloc, uint64(bufSize+maxFrame+16<<10+4*len(data)); alloc > bound {
			t.Fatalf("reading %d bytes allocated %d bytes (bound %d)", len(data), alloc, bound)
		}

		// Round trip: data split at NUL bytes gives the bodies, and cuts
		// says where junk goes and how the reads are cut.
		bodies := bytes.Split(data, []byte{0})
		var wire bytes.Buffer
		w := NewWriter(&wire)
		if len(cuts) > 0 && cuts[0]&1 != 0 {
			wire.WriteString("fake server starting\n")
		}
		for i, body := range bodies {
			if err := w.WriteFrame(body); err != nil {
				t.Fatal(err)
			}
			if len(cuts) > 0 && cuts[i%len(cuts)]&2 != 0 {
				wire.WriteString("log: wrote a frame\n")
			}
		}
		written := wire.Bytes()
		r = NewReader(&cutReader{data: written, cuts: cuts}, Options{})
		for i, want := range bodies {
			body, err := r.ReadFrame()
			if err != nil {
				t.Fatalf("frame %d of %d: %v (wire %q)", i, len(bodies), err, written)
			}
			if !bytes.Equal(body, want) {
				t.Fatalf("frame %d = %q, want %q", i, body, want)
			}
		}
		if body, err := r.ReadFrame(); err != io.EOF {
			t.Fatalf("after the last frame: %q, %v; want io.EOF", body, err)
		}
	})
}

// cutReader returns data in reads whose sizes come from cuts (1 to 256
// bytes), cycling; no cuts means all at once.
type cutReader struct {
	data []byte
	cuts []byte
	i    int
}

func (c *cutReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.cuts) > 0 {
		n = int(c.cuts[c.i%len(c.cuts)]) + 1
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}
