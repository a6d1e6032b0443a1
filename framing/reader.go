package framing

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Defaults for Options; see there.
const (
	DefaultMaxFrameSize = 64 << 20
	DefaultMaxJunk      = 64 << 10
)

// MaxHeaderBytes bounds one frame's header block. LSP and DAP headers are two
// short lines; a longer header is a peer that is not speaking the protocol.
const MaxHeaderBytes = 8 << 10

const (
	// bufSize is the Reader's window. It holds a whole header, so a header is
	// parsed only once it is complete, and a read that fails while it is
	// incomplete loses nothing.
	bufSize = 2 * MaxHeaderBytes
	// firstBodyChunk is what a body starts with; it doubles as bytes arrive,
	// so what a body costs follows what was received, not what was declared.
	firstBodyChunk = 64 << 10
	// junkPiece bounds one OnJunk call.
	junkPiece = 4 << 10
	// junkSample is how much of a run of junk an error quotes.
	junkSample = 80
)

// Options configures a Reader (and the Reader of a Conn or Stream). The zero
// value is ready to use.
type Options struct {
	// MaxFrameSize is the largest body a frame may declare; a larger
	// Content-Length is an error, reported before anything is allocated. 0
	// means DefaultMaxFrameSize (64 MiB).
	MaxFrameSize int
	// MaxJunk bounds a run of bytes that are not a frame between two frames.
	// Before the first frame junk is skipped without a bound (servers print
	// banners). 0 means DefaultMaxJunk (64 KiB).
	MaxJunk int
	// OnJunk, if set, is called with the bytes skipped because they were not
	// part of a frame, a piece at a time: a piece ends at a line end, where a
	// header starts, at the end of input, or after 4 KiB. The slice is only
	// valid during the call. It is called from ReadFrame, on the reading
	// goroutine.
	OnJunk func(skipped []byte)
}

func (o Options) maxFrameSize() int {
	if o.MaxFrameSize > 0 {
		return o.MaxFrameSize
	}
	return DefaultMaxFrameSize
}

func (o Options) maxJunk() int {
	if o.MaxJunk > 0 {
		return o.MaxJunk
	}
	return DefaultMaxJunk
}

// Reader reads frames from an io.Reader. It is not safe for concurrent use;
// one goroutine reads (Conn serialises its callers).
type Reader struct {
	src  io.Reader
	opts Options

	buf  []byte // the window; unread bytes are buf[r:w]
	r, w int
	// srcErr is an error src returned together with data; it is returned
	// once the data has been used.
	srcErr error

	// broken is set by a malformed or truncated frame; every later call
	// returns it.
	broken error

	framed   bool   // a frame has been read: junk is bounded from now on
	junkRun  int    // bytes of junk skipped since the last frame
	junkBuf  []byte // the OnJunk piece being gathered
	junkHd   []byte // the start of the run, for an error to quote
	lastJunk byte   // the last byte skipped

	// A body in progress: the header was read and consumed, and body
	// holds what has arrived of want bytes. It survives a failed read.
	inBody    bool
	body      []byte
	want      int
	headerLen int
}

// NewReader returns a Reader of the frames in src.
func NewReader(src io.Reader, opts Options) *Reader {
	return &Reader{src: src, opts: opts, buf: make([]byte, bufSize)}
}

// ReadFrame returns the body of the next frame, which belongs to the caller.
// It returns io.EOF when the input ends between frames (after reporting any
// junk before the end); see the package comment for everything else.
func (r *Reader) ReadFrame() ([]byte, error) {
	body, _, err := r.readFrame()
	return body, err
}

// readFrame also returns the frame's size on the wire, header included
// (junk before it is not counted).
func (r *Reader) readFrame() ([]byte, int64, error) {
	if r.broken != nil {
		return nil, 0, r.broken
	}
	if !r.inBody {
		if err := r.skipToHeader(); err != nil {
			return nil, 0, r.wrap(err)
		}
		if err := r.readHeader(); err != nil {
			return nil, 0, r.wrap(err)
		}
	}
	if err := r.readBody(); err != nil {
		return nil, 0, r.wrap(err)
	}
	body, wire := r.body, int64(r.headerLen)+int64(r.want)
	r.inBody, r.body = false, nil
	r.framed, r.junkRun, r.junkHd = true, 0, r.junkHd[:0]
	return body, wire, nil
}

