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

// readBeneath: the portable way is the only way here.
func (r *Root) readBeneath(rel string, buf []byte, max int64) ([]byte, bool, error) {
	return nil, false, nil
}

// readAt: the portable way is the only way here.
func (r *Root) readAt(dir *Dir, name, rel string, buf []byte, max int64) ([]byte, bool, error) {
	return nil, false, nil
}

// heldEntry: the entry's own Info is the only way here.
func heldEntry(e fs.DirEntry, dir *Dir) fs.DirEntry { return e }
