package syntax

import (
	"errors"
	"fmt"
)

// ErrTooBig is wrapped by the error of a file that is too large to parse:
// its tree would cost more memory than one file may. Callers skip such a
// file and say so (an outline names it, a search or an index lists it).
var ErrTooBig = errors.New("too large to parse")

// A tree-sitter tree costs memory per node, and a node is a token or a
// construct around tokens: its cost follows the tokens and lines of the
// source, not its bytes. Measured (peak RSS of one parse with smacker's
// go-tree-sitter; "estimate" is Size.TreeBytes):
//
//	file                                  bytes   lines    tokens  tree      estimate
//	GOROOT cmd/compile/.../ssa/opGen.go   3.0 MB   97,478   757k    56 MiB  163 MiB
//	GOROOT .../ssa/rewriteAMD64.go        1.9 MB   79,018   529k    69 MiB  119 MiB
//	GOROOT unicode/tables.go              244 KB    9,768    75k    12 MiB   16 MiB
//	GOROOT time/tzdata/zzipdata.go        1.4 MB        5   671k    41 MiB  102 MiB
//	Python 3.11 pydoc_data/topics.py      757 KB   15,711   168k    11 MiB   33 MiB
//	Python 3.11 test/test_typing.py       302 KB    8,550    70k    12 MiB   14 MiB
//	tree-sitter-rust's parser.c (C)       6.1 MB  192,503  1.34M   162 MiB  298 MiB
//	"x\n" repeated (Python)               2.0 MB    1.0 M   1.0 M  583 MiB  672 MiB
//	"x\n" repeated (Go)                   2.0 MB    1.0 M   1.0 M  674 MiB  672 MiB
//
// Real code costs 60-200 bytes a counted token (words in comments count
// but cost nothing); a line of its own adds a statement node or two (the
// last rows: ~600 bytes a one-token line), which is what made a file of
// one-character lines cost 300 times its size where real code costs
// 10-50. The estimate is on the high side for real code and close for
// such lines. A file whose estimate passes MaxTreeBytes is not parsed: a
// file of one-character lines is refused from about 1.6 MB, while every
// file above parses, and so does an amalgamation like sqlite3.c (9 MB,
// ~255k lines, estimated ~420 MiB).
const (
	costPerToken = 160
	costPerLine  = 512

	// MaxTreeBytes bounds the estimated memory of one file's tree.
	MaxTreeBytes = 512 << 20
	// MaxParseBytes bounds a parsed file's size whatever its content.
	MaxParseBytes = 32 << 20
)

// Size is what TooBig measured of a source.
type Size struct {
	Bytes, Lines, Tokens int
}

// TreeBytes is the estimated memory of the source's tree.
func (s Size) TreeBytes() int {
	return costPerToken*s.Tokens + costPerLine*s.Lines
}

// Measure counts the lines and (roughly: a word, a number or one
// punctuation byte each) the tokens of src, in one pass.
func Measure(src []byte) Size {
	s := Size{Bytes: len(src), Lines: 1}
	prevWord := false
	for _, b := range src {
		switch {
		case b == '\n':
			s.Lines++
			prevWord = false
		case b == ' ' || b == '\t' || b == '\r':
			prevWord = false
		case b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b >= 0x80:
			if !prevWord {
				s.Tokens++
			}
			prevWord = true
		default:
			s.Tokens++
			prevWord = false
		}
	}
	return s
}

// TooBigError says why a file is not parsed.
type TooBigError struct {
	Size
}

func (e *TooBigError) Error() string {
	if e.Bytes > MaxParseBytes {
		return fmt.Sprintf("too large to parse: %d MiB (at most %d MiB are parsed)", e.Bytes>>20, MaxParseBytes>>20)
	}
	return fmt.Sprintf("too large to parse: %d lines, about %d tokens, its tree would take about %d MiB (at most %d MiB)",
		e.Lines, e.Tokens, e.TreeBytes()>>20, MaxTreeBytes>>20)
}

func (e *TooBigError) Unwrap() error { return ErrTooBig }

// TooBig returns a *TooBigError (wrapping ErrTooBig) when src is too
// large to parse, nil otherwise. Every parse of a file goes through it:
// the parse cache and ParseOnce refuse such a source too, and the callers
// check first to skip the file with their own words.
func TooBig(src []byte) error {
	if len(src) > MaxParseBytes {
		return &TooBigError{Size{Bytes: len(src)}}
	}
	s := Measure(src)
	if s.TreeBytes() > MaxTreeBytes {
		return &TooBigError{s}
	}
	return nil
}
