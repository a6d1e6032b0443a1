package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"cchub/textfmt"
)

// Every file operation of cchub goes through the root's directory handle:
// the path is resolved and opened in one step, relative to that handle,
// and the kernel (openat2 with RESOLVE_BENEATH on Linux) or os.Root
// refuses any step that leads out of the root. Resolve's check beforehand
// is for the error message; this is what holds when another process swaps
// a directory for a symlink between the check and the open.

// native turns a slash-separated path relative to the root into the name
// the root's handle takes.
func native(rel string) string {
	if rel == "" {
		return "."
	}
	return filepath.FromSlash(rel)
}

// inRoot runs op on rel through the root's handle. os.Root and openat2
// refuse every absolute symlink, even one that lands inside the root (some
// tools write links that way); such a path is retried once as the path its
// links resolve to, still through the handle, so a swap in between is
// refused rather than followed.
func inRoot[T any](r *Root, rel string, op func(name string) (T, error)) (T, error) {
	v, err := op(native(rel))
	if err == nil || !isEscape(err) {
		return v, err
	}
	real, e := evalExisting(filepath.Join(r.dir, native(rel)))
	if e != nil || !Within(r.dir, real) {
		var zero T
		return zero, fmt.Errorf("%s %w %s (a symlink leads out of it): %w", ShowArg(rel), ErrOutsideRoot, r.dir, err)
	}
	again, e := filepath.Rel(r.dir, real)
	if e != nil {
		var zero T
		return zero, err
	}
	return op(again)
}

// isEscape tells the refusals of a path that leaves the root: EXDEV from
// openat2's RESOLVE_BENEATH, and os.Root's "path escapes from parent"
// (an unexported error, so known by its words).
func isEscape(err error) bool {
	if errors.Is(err, syscall.EXDEV) || errors.Is(err, ErrOutsideRoot) {
		return true
	}
	return strings.Contains(err.Error(), "escapes from parent")
}

// Stat follows symlinks inside the root; one that leads out is an error.
func (r *Root) Stat(rel string) (fs.FileInfo, error) {
	return inRoot(r, rel, r.fsys.Stat)
}

// Lstat does not follow a final symlink.
func (r *Root) Lstat(rel string) (fs.FileInfo, error) {
	return inRoot(r, rel, r.fsys.Lstat)
}

// Readlink returns the target of the symlink at rel, as written.
func (r *Root) Readlink(rel string) (string, error) {
	return inRoot(r, rel, r.fsys.Readlink)
}

// ReadDir lists the directory at rel, sorted by name. Entries read before
// an error are returned with it.
func (r *Root) ReadDir(rel string) ([]fs.DirEntry, error) {
	des, held, err := r.readDirHeld(rel)
	held.Release()
	return des, err
}

// readDirHeld is ReadDir that keeps the directory open, held once for the
// caller (nil when it could not be opened).
func (r *Root) readDirHeld(rel string) ([]fs.DirEntry, *Dir, error) {
	d, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, nil, err
	}
	held := &Dir{f: d, fd: int(d.Fd()), abs: filepath.Join(r.dir, native(rel))}
	held.Hold()
	des, err := d.ReadDir(-1)
	sortEntries(des)
	return des, held, err
}

// OpenFile opens rel, relative to the root's handle, with flag (O_CLOEXEC
// is added; O_NOFOLLOW, if given, refuses a final symlink). It opens for
// reading only: every change goes through WriteFile and the functions
// beside it, which check where the change lands.
func (r *Root) OpenFile(rel string, flag int, perm fs.FileMode) (*os.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		return nil, fmt.Errorf("workspace: OpenFile %s opens for reading only; write with WriteFile", ShowArg(rel))
	}
	return inRoot(r, rel, func(name string) (*os.File, error) {
		return r.openBeneath(name, flag, perm)
	})
}

// ErrNotRegular is wrapped by the refusal of a named pipe, socket or
// device; such an error also counts as ErrBinary (it is not text).
var ErrNotRegular = errors.New("not a regular file")

type notRegularError struct {
	rel  string
	mode fs.FileMode
}

func (e *notRegularError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file; cchub reads and writes only regular files", e.rel, kindOf(e.mode))
}

func (e *notRegularError) Is(target error) bool {
	return target == ErrNotRegular || target == ErrBinary
}

func dirError(rel string) error {
	return fmt.Errorf("%s is a directory; read it to list its entries, or glob inside it", rel)
}

func tooLarge(rel string, size, max int64) error {
	return fmt.Errorf("%w: %s is %s bytes (limit %s)", ErrTooLarge, rel, textfmt.Thousands(int(size)), textfmt.Thousands(int(max)))
}

// OpenRegular opens rel for reading and returns it with its metadata, or an
// error if it is not a regular file. It never blocks: a named pipe is
// opened non-blocking and refused, and the check is made on what was opened,
// not on the name beforehand.
func (r *Root) OpenRegular(rel string) (*os.File, fs.FileInfo, error) {
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, st, dirError(rel)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, st, &notRegularError{rel, st.Mode()}
	}
	return f, st, nil
}

// ReadInto reads the regular file rel whole into buf (reused, grown as
// needed), refusing one larger than max.
func (r *Root) ReadInto(rel string, buf []byte, max int64) ([]byte, error) {
	o, err := r.OpenRead(rel, max)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	return o.ReadAll(buf)
}

