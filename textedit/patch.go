package textedit

import (
	"errors"
	"fmt"
	"strings"

	"cchub/textfmt"
)

// The patch format coding agents write:
//
//	*** Begin Patch
//	*** Add File: path        then lines "+text"
//	*** Delete File: path
//	*** Update File: path     optionally "*** Move to: path", then hunks:
//	@@ [context line]         lines " ctx", "-old", "+new"; "*** End of File"
//	*** End Patch

// FileOpKind says what a patch does to one file.
type FileOpKind int

const (
	OpAdd FileOpKind = iota + 1
	OpDelete
	OpUpdate
)

// FileOp is one file's part of a patch.
type FileOp struct {
	Kind   FileOpKind
	Path   string
	MoveTo string   // Update only; "" keeps the path
	Lines  []string // Add only: the new file's lines
	Hunks  []Hunk   // Update only
	line   int      // where the op starts in the patch, for messages
}

// Hunk is a run of context, removed and added lines.
type Hunk struct {
	// Context is the text after "@@", a line to find before the hunk
	// (often a function signature); "" when absent.
	Context string
	Lines   []HunkLine
	// AtEOF says the hunk's old lines end the file.
	AtEOF bool
	line  int
}

// HunkLine is one line of a hunk: Op is ' ', '-' or '+'.
type HunkLine struct {
	Op   byte
	Text string
}

// ErrPatchSyntax is wrapped by every parse error.
var ErrPatchSyntax = errors.New("patch syntax")

const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File: "
	deleteFile = "*** Delete File: "
	updateFile = "*** Update File: "
	moveTo     = "*** Move to: "
	endOfFile  = "*** End of File"
)

// ParsePatch reads a patch. It is strict about structure (each error names
// the line and what was expected there) and tolerant of what models add
// around it: surrounding blank lines, CRLF, a heredoc wrapper.
func ParsePatch(text string) ([]FileOp, error) {
	lines := strings.Split(textfmt.ToLF(text), "\n")
	// Trim everything before Begin and after End (models wrap patches in
	// shell heredocs or prose).
	start, end := -1, -1
	for i, l := range lines {
		if strings.TrimSpace(l) == beginPatch && start < 0 {
			start = i
		}
		if strings.TrimSpace(l) == endPatch {
			end = i
		}
	}
	if start < 0 {
		if conv, isDiff := fromUnifiedDiff(textfmt.ToLF(text)); isDiff {
			return nil, &UnifiedDiffError{Converted: conv}
		}
		return nil, fmt.Errorf("%w: the patch must start with %q on a line of its own", ErrPatchSyntax, beginPatch)
	}
	if end < start {
		return nil, fmt.Errorf("%w: the patch must end with %q on a line of its own", ErrPatchSyntax, endPatch)
	}
	p := &patchParser{lines: lines[:end], i: start + 1}
	var ops []FileOp
	seen := map[string]int{}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if strings.TrimSpace(l) == "" {
			p.i++
			continue
		}
		op, err := p.fileOp()
		if err != nil {
			return nil, err
		}
		for _, path := range []string{op.Path, op.MoveTo} {
			if path == "" {
				continue
			}
			if prev, ok := seen[path]; ok {
				return nil, fmt.Errorf("%w: line %d: %s is touched again (first at line %d); put all of a file's changes in one section", ErrPatchSyntax, op.line, path, prev)
			}
			seen[path] = op.line
		}
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%w: the patch changes no file; add a section such as %q", ErrPatchSyntax, updateFile+"path")
	}
	return ops, nil
}

type patchParser struct {
	lines []string
	i     int
}

func (p *patchParser) errf(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrPatchSyntax, p.i+1, fmt.Sprintf(format, args...))
}

