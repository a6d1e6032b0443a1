package locate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"strings"
	"unicode/utf8"

	"cchub/textfmt"
	"cchub/workspace"
)

// Read pages; the defaults keep one page inside the result bound.
const (
	DefaultReadLimit = 2000
	MaxLineChars     = textfmt.MaxLineChars // longer lines are cut, in read and grep alike
)

// ReadOptions says what Read shows.
type ReadOptions struct {
	// Path is a file or directory, relative to the root or absolute inside it.
	Path string `json:"path"`
	// Offset is the first line (or directory entry) to show, 1-based; 0 means 1.
	Offset int `json:"offset,omitempty"`
	// Limit is how many lines (or entries) to show; 0 means DefaultReadLimit.
	Limit int `json:"limit,omitempty"`
	// MaxBytes bounds the page's text (Text()): a page that would be
	// longer stops at the last whole line that fits, at least one, and its
	// footer names the offset that continues. 0 means no bound.
	MaxBytes int `json:"-"`
}

// ReadLine is one line of a file as shown.
type ReadLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
	// Chars is the line's full length in characters when Text was cut
	// at MaxLineChars; 0 when Text is the whole line.
	Chars int `json:"chars,omitempty"`
}

// ReadEntry is one entry of a directory listing.
type ReadEntry struct {
	Name  string `json:"name"`
	IsDir bool   `json:"is_dir,omitempty"`
	// Link is a symlink's target, as written in the link.
	Link string `json:"link,omitempty"`
	// Ignored says .gitignore ignores the entry: glob and grep skip it.
	Ignored bool `json:"ignored,omitempty"`
}

// ReadResult is one page of a file (Lines) or of a directory listing
// (Entries).
type ReadResult struct {
	Path   string `json:"path"`
	IsDir  bool   `json:"is_dir,omitempty"`
	Offset int    `json:"offset"` // the first line or entry shown, 1-based
	// Total is the number of lines in the file, or entries in the directory.
	Total   int         `json:"total"`
	Lines   []ReadLine  `json:"lines,omitempty"`
	Entries []ReadEntry `json:"entries,omitempty"`
	// NextOffset is the offset that continues the reading; 0 when the
	// end was shown.
	NextOffset int `json:"next_offset,omitempty"`
	// CutAtBytes is the MaxBytes that ended the page before its limit;
	// 0 when it was not cut.
	CutAtBytes int `json:"cut_at_bytes,omitempty"`
	// InvalidUTF8Line is the first line shown that has bytes that are not
	// UTF-8 (shown as U+FFFD); 0 when there is none.
	InvalidUTF8Line int `json:"invalid_utf8_line,omitempty"`
	// DirIgnored says the directory itself is ignored by .gitignore.
	DirIgnored bool `json:"dir_ignored,omitempty"`
	// Content is the whole file as read from disk, when it was read whole
	// (not streamed): what a conversation has now seen of it.
	Content []byte `json:"-"`
}

// Read shows a page of a text file with line numbers, or lists a directory.
//
// Binary files are refused. A file over workspace.MaxFileBytes is refused
// unless the caller asks for a window (an offset or a limit), which is then
// read by streaming. Bytes that are not UTF-8 are shown as U+FFFD, with a
// note. A directory lists its entries (not .git or .cchub), marking those
// .gitignore ignores. A missing path suggests similarly named ones.
func Read(ctx context.Context, root *workspace.Root, opts ReadOptions) (*ReadResult, error) {
	if opts.Offset < 0 {
		return nil, fmt.Errorf("read: offset %d is negative; offsets are 1-based line numbers (0 or 1 reads from the start)", opts.Offset)
	}
	if opts.Limit < 0 {
		return nil, fmt.Errorf("read: limit %d is negative; give the number of lines to show, or 0 for %d", opts.Limit, DefaultReadLimit)
	}
	_, rel, st, err := root.ResolveExisting(ctx, opts.Path)
	if err != nil {
		return nil, err
	}
	offset, limit := max(opts.Offset, 1), opts.Limit
	if limit == 0 {
		limit = DefaultReadLimit
	}
	if st.IsDir() {
		res, err := readDir(ctx, root, rel, offset, limit)
		if err != nil {
			return nil, err
		}
		res.fit(opts.MaxBytes)
		return res, nil
	}

	if !st.Mode().IsRegular() {
		// Reading a named pipe would wait for a writer; a device may never end.
		return nil, fmt.Errorf("read: %s is not a regular file (%v); read shows files and directories", rel, st.Mode().Type())
	}
	var src io.Reader
	var whole []byte
	if st.Size() > workspace.MaxFileBytes {
		if opts.Offset == 0 && opts.Limit == 0 {
			_, err := root.ReadText(rel) // refuses with advice
			return nil, err
		}
		f, _, err := root.OpenRegular(rel)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		head := make([]byte, 8192)
		n, err := io.ReadFull(f, head)
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return nil, err
		}
		if workspace.IsBinary(head[:n]) {
			return nil, fmt.Errorf("%w: %s (%d bytes) is not text; cchub does not show binary content", workspace.ErrBinary, rel, st.Size())
		}
		src = io.MultiReader(bytes.NewReader(head[:n]), &ctxReader{ctx, f})
	} else {
		data, err := root.ReadText(rel)
		if err != nil && !errors.Is(err, workspace.ErrInvalidUTF8) {
			return nil, err
		}
		src, whole = bytes.NewReader(data), data
	}
	pg, err := pageLines(src, offset, limit)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	res, err := fileResult(rel, pg, offset)
	if err != nil {
		return nil, err
	}
	res.Content = whole
	res.fit(opts.MaxBytes)
	return res, nil
}

// fileResult turns a page of the file rel, read from offset, into a result.
func fileResult(rel string, pg page, offset int) (*ReadResult, error) {
	res := &ReadResult{Path: rel, Offset: offset, Total: pg.total, Lines: pg.lines, InvalidUTF8Line: pg.invalidAt}
	if pg.total == 0 {
		res.Offset = 0
		return res, nil
	}
	if offset > pg.total {
		return nil, fmt.Errorf("read: offset %d is past the end of %s, which has %s; its last lines: read path=%s offset=%d",
			offset, rel, plural(pg.total, "line", "lines"), rel, max(1, pg.total-99))
	}
	if last := offset + len(pg.lines) - 1; last < pg.total {
		res.NextOffset = last + 1
	}
	return res, nil
}

// Text is the page as a model reads it: a header that names the place
// shown, the lines ("N\ttext"), and a footer that says how to continue:
//
//	src/a.go:10-12 (of 5,120 lines)
//	10	func main() {
//	11		serve()
//	12	}
//	[continue with read path=src/a.go offset=13]
func (r *ReadResult) Text() string {
	if r.IsDir {
		return r.dirText()
	}
	if r.Total == 0 {
		return r.Path + " is empty (0 bytes).\n"
	}
	var b strings.Builder
	b.WriteString(r.header(r.Offset + len(r.Lines) - 1))
	for _, l := range r.Lines {
		b.WriteString(l.text())
	}
	b.WriteString(r.invalidNote(r.InvalidUTF8Line))
	b.WriteString(r.footer(r.NextOffset))
	return b.String()
}

// header names the lines shown, offset..last, as a place.
func (r *ReadResult) header(last int) string {
	return fmt.Sprintf("%s (of %s)\n", textfmt.Place(r.Path, r.Offset, last), plural(r.Total, "line", "lines"))
}

// text is the line as shown: "N\ttext\n", with a note when it was cut.
func (l ReadLine) text() string {
	var b strings.Builder
	t := l.Text
	if l.Chars > 0 {
		t += textfmt.LineCutNote(l.Chars)
	}
	textfmt.WriteLine(&b, l.Line, t)
	return b.String()
}

func (r *ReadResult) invalidNote(line int) string {
	if line <= 0 {
		return ""
	}
	return fmt.Sprintf("[note: %s has bytes that are not valid UTF-8 (first shown at %s); they are shown as \uFFFD]\n", r.Path, textfmt.Place(r.Path, line, line))
}

// footer says how to go on from next (0: the end was shown).
func (r *ReadResult) footer(next int) string {
	whole := "file"
	if r.IsDir {
		whole = "directory " + displayDir(r.Path)
	}
	switch {
	case next == 0:
		return "[end of " + whole + "]\n"
	case r.CutAtBytes > 0:
		return fmt.Sprintf("[stopped at the output limit of %s; continue with read path=%s offset=%d]\n", byteSize(r.CutAtBytes), r.Path, next)
	default:
		return fmt.Sprintf("[continue with read path=%s offset=%d]\n", r.Path, next)
	}
}

// fit ends the page early, at the last whole line (or entry) that keeps
// Text within maxBytes; it keeps at least one. The header and footer are
// reckoned with the numbers of the uncut page, which are never shorter.
func (r *ReadResult) fit(maxBytes int) {
	shown := len(r.Lines)
	if r.IsDir {
		shown = len(r.Entries)
	}
	if maxBytes <= 0 || shown <= 1 || len(r.Text()) <= maxBytes {
		return
	}
	last := r.Offset + shown - 1
	cut := *r
	cut.CutAtBytes = maxBytes
	budget := maxBytes
	if r.IsDir {
		budget -= len(cut.dirHeader()) + len(cut.dirFooter(last, last+1))
	} else {
		budget -= len(cut.footer(last + 1))
		budget -= len(cut.header(last)) + len(cut.invalidNote(r.InvalidUTF8Line))
	}
	keep := 0
	for ; keep < shown; keep++ {
		var n int
		if r.IsDir {
			n = len(r.Entries[keep].text())
		} else {
			n = len(r.Lines[keep].text())
		}
		if budget -= n; budget < 0 {
			break
		}
	}
	keep = max(keep, 1)
	if keep == shown {
		return
	}
	r.CutAtBytes = maxBytes
	r.NextOffset = r.Offset + keep
	if r.IsDir {
		r.Entries = r.Entries[:keep]
		return
	}
	r.Lines = r.Lines[:keep]
	if r.InvalidUTF8Line >= r.NextOffset {
		r.InvalidUTF8Line = 0
	}
}

// byteSize writes a size for a message: "48 KB" or "300 bytes".
func byteSize(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return textfmt.Thousands(n/1024) + " KB"
	}
	return plural(n, "byte", "bytes")
}

// page is one window of a file's lines.
type page struct {
	lines     []ReadLine
	total     int // lines in the whole file
	invalidAt int // first line in the window with bytes that are not UTF-8
}

// pageLines reads all of r and keeps lines offset..offset+limit-1 (1-based),
// each cut at MaxLineChars, counting the file's lines as it goes. A line
// ends at '\n'; a final line without one still counts, and a trailing
// '\r' is a line ending, not text. It holds at most one window in memory,
// so it serves files of any size.
func pageLines(r io.Reader, offset, limit int) (page, error) {
	var pg page
	end := offset + min(limit, math.MaxInt-offset) // first line past the window
	buf := make([]byte, 64<<10)
	line := 1       // the line being read
	var cur []byte  // its first bytes, when it is in the window
	chars := 0      // its length in characters
	var lastc byte  // its last byte
	var last byte   // the last byte read
	sawAny := false // the file has any bytes
	finish := func() {
		text, full := cur, chars
		if lastc == '\r' {
			full--
			text = textfmt.TrimCR(text)
		}
		if line == 1 {
			if t, ok := textfmt.CutBOM(text); ok {
				text = t
				full--
			}
		}
		l := ReadLine{Line: line}
		if full > MaxLineChars {
			text = cutChars(text, MaxLineChars)
			l.Chars = full
		}
		if utf8.Valid(text) {
			l.Text = string(text)
		} else {
			l.Text = strings.ToValidUTF8(string(text), "\uFFFD")
			if pg.invalidAt == 0 {
				pg.invalidAt = line
			}
		}
		pg.lines = append(pg.lines, l)
		cur, chars, lastc = cur[:0], 0, 0
	}
	for {
		n, err := r.Read(buf)
		b := buf[:n]
		if n > 0 {
			sawAny = true
			last = b[n-1]
		}
		for len(b) > 0 {
			switch {
			case line >= end:
				line += bytes.Count(b, []byte{'\n'})
				b = nil
			case line < offset:
				i := bytes.IndexByte(b, '\n')
				if i < 0 {
					b = nil
					continue
				}
				line++
				b = b[i+1:]
			default:
				i := bytes.IndexByte(b, '\n')
				seg := b
				if i >= 0 {
					seg = b[:i]
				}
				for _, c := range seg {
					if c&0xC0 != 0x80 {
						chars++
					}
					// Keep one character more than is shown: a BOM or a
					// '\r' line ending may not count.
					if chars <= MaxLineChars+1 {
						cur = append(cur, c)
					}
				}
				if len(seg) > 0 {
					lastc = seg[len(seg)-1]
				}
				if i < 0 {
					b = nil
					continue
				}
				finish()
				line++
				b = b[i+1:]
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return page{}, err
		}
	}
	pg.total = line - 1
	if sawAny && last != '\n' {
		pg.total = line
		if line >= offset && line < end {
			finish()
		}
	}
	return pg, nil
}

// cutChars returns the first n characters of b (counting rune starts).
func cutChars(b []byte, n int) []byte {
	seen := 0
	for i, c := range b {
		if c&0xC0 != 0x80 {
			if seen == n {
				return b[:i]
			}
			seen++
		}
	}
	return b
}

// ctxReader stops a long streamed read when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// readDir lists the entries of the directory rel.
func readDir(ctx context.Context, root *workspace.Root, rel string, offset, limit int) (*ReadResult, error) {
	des, err := root.ReadDir(rel)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	// Walking one level tells which entries .gitignore keeps; a walk that
	// visits nothing, not even the directory, means the directory itself
	// is ignored.
	kept := map[string]bool{}
	visited := false
	err = root.Walk(ctx, rel, func(p string, d fs.DirEntry) error {
		visited = true
		if p == rel {
			return nil
		}
		kept[p[strings.LastIndexByte(p, '/')+1:]] = true
		if d.IsDir() {
			return workspace.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := &ReadResult{Path: rel, IsDir: true, Offset: offset, DirIgnored: !visited}
	var all []ReadEntry
	for _, d := range des {
		name := d.Name()
		if name == ".git" || name == workspace.StateDir {
			continue
		}
		e := ReadEntry{Name: name, IsDir: d.IsDir()}
		if d.Type()&fs.ModeSymlink != 0 {
			e.Link, _ = root.Readlink(path.Join(rel, name))
			if st, err := root.Stat(path.Join(rel, name)); err == nil {
				e.IsDir = st.IsDir()
			}
		} else if visited && !kept[name] {
			e.Ignored = true
		}
		all = append(all, e)
	}
	res.Total = len(all)
	if len(all) == 0 {
		res.Offset = 0
		return res, nil
	}
	if offset > len(all) {
		return nil, fmt.Errorf("read: offset %d is past the end of directory %s, which has %s; its last entries: read path=%s offset=%d",
			offset, displayDir(rel), plural(len(all), "entry", "entries"), rel, max(1, len(all)-99))
	}
	stop := min(len(all), offset-1+limit)
	res.Entries = all[offset-1 : stop]
	if stop < len(all) {
		res.NextOffset = stop + 1
	}
	return res, nil
}

// dirText lists the entries, one a line, and ends with the footer files
// have, after the range shown:
//
//	[entries 1-2,000 of 3,100; continue with read path=src offset=2001]
func (r *ReadResult) dirText() string {
	var b strings.Builder
	if r.Total == 0 {
		return "Directory " + displayDir(r.Path) + " is empty.\n"
	}
	b.WriteString(r.dirHeader())
	for _, e := range r.Entries {
		b.WriteString(e.text())
	}
	b.WriteString(r.dirFooter(r.Offset+len(r.Entries)-1, r.NextOffset))
	return b.String()
}

// dirFooter is footer with the range of entries shown, offset..last.
func (r *ReadResult) dirFooter(last, next int) string {
	if r.Offset <= 1 && next == 0 {
		return fmt.Sprintf("[end of directory %s, %s]\n", displayDir(r.Path), plural(r.Total, "entry", "entries"))
	}
	return fmt.Sprintf("[entries %d-%d of %s; %s", r.Offset, last, textfmt.Thousands(r.Total), r.footer(next)[1:])
}

func (r *ReadResult) dirHeader() string {
	if r.DirIgnored {
		return fmt.Sprintf("[%s is ignored by .gitignore: glob and grep do not look inside it]\n", displayDir(r.Path))
	}
	return ""
}

// text is the entry as listed: its name, "/" for a directory, a link's
// target, and whether .gitignore ignores it.
func (e ReadEntry) text() string {
	s := e.Name
	if e.IsDir {
		s += "/"
	}
	if e.Link != "" {
		s += " -> " + e.Link
	}
	if e.Ignored {
		s += "  (ignored by .gitignore)"
	}
	return s + "\n"
}