// OpenRead opens the regular file rel for reading, refusing one larger
// than max bytes. It is grep's open, thousands of times a search: where
// the kernel allows, one openat2 beneath the root and one fstat, with no
// *os.File made.
func (r *Root) OpenRead(rel string, max int64) (Opened, error) {
	if o, done, err := r.openBeneathRead(rel, max); done {
		return o, err
	}
	return r.openPortable(rel, max)
}

// OpenReadAt is OpenRead of the file rel, listed as d in dir (the
// directory a WalkHeld gave with it, held): where the kernel allows, it
// is opened relative to dir, so that only its name is resolved, and never
// through a symlink that leads out of dir. Such a symlink, and a nil dir,
// take OpenRead's way, from the root.
func (r *Root) OpenReadAt(dir *Dir, d fs.DirEntry, rel string, max int64) (Opened, error) {
	if dir != nil {
		if o, done, err := r.openAtRead(dir, d, rel, max); done {
			return o, err
		}
	}
	return r.OpenRead(rel, max)
}

// openPortable is OpenRead through os.File, for where a raw descriptor
// cannot be used.
func (r *Root) openPortable(rel string, max int64) (Opened, error) {
	f, st, err := r.OpenRegular(rel)
	if err != nil {
		return Opened{}, err
	}
	if st.Size() > max {
		f.Close()
		return Opened{}, tooLarge(rel, st.Size(), max)
	}
	return Opened{rel: rel, size: st.Size(), max: max, src: f}, nil
}

// Opened is a regular file open for reading, with the size its stat gave
// at the open. ReadAll reads it whole; ReadMore reads it a buffer at a
// time, for a caller that looks at each piece while it is still in the
// CPU's cache and keeps no buffer the size of its largest file.
type Opened struct {
	rel string
	// size is what the stat said at the open; -1 when the open made no
	// stat (a file a walk listed as regular, where a short read is the
	// end: see shortReadsEnd), until a read that fills its room asks.
	size int64
	max  int64 // the most it may be read
	got  int64 // read so far
	src  interface {
		Read([]byte) (int, error)
		Close() error
	}
}

// Close closes the file.
func (o *Opened) Close() error { return o.src.Close() }

// ReadMore reads the next bytes of the file into buf's spare capacity (it
// grows buf when there is none) and returns buf with them appended. end
// says the file's end was reached: where the file's size is known, at
// that size when a read stops short of the room it had (no read more to
// be told so: a quarter of the system calls of a grep), and otherwise at
// EOF, so a file that grew or shrank since the stat, or whose stat says
// nothing (size 0: /proc), is read whole. A file opened with no stat ends
// at a short read. A file over the open's max, or one that grows past it
// while it is read, is an ErrTooLarge.
func (o *Opened) ReadMore(buf []byte) (_ []byte, end bool, err error) {
	if len(buf) == cap(buf) {
		buf = append(buf, 0)[:len(buf)]
	}
	want := cap(buf) - len(buf)
	n, err := o.src.Read(buf[len(buf):cap(buf)])
	if n > 0 {
		buf = buf[:len(buf)+n]
		o.got += int64(n)
	}
	switch {
	case err == io.EOF || (err == nil && n == 0):
		return buf, true, nil
	case err != nil:
		return buf, false, err
	case o.got > o.max:
		return buf, false, fmt.Errorf("%w: %s grew past %s bytes while it was read", ErrTooLarge, o.rel, textfmt.Thousands(int(o.max)))
	case o.size < 0 && n < want:
		return buf, true, nil
	case o.size < 0:
		// Its size is learnt once a read fills the room it had: a file
		// over max is refused before it is read whole.
		if o.size, err = o.stat(); err != nil {
			return buf, false, err
		}
	}
	return buf, o.size > 0 && o.got == o.size && n < want, nil
}

// ReadAll reads the rest of the file into buf (reused from its start,
// grown as needed).
func (o *Opened) ReadAll(buf []byte) ([]byte, error) {
	// One byte more than the size, so a file that grew since the stat is
	// read whole and the last read sees EOF; a file still growing is cut
	// at max.
	if rest := o.size - o.got + 1; rest > 0 && int64(cap(buf)) < rest {
		buf = make([]byte, 0, rest)
	}
	buf = buf[:0]
	for {
		var end bool
		var err error
		if buf, end, err = o.ReadMore(buf); err != nil {
			return nil, err
		}
		if end {
			return buf, nil
		}
	}
}

// ShowArg quotes a path an agent gave for an error message, cut to a
// length a message can carry: a 100,000-character path is not echoed.
func ShowArg(p string) string {
	const max = 200
	if len(p) > max {
		cut := max
		for cut > 0 && !isRuneStart(p[cut]) {
			cut--
		}
		return fmt.Sprintf("%q… (%s bytes)", p[:cut], textfmt.Thousands(len(p)))
	}
	return fmt.Sprintf("%q", p)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// parentOf splits rel into its directory and base name.
func parentOf(rel string) (dir, base string) {
	dir, base = path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	return dir, base
}

func sortEntries(des []fs.DirEntry) {
	slices.SortFunc(des, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}
