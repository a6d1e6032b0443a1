package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 proves unavailable (a kernel before 5.6,
// or a sandbox that filters it); os.Root then does the same job in more
// system calls.
var noOpenat2 atomic.Bool

// walkFlag opens a directory only to stat it and walk up from it, which
// needs no permission to read it.
const walkFlag = unix.O_PATH

// openBeneath opens name relative to the root in one system call that the
// kernel refuses to resolve outside it: no "..", absolute path or symlink
// may leave the root, whatever is swapped while the path is walked.
func (r *Root) openBeneath(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if noOpenat2.Load() {
		return r.fsys.OpenFile(name, flag, perm)
	}
	how := unix.OpenHow{
		Flags:   uint64(flag | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	if flag&os.O_CREATE != 0 {
		how.Mode = uint64(syscallMode(perm))
	}
	for {
		fd, err := unix.Openat2(int(r.handle.Fd()), name, &how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), filepath.Join(r.dir, name)), nil
		case err == unix.EINTR || err == unix.EAGAIN:
			continue // a rename raced the lookup: the kernel asks to retry
		}
		return nil, &fs.PathError{Op: "open", Path: filepath.ToSlash(name), Err: err}
	}
}

func syscallMode(perm fs.FileMode) uint32 {
	m := uint32(perm.Perm())
	if perm&fs.ModeSetuid != 0 {
		m |= syscall.S_ISUID
	}
	if perm&fs.ModeSetgid != 0 {
		m |= syscall.S_ISGID
	}
	if perm&fs.ModeSticky != 0 {
		m |= syscall.S_ISVTX
	}
	return m
}

// openHandle opens the directory handle openat2 resolves beneath.
func openHandle(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	h := os.NewFile(uintptr(fd), dir)
	// Probe openat2 once: a kernel before 5.6 lacks it (ENOSYS) and some
	// sandboxes filter it (EPERM).
	probe := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH}
	if pfd, err := unix.Openat2(fd, ".", &probe); err == nil {
		unix.Close(pfd)
	} else if err == unix.ENOSYS || err == unix.EPERM {
		noOpenat2.Store(true)
	}
	return h, nil
}

// readBeneath is ReadInto on a raw descriptor. done is false when the
// fast way does not apply (no openat2, or an absolute symlink that inRoot
// must judge), and the caller takes the portable way.
func (r *Root) readBeneath(rel string, buf []byte, max int64) (data []byte, done bool, err error) {
	if noOpenat2.Load() {
		return nil, false, nil
	}
	return readOpenat2(int(r.handle.Fd()), native(rel), rel, buf, max)
}

// readAt is readBeneath relative to a held directory: name is resolved
// beneath it.
func (r *Root) readAt(dir *Dir, name, rel string, buf []byte, max int64) ([]byte, bool, error) {
	if noOpenat2.Load() {
		return nil, false, nil
	}
	return readOpenat2(dir.fd, name, rel, buf, max)
}

// readOpenat2 opens name beneath the directory dirfd and reads it whole;
// done is false when a symlink leads out of that directory (the caller
// judges it from the root).
func readOpenat2(dirfd int, name, rel string, buf []byte, max int64) (data []byte, done bool, err error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	var fd int
	for {
		fd, err = unix.Openat2(dirfd, name, &how)
		if err != unix.EINTR && err != unix.EAGAIN {
			break
		}
	}
	switch {
	case err == unix.EXDEV:
		return nil, false, nil
	case err != nil:
		return nil, true, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, true, err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		return nil, true, dirError(rel)
	default:
		return nil, true, &notRegularError{rel, modeType(st.Mode)}
	}
	data, err = readAll(rel, st.Size, buf, max, func(p []byte) (int, error) {
		for {
			n, err := unix.Read(fd, p)
			if err == unix.EINTR {
				continue
			}
			if n < 0 {
				n = 0
			}
			return n, err
		}
	})
	return data, true, err
}

func modeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// heldEntry is a file's entry from a walk that holds its directory:
// Info takes the lstat relative to the directory (one name resolved, not
// the whole path: a third of the cost), while the directory is open.
func heldEntry(e fs.DirEntry, dir *Dir) fs.DirEntry {
	if dir == nil {
		return e
	}
	return atEntry{e, dir}
}

type atEntry struct {
	fs.DirEntry
	dir *Dir
}

func (a atEntry) Info() (fs.FileInfo, error) {
	if !a.dir.tryHold() {
		return a.DirEntry.Info() // closed since: by its path
	}
	defer a.dir.Release()
	name := a.DirEntry.Name()
	fi := &statInfo{name: name}
	for {
		// unix.Stat_t and syscall.Stat_t both mirror the kernel's struct
		// stat for the architecture: one is read into as the other, so
		// Sys gives what os's lstat gives.
		err := unix.Fstatat(a.dir.fd, name, (*unix.Stat_t)(unsafe.Pointer(&fi.st)), unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		return fi, nil
	}
}

// statInfo is an lstat's answer as a fs.FileInfo, as os makes it.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