// wrap gives an error of src context; the Reader's own errors (and io.EOF,
// which callers compare with ==) pass as they are.
func (r *Reader) wrap(err error) error {
	if err == io.EOF || err == r.broken {
		return err
	}
	return fmt.Errorf("framing: read: %w", err)
}

// fail breaks the Reader with err.
func (r *Reader) fail(err error) error {
	r.broken = err
	return err
}

// fill reads more of src into the window, making room first. It returns
// src's error only when no byte arrived; an error that came with data is
// kept for the next call. A src that keeps returning nothing is an error.
func (r *Reader) fill() error {
	if r.srcErr != nil {
		err := r.srcErr
		if err != io.EOF { // EOF stays: every later read would say so too
			r.srcErr = nil
		}
		return err
	}
	if r.r > 0 {
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	}
	if r.w == len(r.buf) {
		// Callers consume or fail before the window fills; this is a guard.
		return r.fail(errors.New("framing: internal error: read window full"))
	}
	for range 100 {
		n, err := r.src.Read(r.buf[r.w:])
		if n < 0 || n > len(r.buf)-r.w {
			return r.fail(fmt.Errorf("framing: reader returned an invalid count %d", n))
		}
		r.w += n
		if n > 0 {
			r.srcErr = err
			return nil
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}

// headerNames are what a header block may start with: the two fields the
// base protocol defines, each with its colon, lower case.
var headerNames = [...]string{"content-length:", "content-type:"}

// longestName is the length of the longest of headerNames.
const longestName = len("content-length:")

// indexHeader returns where in p a header name (any case) starts, or -1.
func indexHeader(p []byte) int {
	for i := range p {
		c := lower(p[i])
		if c != 'c' {
			continue
		}
		for _, name := range headerNames {
			if hasPrefixFold(p[i:], name) {
				return i
			}
		}
	}
	return -1
}

// prefixOfHeader reports whether p is a non-empty, proper beginning of a
// header name (any case): the start of a header that was cut off.
func prefixOfHeader(p []byte) bool {
	for _, name := range headerNames {
		if len(p) > 0 && len(p) < len(name) && equalFold(p, name[:len(p)]) {
			return true
		}
	}
	return false
}

// skipToHeader consumes bytes up to the start of the next header, reporting
// them as junk.
func (r *Reader) skipToHeader() error {
	for {
		if i := indexHeader(r.buf[r.r:r.w]); i >= 0 {
			if err := r.skipJunk(i); err != nil {
				return err
			}
			r.flushJunk()
			return nil
		}
		// Keep a tail that could be the start of a name cut by the read.
		keep := min(r.w-r.r, longestName-1)
		if err := r.skipJunk(r.w - r.r - keep); err != nil {
			return err
		}
		err := r.fill()
		if err == io.EOF {
			rest := r.buf[r.r:r.w]
			if k := r.cutHeader(rest); k >= 0 {
				if err := r.skipJunk(k); err != nil {
					return err
				}
				r.flushJunk()
				return r.fail(fmt.Errorf("framing: input ended in a frame header after %d bytes (%q): %w",
					len(rest)-k, rest[k:], io.ErrUnexpectedEOF))
			}
			if err := r.skipJunk(len(rest)); err != nil {
				return err
			}
			r.flushJunk()
			return io.EOF
		}
		if err != nil {
			return err
		}
	}
}

// cutHeader returns where in rest, the last bytes of the input, a header
// starts that the end of input cut off, or -1. Only a name cut where a
// header could start (at a frame boundary or a line start) counts; the same
// letters anywhere else are the tail of some text.
func (r *Reader) cutHeader(rest []byte) int {
	for k := max(0, len(rest)-longestName); k < len(rest); k++ {
		if !prefixOfHeader(rest[k:]) {
			continue
		}
		if k > 0 && rest[k-1] == '\n' || k == 0 && (r.junkRun == 0 || r.lastJunk == '\n') {
			return k
		}
	}
	return -1
}

// skipJunk consumes n bytes of the window that are not a frame.
func (r *Reader) skipJunk(n int) error {
	if n == 0 {
		return nil
	}
	p := r.buf[r.r : r.r+n]
	r.r += n
	r.junkRun += n
	r.lastJunk = p[n-1]
	if len(r.junkHd) < junkSample {
		r.junkHd = append(r.junkHd, p[:min(len(p), junkSample-len(r.junkHd))]...)
	}
	if r.opts.OnJunk != nil {
		for len(p) > 0 {
			c := p[0]
			r.junkBuf = append(r.junkBuf, c)
			p = p[1:]
			if c == '\n' || len(r.junkBuf) == junkPiece {
				r.flushJunk()
			}
		}
	}
	if r.framed && r.junkRun > r.opts.maxJunk() {
		r.flushJunk()
		return r.fail(fmt.Errorf("framing: more than %d bytes between two frames are not a frame (they start %q): the peer is not speaking Content-Length framing, or a Content-Length was wrong",
			r.opts.maxJunk(), r.junkHd))
	}
	return nil
}

// flushJunk hands the gathered piece of junk to OnJunk.
func (r *Reader) flushJunk() {
	if len(r.junkBuf) > 0 && r.opts.OnJunk != nil {
		r.opts.OnJunk(r.junkBuf)
	}
	r.junkBuf = r.junkBuf[:0]
}

// readHeader waits until the window holds a whole header block, which starts
// at r.r with a header name, then parses and consumes it and sets up the
// body.
func (r *Reader) readHeader() error {
	// The header is parsed once its blank line is in; looking for that line
	// only in what each read added keeps a header that arrives a byte at a
	// time linear.
	seen := 0 // bytes of the header already looked through
	for {
		if hasBlankLine(r.buf[r.r:r.w], max(0, seen-2)) {
			n, complete, err := r.parseHeader(r.buf[r.r:r.w])
			if err != nil {
				return r.fail(err)
			}
			if complete {
				r.r += r.headerLen
				r.inBody = true
				r.want = n
				r.body = make([]byte, 0, min(n, firstBodyChunk))
				return nil
			}
		}
		if r.w-r.r >= MaxHeaderBytes {
			return r.fail(fmt.Errorf("framing: frame header longer than %d bytes without its closing blank line (it starts %q)",
				MaxHeaderBytes, clip(r.buf[r.r:r.w])))
		}
		seen = r.w - r.r
		err := r.fill()
		if err == io.EOF {
			got := r.buf[r.r:r.w]
			return r.fail(fmt.Errorf("framing: input ended in a frame header after %d bytes (%q), before its closing blank line: %w",
				len(got), clip(got), io.ErrUnexpectedEOF))
		}
		if err != nil {
			return err
		}
	}
}

// hasBlankLine reports whether p, from from on, holds the end of an empty
// line ("\n\n" or "\n\r\n").
func hasBlankLine(p []byte, from int) bool {
	for i := from; i < len(p); i++ {
		if p[i] != '\n' {
			continue
		}
		if i+1 < len(p) && p[i+1] == '\n' || i+2 < len(p) && p[i+1] == '\r' && p[i+2] == '\n' {
			return true
		}
	}
	return false
}

// parseHeader parses the header block at the start of p. complete is false
// when p does not hold the block's closing blank line yet. On success it
// sets r.headerLen and returns the Content-Length.
func (r *Reader) parseHeader(p []byte) (length int, complete bool, err error) {
	have := false
	var lengthText []byte
	for off := 0; ; {
		nl := bytes.IndexByte(p[off:], '\n')
		if nl < 0 || off+nl >= MaxHeaderBytes {
			return 0, false, nil
		}
		line := p[off : off+nl]
		off += nl + 1
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) == 0 {
			if !have {
				return 0, false, fmt.Errorf("framing: frame header without a Content-Length (header %q)", clip(p[:off]))
			}
			r.headerLen = off
			return length, true, nil
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return 0, false, fmt.Errorf("framing: malformed frame header line %q: want \"Name: value\"", clip(line))
		}
		if !equalFold(line[:colon], "content-length") {
			continue
		}
		value := trimBlank(line[colon+1:])
		n, err := r.parseLength(value)
		if err != nil {
			return 0, false, err
		}
		if have && n != length {
			return 0, false, fmt.Errorf("framing: frame header has two different Content-Lengths, %q and %q",
				lengthText, clip(value))
		}
		have, length, lengthText = true, n, value
	}
}

// parseLength parses a Content-Length value: decimal digits, at most
// MaxFrameSize. It stops at the first digit past the bound, so no value
// overflows.
func (r *Reader) parseLength(v []byte) (int, error) {
	limit := r.opts.maxFrameSize()
	if len(v) == 0 {
		return 0, errors.New("framing: empty Content-Length")
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("framing: malformed Content-Length %q: want a non-negative decimal number of bytes", clip(v))
		}
		n = n*10 + int(c-'0')
		if n > limit {
			return 0, fmt.Errorf("framing: Content-Length %s is more than the maximum frame size of %d bytes (Options.MaxFrameSize)",
				clip(v), limit)
		}
	}
	return n, nil
}