func (p *patchParser) fileOp() (FileOp, error) {
	l := p.lines[p.i]
	op := FileOp{line: p.i + 1}
	switch {
	case strings.HasPrefix(l, addFile):
		op.Kind, op.Path = OpAdd, strings.TrimSpace(l[len(addFile):])
		p.i++
		for p.i < len(p.lines) && !strings.HasPrefix(p.lines[p.i], "*** ") {
			t := p.lines[p.i]
			if !strings.HasPrefix(t, "+") {
				if strings.TrimSpace(t) == "" && p.blankToNextSection() {
					p.skipBlank()
					break
				}
				return op, p.errf("in %s, every line of an added file starts with '+'; got %q", op.Path, clip(t))
			}
			op.Lines = append(op.Lines, t[1:])
			p.i++
		}
	case strings.HasPrefix(l, deleteFile):
		op.Kind, op.Path = OpDelete, strings.TrimSpace(l[len(deleteFile):])
		p.i++
	case strings.HasPrefix(l, updateFile):
		op.Kind, op.Path = OpUpdate, strings.TrimSpace(l[len(updateFile):])
		p.i++
		if p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], moveTo) {
			op.MoveTo = strings.TrimSpace(p.lines[p.i][len(moveTo):])
			if op.MoveTo == "" {
				return op, p.errf("%q needs a path", strings.TrimSpace(moveTo))
			}
			p.i++
		}
		for p.i < len(p.lines) && !isFileHeader(p.lines[p.i]) {
			if strings.TrimSpace(p.lines[p.i]) == "" && p.blankToNextSection() {
				p.skipBlank()
				break
			}
			h, err := p.hunk(len(op.Hunks) == 0)
			if err != nil {
				return op, err
			}
			op.Hunks = append(op.Hunks, h)
		}
		if len(op.Hunks) == 0 && op.MoveTo == "" {
			return op, fmt.Errorf("%w: line %d: %s has no hunks; add lines starting with @@, ' ', '-' or '+'", ErrPatchSyntax, op.line, op.Path)
		}
	default:
		return op, p.errf("expected %q, %q or %q; got %q", strings.TrimSpace(addFile), strings.TrimSpace(deleteFile), strings.TrimSpace(updateFile), clip(l))
	}
	if op.Path == "" {
		return op, fmt.Errorf("%w: line %d: the file header needs a path", ErrPatchSyntax, op.line)
	}
	return op, nil
}

func isFileHeader(l string) bool {
	return strings.HasPrefix(l, addFile) || strings.HasPrefix(l, deleteFile) || strings.HasPrefix(l, updateFile)
}

// blankToNextSection says whether only blank lines lie between here and
// the next file header or the end of the patch: models put blank lines
// between sections, and they belong to no hunk.
func (p *patchParser) blankToNextSection() bool {
	for _, l := range p.lines[p.i:] {
		if strings.TrimSpace(l) != "" {
			return isFileHeader(l)
		}
	}
	return true
}

func (p *patchParser) skipBlank() {
	for p.i < len(p.lines) && strings.TrimSpace(p.lines[p.i]) == "" {
		p.i++
	}
}

// hunk reads one hunk; the first hunk of a file may omit its "@@" line.
func (p *patchParser) hunk(first bool) (Hunk, error) {
	h := Hunk{line: p.i + 1}
	l := p.lines[p.i]
	switch {
	case l == "@@" || strings.HasPrefix(l, "@@ "):
		h.Context = strings.TrimSpace(strings.TrimPrefix(l, "@@"))
		p.i++
	case !first:
		return h, p.errf("expected a hunk starting with @@; got %q", clip(l))
	}
	for p.i < len(p.lines) {
		t := p.lines[p.i]
		if t == endOfFile {
			h.AtEOF = true
			p.i++
			break
		}
		if isFileHeader(t) || t == "@@" || strings.HasPrefix(t, "@@ ") {
			break
		}
		if t == "" {
			// A blank context line whose leading space was lost, unless
			// only blank lines follow before the next section.
			if p.blankToNextSection() {
				break
			}
			h.Lines = append(h.Lines, HunkLine{' ', ""})
			p.i++
			continue
		}
		switch t[0] {
		case ' ', '-', '+':
			h.Lines = append(h.Lines, HunkLine{t[0], t[1:]})
		default:
			return h, p.errf("a hunk line starts with ' ' (context), '-' (remove) or '+' (add); got %q", clip(t))
		}
		p.i++
	}
	if len(h.Lines) == 0 {
		return h, fmt.Errorf("%w: line %d: empty hunk; give its lines, each starting with ' ', '-' or '+'", ErrPatchSyntax, h.line)
	}
	return h, nil
}

func clip(s string) string { return textfmt.Clip(s, 80) }
