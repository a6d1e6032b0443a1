package unidiff

import (
	"fmt"
	"strconv"
	"strings"
)

// maxLine bounds the numbers a hunk header may hold: no file a diff is
// made of has more lines, and sums of two of them stay far from
// overflowing.
const maxLine = 1 << 30

// state is what the parser expects of the next line.
type state uint8

const (
	outside   state = iota // before the first file: any text (a commit message, say)
	inHeader               // a file's header: git's extended lines, ---/+++, then hunks
	afterHunk              // after a hunk's body: another hunk, or the next file
	afterText              // after a line that belongs to no hunk: only the next file
	inBinary               // git's binary patch data, up to the next file
)

type parser struct {
	lines []string
	// unterminated: the text's last line has no line end.
	unterminated bool
	files        []File
	problems     []Problem
}

// Parse reads text as a unified diff: git diff's output (any number of
// files and context lines, renames, copies, binary files, quoted paths)
// or diff -u's. Text before the first file header is passed over, as are
// lines after a hunk that are not part of the next file. Everything else
// that does not read as a diff is a Problem; what could be read is in
// the Patch all the same.
func Parse(text string) Patch {
	p := parser{}
	if text != "" {
		p.lines = strings.Split(text, "\n")
		if p.lines[len(p.lines)-1] == "" {
			p.lines = p.lines[:len(p.lines)-1]
		} else {
			p.unterminated = true
		}
	}
	p.run()
	p.checkPaths()
	return Patch{Files: p.files, Problems: p.problems}
}