// readBody reads the rest of the body in progress: first what the window
// holds, then straight from src into the body, which grows as bytes arrive.
func (r *Reader) readBody() error {
	if take := min(r.want-len(r.body), r.w-r.r); take > 0 {
		r.body = append(r.body, r.buf[r.r:r.r+take]...)
		r.r += take
	}
	for empty := 0; len(r.body) < r.want; {
		if len(r.body) == cap(r.body) {
			grown := make([]byte, len(r.body), min(2*cap(r.body), r.want))
			copy(grown, r.body)
			r.body = grown
		}
		err := r.srcErr
		r.srcErr = nil
		if err == nil {
			var n int
			n, err = r.src.Read(r.body[len(r.body):cap(r.body)])
			if n < 0 || n > cap(r.body)-len(r.body) {
				return r.fail(fmt.Errorf("framing: reader returned an invalid count %d", n))
			}
			r.body = r.body[:len(r.body)+n]
			if n > 0 {
				r.srcErr, empty = err, 0
				continue
			}
			if err == nil {
				if empty++; empty == 100 {
					return io.ErrNoProgress
				}
				continue
			}
		}
		if err == io.EOF {
			r.srcErr = io.EOF
			return r.fail(fmt.Errorf("framing: input ended in a frame body after %d of %d bytes (%d missing): %w",
				len(r.body), r.want, r.want-len(r.body), io.ErrUnexpectedEOF))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// clip shortens p for an error message.
func clip(p []byte) []byte {
	if len(p) > junkSample {
		return p[:junkSample]
	}
	return p
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether p starts with prefix (lower case) in any
// case.
func hasPrefixFold(p []byte, prefix string) bool {
	if len(p) < len(prefix) {
		return false
	}
	return equalFold(p[:len(prefix)], prefix)
}

// equalFold reports whether p equals s (lower case) in any case.
func equalFold(p []byte, s string) bool {
	if len(p) != len(s) {
		return false
	}
	for i := range p {
		if lower(p[i]) != s[i] {
			return false
		}
	}
	return true
}

func trimBlank(p []byte) []byte {
	for len(p) > 0 && (p[0] == ' ' || p[0] == '\t') {
		p = p[1:]
	}
	for len(p) > 0 && (p[len(p)-1] == ' ' || p[len(p)-1] == '\t') {
		p = p[:len(p)-1]
	}
	return p
}

// appendHeader appends the header of a frame of n bytes.
func appendHeader(dst []byte, n int) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, "\r\n\r\n"...)
}
