package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cchub/textfmt"
)

// StateDir is the folder, inside the root, where cchub keeps its database and
// spilled outputs. It is never walked and never shown.
const StateDir = ".cchub"

// Root is one workspace: an absolute, symlink-free directory that every path
// is confined to. The zero value is not usable; call Open.
type Root struct {
	dir    string   // absolute, symlinks evaluated
	fsys   *os.Root // every file operation goes through it (open.go)
	handle *os.File // the root directory, for openat2 (nil where unused)

	tracked TrackedFunc // asks git, for the state directory's choice (state.go)
	state   stateChoice // where cchub keeps its state, decided on first need
}

// Open returns the workspace rooted at dir.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: root %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: root %q does not exist or cannot be read: %w", dir, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace: root %q: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("workspace: root %q is a file; give the directory of the checkout", dir)
	}
	fsys, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workspace: root %q cannot be opened: %w", dir, err)
	}
	handle, err := openHandle(real)
	if err != nil {
		fsys.Close()
		return nil, fmt.Errorf("workspace: root %q cannot be opened: %w", dir, err)
	}
	return &Root{dir: real, fsys: fsys, handle: handle}, nil
}

// Close releases the root's directory handles. Files opened through it
// stay usable.
func (r *Root) Close() error {
	err := r.fsys.Close()
	if r.handle != nil {
		if e := r.handle.Close(); err == nil {
			err = e
		}
	}
	return err
}

// Dir is the absolute path of the root.
func (r *Root) Dir() string { return r.dir }

// ErrOutsideRoot is wrapped by every confinement refusal.
var ErrOutsideRoot = errors.New("is outside the workspace root")

// Resolve turns a path an agent gave (relative to the root, or absolute
// inside it) into an absolute path inside the root and its slash-separated
// relative form ("." for the root itself). The path need not exist, but if
// any existing part of it is a symlink, the link's target must stay inside.
func (r *Root) Resolve(p string) (abs, rel string, err error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", "", fmt.Errorf("path %s contains a NUL byte; give a plain path relative to the workspace root %s", ShowArg(p), r.dir)
	}
	if p == "" {
		p = "."
	}
	p = textfmt.UnquotePath(p)
	var joined string
	if filepath.IsAbs(p) {
		joined = filepath.Clean(p)
	} else {
		joined = filepath.Join(r.dir, p)
	}
	if !Within(r.dir, joined) {
		// An absolute path may name the root through a symlinked prefix
		// (e.g. /tmp vs /private/tmp); accept it if it resolves inside.
		if filepath.IsAbs(p) {
			if real, e := evalExisting(joined); e == nil && Within(r.dir, real) {
				joined = real
			} else {
				return "", "", r.outside(p)
			}
		} else {
			return "", "", r.outside(p)
		}
	}
	real, err := evalExisting(joined)
	if err != nil {
		return "", "", fmt.Errorf("path %s: %w", ShowArg(p), err)
	}
	if !Within(r.dir, real) {
		return "", "", fmt.Errorf("%s %w %s (a symlink leads out of it); give a path inside the root", ShowArg(p), ErrOutsideRoot, r.dir)
	}
	rel, err = filepath.Rel(r.dir, joined)
	if err != nil {
		return "", "", r.outside(p)
	}
	return joined, filepath.ToSlash(rel), nil
}

// Rel is the slash-separated path of abs relative to the root, for results.
func (r *Root) Rel(abs string) string {
	rel, err := filepath.Rel(r.dir, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

func (r *Root) outside(p string) error {
	return fmt.Errorf("%s %w %s; give a path relative to the root", ShowArg(p), ErrOutsideRoot, r.dir)
}

// Within says whether path p is root or below it (both clean and
// absolute, or both relative).
func Within(root, p string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// evalExisting evaluates symlinks in the longest existing prefix of p and
// re-appends the part that does not exist yet, so a file about to be
// created is judged by the directory it would land in.
func evalExisting(p string) (string, error) {
	var rest []string
	cur := p
	depth := 0
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A dangling symlink would be followed by a later write: judge
		// it by where it points, not by where it sits.
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, rerr := os.Readlink(cur)
			if rerr != nil {
				return "", rerr
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			for i := len(rest) - 1; i >= 0; i-- {
				target = filepath.Join(target, rest[i])
			}
			depth++
			if depth > 40 {
				return "", fmt.Errorf("too many levels of symbolic links")
			}
			cur, rest = target, nil
			continue
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}