func (p *parser) problem(line int, format string, args ...any) {
	p.problems = append(p.problems, Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) cur() *File { return &p.files[len(p.files)-1] }

func (p *parser) run() {
	st := outside
	for i := 0; i < len(p.lines); i++ {
		// Outside a hunk's body a CR is the diff's own line end.
		s := strings.TrimSuffix(p.lines[i], "\r")
		switch {
		case strings.HasPrefix(s, "diff --git "):
			p.files = append(p.files, File{Status: Modified})
			// A header whose paths cannot be told apart leaves them to the
			// lines that follow; a file that never names them is a problem.
			f := p.cur()
			f.OldPath, f.NewPath, _ = gitHeaderPaths(s[len("diff --git "):])
			st = inHeader
		case st == inBinary:
			// Base85 data lines start with a length letter: none reads as a
			// header.
		case st != inHeader && p.traditionalAt(i):
			p.traditional(i)
			i++
			st = inHeader
		case strings.HasPrefix(s, "@@"):
			var read bool
			i, read = p.hunk(i, s, st)
			i--
			switch {
			case read:
				st = afterHunk
			case st != outside:
				st = afterText
			}
		case st == inHeader:
			st = p.headerLine(s, i+1)
		case st == afterHunk && strings.TrimSpace(s) == "":
			// A blank line between hunks: the next header's counts say
			// where its body ends, so nothing is ambiguous.
		case st == afterHunk:
			st = afterText
		}
	}
}

// traditionalAt says whether line i starts a diff -u file: "--- ", "+++ "
// and a hunk header, as git apply requires (a malformed one included: it
// is then a problem of the file's, not text to pass over).
func (p *parser) traditionalAt(i int) bool {
	return i+2 < len(p.lines) && strings.HasPrefix(p.lines[i], "--- ") &&
		strings.HasPrefix(p.lines[i+1], "+++ ") && strings.HasPrefix(p.lines[i+2], "@@")
}

func (p *parser) traditional(i int) {
	p.files = append(p.files, File{Status: Modified})
	p.side(strings.TrimSuffix(p.lines[i], "\r"), i+1)
	p.side(strings.TrimSuffix(p.lines[i+1], "\r"), i+2)
}

// side reads a "--- " (old side) or "+++ " (new side) line.
func (p *parser) side(s string, line int) {
	old := s[0] == '-'
	prefix := "b/"
	if old {
		prefix = "a/"
	}
	path, err := sidePath(s[len("--- "):], prefix)
	if err != nil {
		p.problem(line, "%v", err)
		return
	}
	f := p.cur()
	switch {
	case old:
		f.OldPath = path
		if path == "" {
			f.Status = Added
		}
	default:
		f.NewPath = path
		if path == "" {
			f.Status = Deleted
		}
	}
}

// headerLine reads a line of a file's header. Lines it does not know
// (mode changes, similarity) are passed over, as git apply passes them.
func (p *parser) headerLine(s string, line int) state {
	f := p.cur()
	switch {
	case strings.HasPrefix(s, "--- "), strings.HasPrefix(s, "+++ "):
		p.side(s, line)
	case strings.HasPrefix(s, "new file mode "):
		f.Status, f.OldPath = Added, ""
	case strings.HasPrefix(s, "deleted file mode "):
		f.Status, f.NewPath = Deleted, ""
	case strings.HasPrefix(s, "rename from "), strings.HasPrefix(s, "copy from "):
		path, err := unquote(s[strings.Index(s, " from ")+len(" from "):])
		if err != nil {
			p.problem(line, "%v", err)
			break
		}
		f.OldPath, f.Status = path, Renamed
		if s[0] == 'c' {
			f.Status = Copied
		}
	case strings.HasPrefix(s, "rename to "), strings.HasPrefix(s, "copy to "):
		path, err := unquote(s[strings.Index(s, " to ")+len(" to "):])
		if err != nil {
			p.problem(line, "%v", err)
			break
		}
		f.NewPath = path
	case strings.HasPrefix(s, "index "):
		f.OldBlob, f.NewBlob = blobIDs(s[len("index "):])
	case strings.HasPrefix(s, "Binary files "):
		f.Binary = true
	case s == "GIT binary patch":
		f.Binary = true
		return inBinary
	}
	return inHeader
}

// hunk reads the hunk whose header s is line i, and its body. It returns
// the index of the first line after the body, and whether a hunk was read
// (a header that does not parse starts none).
func (p *parser) hunk(i int, s string, st state) (int, bool) {
	h, err := parseHunkHeader(s)
	if err != nil {
		if st != outside { // before any file, "@@" is text like any other
			p.problem(i+1, "%v", err)
		}
		return i + 1, false
	}
	switch st {
	case outside:
		p.problem(i+1, "a hunk header before any file header")
		p.files = append(p.files, File{Status: Modified})
	case afterText:
		p.problem(i+1, "a hunk header after text that is not part of a hunk")
	}
	f := p.cur()
	f.Hunks = append(f.Hunks, h)
	hk := &f.Hunks[len(f.Hunks)-1]
	oldN, newN := h.OldStart, h.NewStart
	oldLeft, newLeft := h.OldLines, h.NewLines
	j := i + 1
	for ; j < len(p.lines) && (oldLeft > 0 || newLeft > 0); j++ {
		l := p.lines[j]
		var line Line
		switch {
		case l != "" && l[0] == '-' && oldLeft > 0:
			line = Line{Kind: Delete, Old: oldN}
			oldN, oldLeft = oldN+1, oldLeft-1
		case l != "" && l[0] == '+' && newLeft > 0:
			line = Line{Kind: Add, New: newN}
			newN, newLeft = newN+1, newLeft-1
		case (l == "" || l[0] == ' ') && oldLeft > 0 && newLeft > 0:
			// "" is a context line whose space an editor or a mailer
			// stripped.
			line = Line{Kind: Context, Old: oldN, New: newN}
			oldN, newN, oldLeft, newLeft = oldN+1, newN+1, oldLeft-1, newLeft-1
		case l != "" && l[0] == '\\':
			markLast(hk)
			continue
		default:
			p.problem(j+1, "the hunk above it is %d old and %d new line(s) short", oldLeft, newLeft)
			return j, true // read the line again, as what it looks like
		}
		if l != "" {
			line.Text = l[1:]
		}
		hk.Lines = append(hk.Lines, line)
	}
	if oldLeft > 0 || newLeft > 0 {
		p.problem(0, "diff ends inside a hunk: %d old and %d new line(s) missing", oldLeft, newLeft)
	}
	for j < len(p.lines) && strings.HasPrefix(p.lines[j], `\`) {
		markLast(hk)
		j++
	}
	if j == len(p.lines) && p.unterminated {
		markLast(hk)
	}
	return j, true
}

// markLast records that the hunk's last line so far has no newline.
func markLast(h *Hunk) {
	if len(h.Lines) > 0 {
		h.Lines[len(h.Lines)-1].NoNewline = true
	}
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@ …".
func parseHunkHeader(s string) (Hunk, error) {
	h := Hunk{Header: s}
	rest, ok := strings.CutPrefix(s, "@@ -")
	if !ok {
		return h, fmt.Errorf("hunk header %q has no old range", clip(s))
	}
	oldR, rest, ok := strings.Cut(rest, " +")
	if !ok {
		return h, fmt.Errorf("hunk header %q has no new range", clip(s))
	}
	newR, section, ok := strings.Cut(rest, " @@")
	if !ok {
		return h, fmt.Errorf("hunk header %q does not close with @@", clip(s))
	}
	var err error
	if h.OldStart, h.OldLines, err = hunkRange(oldR); err != nil {
		return h, fmt.Errorf("hunk header %q: %v", clip(s), err)
	}
	if h.NewStart, h.NewLines, err = hunkRange(newR); err != nil {
		return h, fmt.Errorf("hunk header %q: %v", clip(s), err)
	}
	h.Section = strings.TrimSpace(section)
	return h, nil
}

// hunkRange reads "start[,count]"; a missing count is 1.
func hunkRange(r string) (start, count int, err error) {
	a, b, hasCount := strings.Cut(r, ",")
	if start, err = lineNumber(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if hasCount {
		if count, err = lineNumber(b); err != nil {
			return 0, 0, err
		}
	}
	if count > 0 && start == 0 {
		return 0, 0, fmt.Errorf("range %q starts at line 0", r)
	}
	return start, count, nil
}

func lineNumber(s string) (int, error) {
	if s == "" || len(s) > 10 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a line number", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > maxLine {
		return 0, fmt.Errorf("%q is not a line number", s)
	}
	return n, nil
}

// blobIDs reads "old..new [mode]" of an index line.
func blobIDs(s string) (string, string) {
	s, _, _ = strings.Cut(s, " ")
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		return "", ""
	}
	return a, b
}

// checkPaths finds the files whose paths do not fit what happened to
// them: every file names the side or sides it has.
func (p *parser) checkPaths() {
	for i := range p.files {
		f := &p.files[i]
		var ok bool
		switch f.Status {
		case Added:
			ok = f.OldPath == "" && f.NewPath != ""
		case Deleted:
			ok = f.OldPath != "" && f.NewPath == ""
		default:
			ok = f.OldPath != "" && f.NewPath != ""
		}
		if !ok {
			p.problem(0, "diff of %q: %s, but its paths are %q and %q", clip(f.OldPath+f.NewPath), f.Status, clip(f.OldPath), clip(f.NewPath))
		}
	}
}

// clip shortens text quoted in a problem.
func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
