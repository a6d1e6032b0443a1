package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"unicode/utf8"

	"cchub/textfmt"
)

// MaxFileBytes is the largest file Read will hand out as text. Larger files
// are refused with an error that points at grep and paged reads.
const MaxFileBytes = 10 << 20

// Errors that Read wraps, so callers can tell a user what to do instead.
var (
	ErrBinary      = errors.New("binary file")
	ErrTooLarge    = errors.New("file too large")
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
)

// BinaryHead is how much of a file's head IsBinary looks at.
const BinaryHead = 8 << 10

// IsBinary reports whether data looks binary: a NUL byte in its first 8 KiB,
// the same test git and ripgrep use.
func IsBinary(data []byte) bool {
	head := data
	if len(head) > BinaryHead {
		head = head[:BinaryHead]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// IsText says whether data is text as ReadText hands it out: at most
// MaxFileBytes, not binary, valid UTF-8.
func IsText(data []byte) bool {
	return len(data) <= MaxFileBytes && !IsBinary(data) && utf8.Valid(data)
}

// classifyText returns the error for data that a model cannot use as
// text: binary (with the data withheld), or invalid UTF-8 (with the data,
// for callers that show what they can).
func classifyText(rel string, data []byte) error {
	if IsBinary(data) {
		return fmt.Errorf("%w: %s (%d bytes) is not text; cchub does not show binary content", ErrBinary, rel, len(data))
	}
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:firstInvalidUTF8(data)], []byte{'\n'})
		return fmt.Errorf("%w: %s has bytes that are not UTF-8 (first at %s)", ErrInvalidUTF8, rel, textfmt.Place(rel, line, line))
	}
	return nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}
