package workspace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

// openBeneathRead is OpenRead on a raw descriptor. done is false when the
// fast way does not apply (no openat2, or an absolute symlink that inRoot
// must judge), and the caller takes the portable way.
func (r *Root) openBeneathRead(rel string, max int64) (o Opened, done bool, err error) {
	if noOpenat2.Load() {
		return Opened{}, false, nil
	}
	return openRegular(int(r.handle.Fd()), native(rel), rel, max)
}

// openAtRead is openBeneathRead relative to a held directory: d's name is
// resolved beneath it.
func (r *Root) openAtRead(dir *Dir, d fs.DirEntry, rel string, max int64) (Opened, bool, error) {
	if noOpenat2.Load() {
		return Opened{}, false, nil
	}
	name := d.Name()
	if !d.Type().IsRegular() || !oneName(name) || !dir.shortReadsEnd() {
		return openRegular(dir.fd, name, rel, max)
	}
	// A file the walk listed as regular, one name in dir: opened with
	// plain openat and O_NOFOLLOW, which cannot leave dir (no slash, no
	// "..", no symlink followed) and costs the kernel less than openat2's
	// checks; and not stat'd, for where a short read is the end, its
	// size is not needed. A symlink swapped in since the walk is refused
	// (ELOOP), and then resolved beneath dir. Something else swapped in
	// cannot block or be taken for text: a directory fails its read, a
	// named pipe opened non-blocking gives what it holds or nothing, a
	// socket fails its open, and a device node needs a privilege to make.
	for {
		fd, err := openatName(dir.fd, d, readFlags|unix.O_NOFOLLOW)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.ELOOP:
			return openRegular(dir.fd, name, rel, max)
		case err != nil:
			return Opened{}, true, &fs.PathError{Op: "open", Path: rel, Err: err}
		}
		return Opened{rel: rel, size: -1, max: max, src: rawFile(fd)}, true, nil
	}
}

// oneName says name is one entry of a directory: no slash, not "." or
// "..". Opened relative to the directory with O_NOFOLLOW, it cannot lead
// out of it.
func oneName(name string) bool {
	return name != "." && name != ".." && name != "" && !strings.ContainsRune(name, '/')
}

// openatName is openat of d's name in dirfd; an entry readDirAt listed
// carries its name with the NUL the kernel wants, so none is made (ten
// thousand a grep).
func openatName(dirfd int, d fs.DirEntry, flags int) (int, error) {
	h, ok := d.(*heldDirent)
	if !ok {
		return unix.Openat(dirfd, d.Name(), flags, 0)
	}
	fd, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(unsafe.StringData(h.zname))), uintptr(flags), 0, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// localFS are the file systems on which a read of a regular file that
// stops short of the room it had is at the file's end: the kernel's
// page-cache read fills the room unless the file ends or the process is
// being killed (a signal that is not fatal does not cut it short, unlike
// getdents). Network and FUSE file systems may stop short for their own
// reasons, and /proc's files are read a page at a time.
var localFS = map[int64]bool{
	unix.EXT4_SUPER_MAGIC: true, unix.XFS_SUPER_MAGIC: true, unix.BTRFS_SUPER_MAGIC: true,
	unix.TMPFS_MAGIC: true, unix.OVERLAYFS_SUPER_MAGIC: true, unix.F2FS_SUPER_MAGIC: true,
	unix.BCACHEFS_SUPER_MAGIC: true, unix.SQUASHFS_MAGIC: true, unix.EROFS_SUPER_MAGIC_V1: true,
	0x2fc12fc1: true, // ZFS
}

// shortReadsEnd says whether the directory is on one of localFS, asked
// once per directory.
func (d *Dir) shortReadsEnd() bool {
	switch d.ends.Load() {
	case 1:
		return true
	case 2:
		return false
	}
	var st unix.Statfs_t
	var err error
	for {
		if err = unix.Fstatfs(d.fd, &st); err != unix.EINTR {
			break
		}
	}
	ok := err == nil && localFS[int64(st.Type)]
	if ok {
		d.ends.Store(1)
	} else {
		d.ends.Store(2)
	}
	return ok
}

// readFlags open a file to read it, never blocking on a named pipe (it is
// refused after the open) and never taking a terminal.
const readFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY

// openRegular opens name beneath the directory dirfd for reading; done is
// false when a symlink leads out of that directory (the caller judges it
// from the root).
func openRegular(dirfd int, name, rel string, max int64) (o Opened, done bool, err error) {
	how := unix.OpenHow{Flags: readFlags, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
	var fd int
	for {
		fd, err = unix.Openat2(dirfd, name, &how)
		if err != unix.EINTR && err != unix.EAGAIN {
			break
		}
	}
	switch {
	case err == unix.EXDEV:
		return Opened{}, false, nil
	case err != nil:
		return Opened{}, true, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	size, err := statRegular(fd, rel, max)
	if err != nil {
		unix.Close(fd)
		return Opened{}, true, err
	}
	return Opened{rel: rel, size: size, max: max, src: rawFile(fd)}, true, nil
}

// statRegular is the size of the file open at fd, or the error that
// refuses it: not a regular file, or larger than max.
func statRegular(fd int, rel string, max int64) (int64, error) {
	var st unix.Stat_t
	var err error
	for {
		if err = unix.Fstat(fd, &st); err != unix.EINTR {
			break
		}
	}
	switch {
	case err != nil:
		return 0, err
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		return 0, dirError(rel)
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return 0, &notRegularError{rel, modeType(st.Mode)}
	case st.Size > max:
		return 0, tooLarge(rel, st.Size, max)
	}
	return st.Size, nil
}

// stat is the size of a file opened with none (openAtRead), checked as an
// open with one checks it.
func (o *Opened) stat() (int64, error) {
	f, ok := o.src.(rawFile)
	if !ok {
		return 0, fmt.Errorf("workspace: %s was opened with no descriptor to stat", o.rel)
	}
	return statRegular(int(f), o.rel, o.max)
}

// rawFile reads a descriptor with no *os.File made for it (no poller
// registration, no finalizer): a grep opens ten thousand files.
type rawFile int

func (f rawFile) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(f), p)
		if err == unix.EINTR {
			continue
		}
		return max(n, 0), err
	}
}

func (f rawFile) Close() error { return unix.Close(int(f)) }

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
	if _, ok := e.(*heldDirent); ok || dir == nil {
		return e
	}
	return atEntry{e, dir}
}

type atEntry struct {
	fs.DirEntry
	dir *Dir
}

func (a atEntry) Info() (fs.FileInfo, error) {
	if fi, ok, err := lstatAt(a.dir, a.DirEntry.Name()); ok {
		return fi, err
	}
	return a.DirEntry.Info() // closed since: by its path
}

