package unidiff

import (
	"fmt"
	"strconv"
	"strings"
)

// Patch is a parsed diff: its files in order, and what in the text did not
// read as a diff.
type Patch struct {
	Files    []File
	Problems []Problem
}

// Err is the first problem, or nil when the whole text read as a diff.
func (p Patch) Err() error {
	if len(p.Problems) == 0 {
		return nil
	}
	return p.Problems[0]
}

// Problem is a place where the text is not a diff, or not a consistent one.
type Problem struct {
	Line int // 1-based line of the text; 0 when no one line is at fault
	Msg  string
}

func (p Problem) Error() string {
	if p.Line == 0 {
		return p.Msg
	}
	return fmt.Sprintf("diff line %d: %s", p.Line, p.Msg)
}

// Status says what a diff did to a file.
type Status uint8

const (
	Modified Status = iota
	Added
	Deleted
	Renamed
	Copied
)

func (s Status) String() string {
	switch s {
	case Modified:
		return "modified"
	case Added:
		return "added"
	case Deleted:
		return "deleted"
	case Renamed:
		return "renamed"
	case Copied:
		return "copied"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// File is one file of a diff.
type File struct {
	// OldPath and NewPath are the file's paths on each side, without git's
	// a/ and b/ prefixes and unquoted; "" where the side has no file
	// (/dev/null): OldPath of an added file, NewPath of a deleted one.
	OldPath, NewPath string
	Status           Status
	// OldBlob and NewBlob are the object ids of git's index line as
	// written (abbreviated unless git diff ran with --full-index), "" when
	// there is none.
	OldBlob, NewBlob string
	// Binary is set by "Binary files … differ" or "GIT binary patch":
	// the change has no hunks to read.
	Binary bool
	Hunks  []Hunk
}

// Hunk is one "@@ -OldStart,OldLines +NewStart,NewLines @@" and its lines:
// lines OldStart..OldStart+OldLines-1 of the old side became
// NewStart..NewStart+NewLines-1 of the new side. A side with no lines (a
// pure insertion or deletion) has the line before the change as its
// start, 0 at the top of the file, as git writes it.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	// Header is the header line as written (counts of 1 may be left out,
	// a heading may follow); Section is the heading after the closing @@,
	// trimmed: the function git found around the change.
	Header, Section string
	Lines           []Line
}

// Kind says which sides a line of a hunk is on.
type Kind uint8

const (
	Context Kind = iota // on both sides
	Delete              // on the old side only
	Add                 // on the new side only
)

// Op is the character that starts a line of the kind in a diff.
func (k Kind) Op() byte {
	switch k {
	case Delete:
		return '-'
	case Add:
		return '+'
	}
	return ' '
}

// Line is one line of a hunk.
type Line struct {
	Kind Kind
	// Text is the line without its leading op character and without the
	// diff's line end; a CR before it stays (a CRLF file's line end).
	Text string
	// Old and New are its 1-based line numbers on each side, 0 on the
	// side it is not on.
	Old, New int
	// NoNewline says the line is the last of its side and has no line
	// end: a "\ No newline at end of file" marker follows it, or, as git
	// apply reads it, it is the last line of a text that ends without one.
	NoNewline bool
}

// noNewlineMarker is what git and diff write after a line without a line
// end; any line starting with a backslash is read as one (the text is
// translated by some diff programs).
const noNewlineMarker = `\ No newline at end of file`

// String is the hunk in git's canonical form: both counts written, the
// section after the header, each line ending in "\n" and followed by the
// marker when it has no newline.
func (h *Hunk) String() string {
	var b strings.Builder
	n := 40 + len(h.Section)
	for _, l := range h.Lines {
		n += len(l.Text) + 2
	}
	b.Grow(n)
	b.WriteString("@@ -")
	b.WriteString(strconv.Itoa(h.OldStart))
	b.WriteByte(',')
	b.WriteString(strconv.Itoa(h.OldLines))
	b.WriteString(" +")
	b.WriteString(strconv.Itoa(h.NewStart))
	b.WriteByte(',')
	b.WriteString(strconv.Itoa(h.NewLines))
	b.WriteString(" @@")
	if h.Section != "" {
		b.WriteByte(' ')
		b.WriteString(h.Section)
	}
	b.WriteByte('\n')
	for _, l := range h.Lines {
		b.WriteByte(l.Kind.Op())
		b.WriteString(l.Text)
		b.WriteByte('\n')
		if l.NoNewline {
			b.WriteString(noNewlineMarker + "\n")
		}
	}
	return b.String()
}
