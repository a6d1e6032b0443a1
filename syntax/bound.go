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
// construct around tokens: its cost follows the tokens and statements of
// the source, not its bytes. Measured (peak RSS of one parse with
// smacker's go-tree-sitter; "estimate" is Size.TreeBytes):
//
//	file                                    bytes   lines    tokens  tree     estimate
//	GOROOT cmd/compile/.../ssa/opGen.go     3.0 MB   97,478   757k    56 MiB  163 MiB
//	GOROOT .../ssa/rewriteAMD64.go          1.9 MB   79,018   529k    69 MiB  119 MiB
//	GOROOT unicode/tables.go                244 KB    9,768    75k    12 MiB   16 MiB
//	GOROOT time/tzdata/zzipdata.go          1.4 MB        5   671k    41 MiB  102 MiB
//	Python 3.11 pydoc_data/topics.py        757 KB   15,711   168k    11 MiB   33 MiB
//	Python 3.11 test/test_typing.py         302 KB    8,550    70k    12 MiB   14 MiB
//	modernc.org/sqlite's sqlite_windows.go  5.4 MB  130,908   1.5M   188 MiB  295 MiB
//	perl's CORE/charclass_invlists.h (C)    4.5 MB  430,760   1.0M   149 MiB  367 MiB
//	tree-sitter-rust's parser.c (C)         6.1 MB  192,503   1.3M   162 MiB  298 MiB
//	"x\n" repeated (Python)                 2.0 MB    1.0 M   1.0M   583 MiB  672 MiB
//	"x\n" repeated (Go)                     2.0 MB    1.0 M   1.0M   674 MiB  672 MiB
//	"x;" repeated on one line (Python)      3.0 MB        1   3.0M   745 MiB 1190 MiB
//
// Real code costs 60-200 bytes a counted token (words in comments count
// but cost nothing); a statement of its own adds a node or two (the last
// rows: 500-600 bytes a one-token statement), which is what made a file of
// one-character lines cost 300 times its size where real code costs
// 10-50. The estimate is on the high side for real code and close for
// such files. A file whose estimate passes MaxTreeBytes is not parsed: a
// file of one-character lines is refused from about 1.6 MB, one of `x;`
// from about 1.3 MB, while every file above parses, and so would the
// sqlite3.c amalgamation (9 MB, ~255k lines; at sqlite3.h's 0.22 tokens a
// byte, an estimate of ~450 MiB).
const (
	costPerToken = 160
	costPerLine  = 512

	// MaxTreeBytes bounds the estimated memory of one file's tree.
	MaxTreeBytes = 512 << 20
	// MaxTreeRatio bounds it by the file's size too, above DenseFloor:
	// real code is estimated at 15 to 85 times its bytes (the table),
	// one-character lines at 336 times, so a hostile file just under
	// MaxTreeBytes cannot cost half a gigabyte, while a dense file of
	// data (one number a line) up to about 200 KB still parses.
	MaxTreeRatio = 128
	DenseFloor   = 64 << 20
	// MaxParseBytes bounds a parsed file's size whatever its content.
	MaxParseBytes = 32 << 20
)

// Size is what TooBig measured of a source.
type Size struct {
	Bytes, Lines, Tokens int
	// Ends counts where a statement may end: lines, and semicolons with
	// more on their line (`x;x;x;` is three statements on one line, and
	// cost as much as three lines; `f();` at the end of a line is one).
	Ends int
}

// TreeBytes is the estimated memory of the source's tree.
func (s Size) TreeBytes() int {
	return costPerToken*s.Tokens + costPerLine*s.Ends
}

// Measure counts the lines, the statement ends and (roughly: a word, a
// number or one punctuation byte each) the tokens of src, in one pass.
func Measure(src []byte) Size {
	s := Size{Bytes: len(src), Lines: 1, Ends: 1}
	prevWord, semi := false, false
	for _, b := range src {
		switch {
		case b == '\n':
			s.Lines++
			s.Ends++
			prevWord, semi = false, false
			continue
		case b == ' ' || b == '\t' || b == '\r':
			prevWord = false
			continue
		}
		if semi { // a semicolon with more after it on its line
			s.Ends++
			semi = false
		}
		switch {
		case b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b >= 0x80:
			if !prevWord {
				s.Tokens++
			}
			prevWord = true
		default:
			s.Tokens++
			prevWord = false
			semi = b == ';'
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
	if e.TreeBytes() <= MaxTreeBytes {
		return fmt.Sprintf("too large to parse (too dense): %d lines, about %d tokens in %d KiB, its tree would take about %d MiB (at most %d times the file's size past %d MiB)",
			e.Lines, e.Tokens, e.Bytes>>10, e.TreeBytes()>>20, MaxTreeRatio, DenseFloor>>20)
	}
	return fmt.Sprintf("too large to parse: %d lines, about %d tokens, its tree would take about %d MiB (at most %d MiB)",
		e.Lines, e.Tokens, e.TreeBytes()>>20, MaxTreeBytes>>20)
}

func (e *TooBigError) Unwrap() error { return ErrTooBig }

// TooBig returns a *TooBigError (wrapping ErrTooBig) when src is too
// large to parse, nil otherwise. Every parse of a file goes through it
// (the parse cache and ParseOnce refuse such a source with this error,
// wrapped), so a caller need not ask first: it tells the error apart with
// errors.As to skip the file in its own words.
func TooBig(src []byte) error {
	_, err := measured(src)
	return err
}

// measured is TooBig, and what it measured: one pass over src, which a
// parse takes too for what the tree will cost the cache.
func measured(src []byte) (Size, error) {
	if len(src) > MaxParseBytes {
		return Size{Bytes: len(src)}, &TooBigError{Size{Bytes: len(src)}}
	}
	s := Measure(src)
	if t := s.TreeBytes(); t > MaxTreeBytes || t > DenseFloor && t > MaxTreeRatio*s.Bytes {
		return s, &TooBigError{s}
	}
	return s, nil
}
