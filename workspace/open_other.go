//go:build !linux

package workspace

import (
	"io/fs"
	"os"
	"syscall"
)

// walkFlag opens a directory to stat it and walk up from it.
const walkFlag = syscall.O_RDONLY

// openBeneath opens name through os.Root, which walks the path one
// component at a time and refuses any step out of the root.
func (r *Root) openBeneath(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return r.fsys.OpenFile(name, flag, perm)
}

// openHandle: os.Root is the only handle needed here.
func openHandle(dir string) (*os.File, error) { return nil, nil }

// openBeneathRead: the portable way is the only way here.
func (r *Root) openBeneathRead(rel string, max int64) (Opened, bool, error) {
	return Opened{}, false, nil
}

// openAtRead: the portable way is the only way here.
func (r *Root) openAtRead(dir *Dir, d fs.DirEntry, rel string, max int64) (Opened, bool, error) {
	return Opened{}, false, nil
}

// stat: every file is opened with one here (openPortable).
func (o *Opened) stat() (int64, error) { return o.size, nil }

// heldEntry: the entry's own Info is the only way here.
func heldEntry(e fs.DirEntry, dir *Dir) fs.DirEntry { return e }

// shortReadsEnd: every file is opened with a stat here.
func (d *Dir) shortReadsEnd() bool { return false }

// readDirAt: the portable way, from the root, is the only way here.
func (r *Root) readDirAt(parent *Dir, name, rel, abs string) ([]fs.DirEntry, *Dir, error) {
	return r.readDirHeld(rel)
}

// closeFD: every Dir here has its *os.File.
func closeFD(fd int) {}
