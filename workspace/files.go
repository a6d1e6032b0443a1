package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
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

// IsBinary reports whether data looks binary: a NUL byte in its first 8 KiB,
// the same test git and ripgrep use.
func IsBinary(data []byte) bool {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	return bytes.IndexByte(head, 0) >= 0
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
		return fmt.Errorf("%w: %s has bytes that are not UTF-8 (first at %s)", ErrInvalidUTF8, rel, Place(rel, line, line))
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

// OpenStateDir opens <root>/.cchub/sub (sub may be "" for .cchub itself),
// creating it, and .cchub's own .gitignore ("*") so it never shows in git
// status. Everything cchub keeps is created and removed through the
// returned handle, which nothing in it can lead outside of; a state
// directory that is a symlink, or not a directory, is refused rather than
// followed. The caller closes the handle.
func (r *Root) OpenStateDir(sub string) (*os.Root, error) {
	top, err := os.OpenRoot(r.dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: open the root: %w", err)
	}
	defer top.Close()
	state, err := openRealDir(top, StateDir)
	if err != nil {
		return nil, err
	}
	if _, err := state.Lstat(".gitignore"); errors.Is(err, fs.ErrNotExist) {
		if err := state.WriteFile(".gitignore", []byte("*\n"), 0o644); err != nil {
			state.Close()
			return nil, fmt.Errorf("workspace: %s/.gitignore: %w", StateDir, err)
		}
	}
	if sub == "" {
		return state, nil
	}
	defer state.Close()
	return openRealDir(state, sub)
}

// openRealDir opens (making it if absent) the directory name in parent,
// refusing one that is a symlink or no directory.
func openRealDir(parent *os.Root, name string) (*os.Root, error) {
	show := filepath.Join(StateDir, name)
	if name == StateDir {
		show = StateDir
	}
	st, err := parent.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err := parent.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("workspace: create %s: %w", show, err)
		}
		st, err = parent.Lstat(name)
	}
	if err != nil {
		return nil, fmt.Errorf("workspace: %s: %w", show, err)
	}
	if !st.IsDir() {
		what := "is not a directory"
		if st.Mode()&fs.ModeSymlink != 0 {
			what = "is a symlink"
		}
		return nil, fmt.Errorf("workspace: %s %s; cchub keeps its state only in a real directory inside the root: remove it (it holds nothing but caches)", show, what)
	}
	d, err := parent.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("workspace: open %s: %w", show, err)
	}
	return d, nil
}