// lstatAt is the lstat of name in dir, relative to it; ok is false when
// dir has been closed.
func lstatAt(dir *Dir, name string) (_ fs.FileInfo, ok bool, _ error) {
	if !dir.tryHold() {
		return nil, false, nil
	}
	defer dir.Release()
	fi := &statInfo{name: name}
	for {
		// unix.Stat_t and syscall.Stat_t both mirror the kernel's struct
		// stat for the architecture: one is read into as the other, so
		// Sys gives what os's lstat gives.
		err := unix.Fstatat(dir.fd, name, (*unix.Stat_t)(unsafe.Pointer(&fi.st)), unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, true, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		return fi, true, nil
	}
}

// readDirAt is readDirHeld of the directory name in parent (a walk's,
// held; abs its path), opened relative to it with plain openat and
// O_NOFOLLOW (oneName, no symlink followed: it cannot leave parent) and
// listed with getdents into a buffer of its own: no path resolved from the
// root, no *os.File, and one allocation per entry fewer than os's listing.
// A directory whose path is too long to open from the root (PATH_MAX) is
// refused as that open refuses it: what the walk lists, every tool can
// then open by path.
func (r *Root) readDirAt(parent *Dir, name, rel, abs string) ([]fs.DirEntry, *Dir, error) {
	if parent == nil || noOpenat2.Load() || !oneName(name) || len(rel) >= unix.PathMax {
		return r.readDirHeld(rel)
	}
	var fd int
	var err error
	for {
		fd, err = unix.Openat(parent.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	d := &Dir{fd: fd, abs: abs}
	d.Hold()
	des, err := d.list()
	return des, d, err
}

// direntBufs are getdents buffers.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// list reads the directory's entries (not "." and ".."), sorted by name;
// those read before an error are returned with it.
func (d *Dir) list() ([]fs.DirEntry, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var ents []heldDirent
	var err error
	for {
		var n int
		n, err = unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		// Read until the kernel says the end, even after an answer that
		// left room: getdents stops early when a signal is pending (Go's
		// runtime sends them to preempt), with the rest still to come.
		ents = d.parseDirents(buf[:n], ents)
	}
	slices.SortFunc(ents, func(a, b heldDirent) int { return strings.Compare(a.name, b.name) })
	des := make([]fs.DirEntry, len(ents))
	for i := range ents {
		des[i] = &ents[i]
	}
	if err != nil {
		err = &fs.PathError{Op: "readdirent", Path: d.abs, Err: err}
	}
	return des, err
}

// parseDirents appends the entries of a getdents64 answer (struct
// linux_dirent64: inode, offset, record length, type, the name and its
// NUL) to ents.
func (d *Dir) parseDirents(buf []byte, ents []heldDirent) []heldDirent {
	const head = 19 // the name's offset in a record
	for len(buf) >= head {
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen < head || reclen > len(buf) {
			break // not a record: never from a kernel
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		name := rec[head:]
		i := bytes.IndexByte(name, 0)
		if i < 0 {
			break // no NUL: not a record
		}
		name = name[:i]
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		zname := string(rec[head : head+i+1])
		e := heldDirent{name: zname[:i], zname: zname, dir: d}
		switch rec[18] {
		case unix.DT_REG:
		case unix.DT_DIR:
			e.typ = fs.ModeDir
		case unix.DT_LNK:
			e.typ = fs.ModeSymlink
		case unix.DT_FIFO:
			e.typ = fs.ModeNamedPipe
		case unix.DT_SOCK:
			e.typ = fs.ModeSocket
		case unix.DT_CHR:
			e.typ = fs.ModeDevice | fs.ModeCharDevice
		case unix.DT_BLK:
			e.typ = fs.ModeDevice
		default: // DT_UNKNOWN: the file system does not say; lstat
			fi, _, err := lstatAt(d, e.name)
			if err != nil {
				continue // gone since it was listed
			}
			e.typ = fi.Mode().Type()
		}
		ents = append(ents, e)
	}
	return ents
}

// heldDirent is an entry readDirAt listed; Info is its lstat relative to
// the directory while the directory is open, and by its path after.
type heldDirent struct {
	name  string
	zname string // name and a NUL, for openat (name is its head)
	typ   fs.FileMode
	dir   *Dir
}

func (e *heldDirent) Name() string      { return e.name }
func (e *heldDirent) IsDir() bool       { return e.typ.IsDir() }
func (e *heldDirent) Type() fs.FileMode { return e.typ }
func (e *heldDirent) String() string    { return fs.FormatDirEntry(e) }
func (e *heldDirent) Info() (fs.FileInfo, error) {
	if fi, ok, err := lstatAt(e.dir, e.name); ok {
		return fi, err
	}
	return os.Lstat(filepath.Join(e.dir.abs, e.name))
}

// closeFD closes a Dir's raw descriptor.
func closeFD(fd int) { unix.Close(fd) }

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
