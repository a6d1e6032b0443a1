package framing

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// chunkReader returns its data in pieces of the sizes given, cycling, so a
// frame arrives cut at chosen places.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := c.sizes[c.i%len(c.sizes)]
	c.i++
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// chunkings are the ways every reader case is fed: whole, a byte at a time,
// with the EOF arriving alongside the last data, halved reads, and odd cuts.
var chunkings = []struct {
	name string
	wrap func([]byte) io.Reader
}{
	{"whole", func(b []byte) io.Reader { return bytes.NewReader(b) }},
	{"onebyte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
	{"dataerr", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
	{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
	{"odd", func(b []byte) io.Reader { return &chunkReader{data: b, sizes: []int{3, 1, 7, 2, 13}} }},
}

// readAll reads frames until an error, returning the bodies, the error and
// the junk reported (joined).
func readAll(r *Reader) (frames []string, err error) {
	for {
		body, err := r.ReadFrame()
		if err != nil {
			return frames, err
		}
		frames = append(frames, string(body))
	}
}

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

func TestReadFrame(t *testing.T) {
	banner := strings.Repeat("a banner line of a chatty server\n", 3000) // ~100 KB
	cases := []struct {
		name   string
		in     string
		opts   Options
		frames []string
		junk   string // what OnJunk saw, joined by "|"; "*" is not checked
		err    string // "" means io.EOF; else a substring of the error
		unexp  bool   // the error wraps io.ErrUnexpectedEOF
	}{
		{name: "empty input", in: ""},
		{name: "one frame", in: frame("hello"), frames: []string{"hello"}},
		{name: "several frames", in: frame(`{"a":1}`) + frame("") + frame("third"), frames: []string{`{"a":1}`, "", "third"}},
		{name: "lower case name", in: "content-length: 2\r\n\r\nhi", frames: []string{"hi"}},
		{name: "upper case name", in: "CONTENT-LENGTH: 2\r\n\r\nhi", frames: []string{"hi"}},
		{name: "content type after", in: "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\nhi", frames: []string{"hi"}},
		{name: "content type first", in: "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\nhi", frames: []string{"hi"}},
		{name: "unknown header", in: "Content-Length: 2\r\nX-Trace: 7\r\n\r\nhi", frames: []string{"hi"}},
		{name: "bare line feeds", in: "Content-Length: 2\n\nhi", frames: []string{"hi"}},
		{name: "blanks around value", in: "Content-Length: \t 2  \r\n\r\nhi", frames: []string{"hi"}},
		{name: "same length twice", in: "Content-Length: 2\r\ncontent-length: 2\r\n\r\nhi", frames: []string{"hi"}},
		{name: "header text inside a body", in: frame("Content-Length: 99\r\n\r\n") + frame("x"), frames: []string{"Content-Length: 99\r\n\r\n", "x"}},
		{name: "banner before first frame", in: "Starting server...\nlistening on stdio\n" + frame("hi"),
			frames: []string{"hi"}, junk: "Starting server...\n|listening on stdio\n"},
		{name: "long banner is never fatal", in: banner + frame("hi"), opts: Options{MaxJunk: 16},
			frames: []string{"hi"}, junk: strings.ReplaceAll(banner, "\n", "\n|")[:len(banner)+2999]},
		{name: "junk between frames", in: frame("a") + "log: did a thing\n" + frame("b"),
			frames: []string{"a", "b"}, junk: "log: did a thing\n"},
		{name: "junk without line end runs into header", in: "progress 50%..." + frame("a") + "more" + frame("b"),
			frames: []string{"a", "b"}, junk: "progress 50%...|more"},
		{name: "junk at the end", in: frame("a") + "bye\n", frames: []string{"a"}, junk: "bye\n"},
		{name: "junk only", in: "no frames here\n", junk: "no frames here\n"},
		{name: "too much junk between frames", in: frame("a") + strings.Repeat("junk\n", 10) + frame("b"), opts: Options{MaxJunk: 16},
			frames: []string{"a"}, junk: "*", err: "more than 16 bytes between two frames"},

		{name: "negative length", in: "Content-Length: -5\r\n\r\nhello", err: `malformed Content-Length "-5"`},
		{name: "non-numeric length", in: "Content-Length: five\r\n\r\nhello", err: `malformed Content-Length "five"`},
		{name: "plus sign", in: "Content-Length: +5\r\n\r\nhello", err: `malformed Content-Length "+5"`},
		{name: "empty length", in: "Content-Length:\r\n\r\nhello", err: "empty Content-Length"},
		{name: "missing length", in: "Content-Type: text/plain\r\n\r\nhello", err: "without a Content-Length"},
		{name: "two different lengths", in: "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", err: `two different Content-Lengths, "5" and "6"`},
		{name: "header line without colon", in: "Content-Length: 5\r\nbogus\r\n\r\nhello", err: `malformed frame header line "bogus"`},
		{name: "over the maximum", in: frame("hello world"), opts: Options{MaxFrameSize: 10}, err: "Content-Length 11 is more than the maximum frame size of 10 bytes"},
		{name: "absurd length", in: "Content-Length: 99999999999999999999999999999\r\n\r\n", err: "is more than the maximum frame size of 67108864 bytes"},
		{name: "header too long", in: "Content-Length: 1\r\nX: " + strings.Repeat("y", MaxHeaderBytes) + "\r\n\r\nz", err: "frame header longer than 8192 bytes"},
		{name: "frame after a good one is checked", in: frame("ok") + "Content-Length: x\r\n\r\n", frames: []string{"ok"}, err: `malformed Content-Length "x"`},

		{name: "EOF in header name", in: "Content-Le", err: "input ended in a frame header after 10 bytes", unexp: true},
		{name: "EOF in header", in: "Content-Length: 5\r\n", err: "input ended in a frame header after 19 bytes", unexp: true},
		{name: "EOF before blank line ends", in: "Content-Length: 5\r\n\r", err: "before its closing blank line", unexp: true},
		{name: "EOF in body", in: "Content-Length: 10\r\n\r\nabc", err: "after 3 of 10 bytes (7 missing)", unexp: true},
		{name: "EOF in second body", in: frame("a") + "Content-Length: 4\r\n\r\nb", frames: []string{"a"}, err: "after 1 of 4 bytes (3 missing)", unexp: true},
		{name: "EOF in header after junk line", in: "hello\nContent-", junk: "hello\n", err: "input ended in a frame header", unexp: true},
		{name: "name prefix inside junk is junk", in: "hello Content-", junk: "hello Content-"},
	}
	for _, tc := range cases {
		for _, ch := range chunkings {
			t.Run(tc.name+"/"+ch.name, func(t *testing.T) {
				var junk []string
				opts := tc.opts
				opts.OnJunk = func(p []byte) { junk = append(junk, string(p)) }
				r := NewReader(ch.wrap([]byte(tc.in)), opts)
				frames, err := readAll(r)
				if fmt.Sprint(frames) != fmt.Sprint(tc.frames) || len(frames) != len(tc.frames) {
					t.Errorf("frames = %q, want %q", frames, tc.frames)
				}
				if got := strings.Join(junk, "|"); got != tc.junk && tc.junk != "*" {
					t.Errorf("junk = %q, want %q", got, tc.junk)
				}
				if tc.err == "" {
					if err != io.EOF {
						t.Fatalf("err = %v, want io.EOF", err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "framing: ") {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				if errors.Is(err, io.ErrUnexpectedEOF) != tc.unexp {
					t.Errorf("errors.Is(%v, io.ErrUnexpectedEOF) = %v, want %v", err, !tc.unexp, tc.unexp)
				}
				// A broken Reader stays broken.
				if _, again := r.ReadFrame(); again != err {
					t.Errorf("second ReadFrame = %v, want the same error %v", again, err)
				}
			})
		}
	}
}

// TestReadFrameJunkPieces checks how junk is handed to OnJunk: a line at a
// time, and a long line in 4 KiB pieces.
func TestReadFrameJunkPieces(t *testing.T) {
	long := strings.Repeat("z", 10000)
	var pieces []string
	r := NewReader(strings.NewReader("one\ntwo\n"+long+"\n"+frame("x")), Options{OnJunk: func(p []byte) { pieces = append(pieces, string(p)) }})
	if body, err := r.ReadFrame(); err != nil || string(body) != "x" {
		t.Fatalf("ReadFrame = %q, %v", body, err)
	}
	want := []string{"one\n", "two\n", long[:4096], long[4096:8192], long[8192:] + "\n"}
	if fmt.Sprint(pieces) != fmt.Sprint(want) {
		t.Errorf("pieces have lengths %v, want %v", lengths(pieces), lengths(want))
	}
}

func lengths(ss []string) []int {
	var n []int
	for _, s := range ss {
		n = append(n, len(s))
	}
	return n
}

// flakyReader returns its data a few bytes at a time, and a transient error
// (a deadline, say) between every few reads.
type flakyReader struct {
	data  []byte
	reads int
}

var errTransient = errors.New("transient")

func (f *flakyReader) Read(p []byte) (int, error) {
	f.reads++
	if f.reads%3 == 0 {
		return 0, errTransient
	}
	if len(f.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(f.data), 5)
	copy(p, f.data[:n])
	f.data = f.data[n:]
	return n, nil
}

// TestReadFrameResumes checks that an error of the underlying reader loses
// nothing: ReadFrame called again continues the frame, wherever the error
// cut it (junk, header, body).
func TestReadFrameResumes(t *testing.T) {
	big := strings.Repeat("0123456789", 20_000)
	in := "banner\n" + frame("first") + "log\n" + frame(big) + frame(`{"x":1}`)
	r := NewReader(&flakyReader{data: []byte(in)}, Options{})
	var frames []string
	transient := 0
	for {
		body, err := r.ReadFrame()
		if errors.Is(err, errTransient) {
			if !strings.HasPrefix(err.Error(), "framing: read: ") {
				t.Errorf("transient error not given context: %v", err)
			}
			transient++
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, string(body))
	}
	if len(frames) != 3 || frames[0] != "first" || frames[1] != big || frames[2] != `{"x":1}` {
		t.Errorf("frames have lengths %v", lengths(frames))
	}
	if transient < 100 {
		t.Errorf("only %d transient errors: the test did not cut frames", transient)
	}
}

// TestReadFrameHostileLength checks that a declared length is not what a
// frame costs: a peer that declares 60 MB and sends 10 bytes, or declares
// more than the maximum, costs kilobytes.
func TestReadFrameHostileLength(t *testing.T) {
	for _, in := range []string{
		"Content-Length: 60000000\r\n\r\n0123456789",
		"Content-Length: 60000000000\r\n\r\n0123456789",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := NewReader(strings.NewReader(in), Options{}).ReadFrame()
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%q: no error", in)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 512<<10 {
			t.Errorf("%q: allocated %d bytes (%v)", in, alloc, err)
		}
	}
}

// TestReadFrameNoProgress checks that a reader that returns nothing, forever,
// is an error, not a hang.
func TestReadFrameNoProgress(t *testing.T) {
	for _, r := range []io.Reader{
		emptyReader{},
		io.MultiReader(strings.NewReader("Content-Length: 5\r\n\r\nab"), emptyReader{}),
	} {
		_, err := NewReader(r, Options{}).ReadFrame()
		if !errors.Is(err, io.ErrNoProgress) {
			t.Errorf("err = %v, want io.ErrNoProgress", err)
		}
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }
