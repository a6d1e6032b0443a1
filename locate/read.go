package locate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"cchub/workspace"
)

// Read pages; the defaults keep one page inside the result bound.
const (
	DefaultReadLimit = 2000
	MaxLineChars     = 2000 // longer lines are cut, in read and grep alike
)

// ReadDescription says what read does, for a tool description.
const ReadDescription = "Read a text file with line numbers, a page at a time: `offset` is the first line " +
	"(1-based), `limit` the number of lines (default 2000); lines over 2000 characters are cut. The last " +
	"line says how to continue. On a directory, lists its entries (directories end in /, entries " +
	".gitignore ignores are marked). Binary files are refused; a file over 10 MiB needs an offset or limit."

// ReadOptions says what Read shows.
type ReadOptions struct {
	// Path is a file or directory, relative to the root or absolute inside it.
	Path string `json:"path"`
	// Offset is the first line (or directory entry) to show, 1-based; 0 means 1.
	Offset int `json:"offset,omitempty"`
	// Limit is how many lines (or entries) to show; 0 means DefaultReadLimit.
	Limit int `json:"limit,omitempty"`
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
	abs, rel, st, err := resolveExisting(ctx, root, opts.Path)
	if err != nil {
		return nil, err
	}
	offset, limit := max(opts.Offset, 1), opts.Limit
	if limit == 0 {
		limit = DefaultReadLimit
	}
	if st.IsDir() {
		return readDir(ctx, root, abs, rel, offset, limit)
	}

	if !st.Mode().IsRegular() {
		// Reading a named pipe would wait for a writer; a device may never end.
		return nil, fmt.Errorf("read: %s is not a regular file (%v); read shows files and directories", rel, st.Mode().Type())
	}
	var src io.Reader
	var whole []byte
	if st.Size() > workspace.MaxFileBytes {
		if opts.Offset == 0 && opts.Limit == 0 {
			_, err := workspace.ReadText(abs, rel) // refuses with advice
			return nil, err
		}
		f, err := os.Open(abs)
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
		data, err := workspace.ReadText(abs, rel)
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
	if res != nil {
		res.Content = whole
	}
	return res, err
}

// fileResult turns a page of the file rel, read from offset, into a result.
func fileResult(rel string, pg page, offset int) (*ReadResult, error) {
	res := &ReadResult{Path: rel, Offset: offset, Total: pg.total, Lines: pg.lines, InvalidUTF8Line: pg.invalidAt}
	if pg.total == 0 {
		res.Offset = 0
		return res, nil
	}
	if offset > pg.total {
		return nil, fmt.Errorf("read: offset %d is past the end of %s, which has %s; read with an offset from 1 to %d",
			offset, rel, plural(pg.total, "line", "lines"), pg.total)
	}
	if last := offset + len(pg.lines) - 1; last < pg.total {
		res.NextOffset = last + 1
	}
	return res, nil
}

// Text is the page as a model reads it: numbered lines ("%6d\t%s") and a
// footer that says what was shown and how to continue.
func (r *ReadResult) Text() string {
	if r.IsDir {
		return r.dirText()
	}
	if r.Total == 0 {
		return r.Path + " is empty (0 bytes).\n"
	}
	var b strings.Builder
	for _, l := range r.Lines {
		fmt.Fprintf(&b, "%6d\t%s", l.Line, l.Text)
		if l.Chars > 0 {
			fmt.Fprintf(&b, " … [line cut: showing %s of %s chars]", thousands(MaxLineChars), thousands(l.Chars))
		}
		b.WriteByte('\n')
	}
	if r.InvalidUTF8Line > 0 {
		fmt.Fprintf(&b, "[note: %s has bytes that are not valid UTF-8 (first shown at line %d); they are shown as \uFFFD]\n", r.Path, r.InvalidUTF8Line)
	}
	b.WriteString(pageFooter("lines", "file", r.Offset, len(r.Lines), r.Total, "line", "lines"))
	return b.String()
}

func pageFooter(what, whole string, offset, shown, total int, one, many string) string {
	last := offset + shown - 1
	switch {
	case last < total:
		return fmt.Sprintf("[%s %d-%d of %d; continue with offset=%d]\n", what, offset, last, total, last+1)
	case offset <= 1:
		unit := many
		if total == 1 {
			unit = one
		}
		return fmt.Sprintf("[end of %s, %d %s]\n", whole, total, unit)
	default:
		return fmt.Sprintf("[%s %d-%d of %d; end of %s]\n", what, offset, last, total, whole)
	}
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
			if len(text) > 0 && text[len(text)-1] == '\r' {
				text = text[:len(text)-1]
			}
		}
		if line == 1 && bytes.HasPrefix(text, []byte("\uFEFF")) {
			text = text[3:]
			full--
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

// readDir lists the entries of the directory abs (rel from the root).
func readDir(ctx context.Context, root *workspace.Root, abs, rel string, offset, limit int) (*ReadResult, error) {
	des, err := os.ReadDir(abs)
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
			e.Link, _ = os.Readlink(filepath.Join(abs, name))
			if st, err := os.Stat(filepath.Join(abs, name)); err == nil {
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
		return nil, fmt.Errorf("read: offset %d is past the end of directory %s, which has %s; read with an offset from 1 to %d",
			offset, displayDir(rel), plural(len(all), "entry", "entries"), len(all))
	}
	stop := min(len(all), offset-1+limit)
	res.Entries = all[offset-1 : stop]
	if stop < len(all) {
		res.NextOffset = stop + 1
	}
	return res, nil
}

func (r *ReadResult) dirText() string {
	var b strings.Builder
	if r.Total == 0 {
		return "Directory " + displayDir(r.Path) + " is empty.\n"
	}
	if r.DirIgnored {
		fmt.Fprintf(&b, "[%s is ignored by .gitignore: glob and grep do not look inside it]\n", displayDir(r.Path))
	}
	for _, e := range r.Entries {
		b.WriteString(e.Name)
		if e.IsDir {
			b.WriteByte('/')
		}
		if e.Link != "" {
			b.WriteString(" -> " + e.Link)
		}
		if e.Ignored {
			b.WriteString("  (ignored by .gitignore)")
		}
		b.WriteByte('\n')
	}
	b.WriteString(pageFooter("entries", "directory "+displayDir(r.Path), r.Offset, len(r.Entries), r.Total, "entry", "entries"))
	return b.String()
}
