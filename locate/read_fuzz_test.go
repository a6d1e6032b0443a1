package locate

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// FuzzReadPaging checks read's paging arithmetic on random content, offset
// and limit, against a plain split of the content into lines: it never
// panics, it shows exactly the requested window clipped to the file, and
// its footer continues at the right offset. The reader is sometimes cut
// into one-byte or half-size reads, so lines cross read boundaries.
func FuzzReadPaging(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), 1, 2, uint8(0))
	f.Add([]byte("a\r\nb"), 2, 5, uint8(1))
	f.Add([]byte(""), 1, 1, uint8(0))
	f.Add([]byte("\n\n\n"), 3, 1, uint8(2))
	f.Add([]byte("\uFEFFx\ny"), 1, 0, uint8(1))
	f.Add([]byte("caf\xe9\n"+strings.Repeat("é", 2100)+"\r\n"), 2, 1, uint8(1))
	f.Fuzz(func(t *testing.T, content []byte, offset, limit int, chop uint8) {
		if offset < 1 || offset > 1<<20 || limit < 0 {
			return
		}
		if limit == 0 {
			limit = DefaultReadLimit
		}
		var r io.Reader = bytes.NewReader(content)
		switch chop % 3 {
		case 1:
			r = iotest.OneByteReader(r)
		case 2:
			r = iotest.HalfReader(r)
		}
		pg, err := pageLines(r, offset, limit)
		if err != nil {
			t.Fatal(err)
		}

		lines := strings.Split(string(content), "\n")
		if strings.HasSuffix(string(content), "\n") || len(content) == 0 {
			lines = lines[:len(lines)-1]
		}
		if pg.total != len(lines) {
			t.Fatalf("total %d, want %d", pg.total, len(lines))
		}
		first := offset - 1
		lo, hi := min(first, len(lines)), len(lines)
		if limit < hi-lo {
			hi = lo + limit
		}
		want := lines[lo:hi]
		if len(pg.lines) != len(want) {
			t.Fatalf("offset %d limit %d: %d lines shown, want %d", offset, limit, len(pg.lines), len(want))
		}
		for i, l := range pg.lines {
			if l.Line != offset+i {
				t.Fatalf("line %d numbered %d", offset+i, l.Line)
			}
			if w := shownLine(want[i], offset+i); l.Text != w.Text || l.Chars != w.Chars {
				t.Fatalf("line %d: %q (%d chars), want %q (%d)", l.Line, l.Text, l.Chars, w.Text, w.Chars)
			}
		}

		res, err := fileResult("f", pg, offset)
		// Some runs bound the page's bytes too: it may stop early, but
		// then at a whole line, and say where to go on.
		maxBytes := 0
		if chop >= 3 {
			maxBytes = int(chop) * 16
		}
		switch {
		case len(lines) == 0:
			if err != nil || !strings.Contains(res.Text(), "is empty") {
				t.Fatalf("empty file: %v", err)
			}
			return
		case offset > len(lines):
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("which has %d line", len(lines))) {
				t.Fatalf("offset past the end: %v", err)
			}
			return
		case err != nil:
			t.Fatal(err)
		}
		res.fit(maxBytes)
		text := res.Text()
		if len(res.Lines) < len(want) {
			if res.CutAtBytes != maxBytes || len(res.Lines) == 0 || maxBytes == 0 {
				t.Fatalf("%d of %d lines shown, cut at %d bytes (max %d)", len(res.Lines), len(want), res.CutAtBytes, maxBytes)
			}
			if len(res.Lines) > 1 && len(text) > maxBytes {
				t.Fatalf("page of %d lines is %d bytes, over %d", len(res.Lines), len(text), maxBytes)
			}
			want = want[:len(res.Lines)]
		}
		last := offset + len(want) - 1
		header := fmt.Sprintf("f:%d-%d (of %d line", offset, last, len(lines))
		if last == offset {
			header = fmt.Sprintf("f:%d (of %d line", offset, len(lines))
		}
		footer := "[end of file]\n"
		if last < len(lines) {
			footer = fmt.Sprintf("continue with read path=f offset=%d]\n", last+1)
			if res.NextOffset != last+1 {
				t.Fatalf("next offset %d, want %d", res.NextOffset, last+1)
			}
		}
		if !strings.HasPrefix(text, header) || !strings.HasSuffix(text, footer) {
			t.Fatalf("header %q, footer %q: not in\n%s", header, footer, text)
		}
		if got := strings.Count(text, "\n"); got < len(want)+2 {
			t.Fatalf("%d text lines for %d shown lines", got, len(want))
		}
	})
}

// shownLine is how read shows one line, stated plainly: the line ending's
// '\r' and the first line's BOM are not text, more than MaxLineChars
// characters are cut, and bytes that are not UTF-8 become U+FFFD.
func shownLine(raw string, n int) ReadLine {
	raw = strings.TrimSuffix(raw, "\r")
	if n == 1 {
		raw = strings.TrimPrefix(raw, "\uFEFF")
	}
	l := ReadLine{Line: n}
	chars := 0
	for i := 0; i < len(raw); i++ {
		if raw[i]&0xC0 != 0x80 {
			chars++
		}
	}
	if chars > MaxLineChars {
		l.Chars = chars
		raw = string(cutChars([]byte(raw), MaxLineChars))
	}
	if utf8.ValidString(raw) {
		l.Text = raw
	} else {
		l.Text = strings.ToValidUTF8(raw, "\uFFFD")
	}
	return l
}
