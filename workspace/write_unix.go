//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// linksOf is the number of hard links of the file st describes.
func linksOf(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}

// keepOwner gives tmp the owner and group of old, and reports false when
// that is not allowed (only root may give a file to another user): the
// caller then keeps old's inode instead of replacing it.
func keepOwner(tmp, old *os.File) (bool, error) {
	ost, err := old.Stat()
	if err != nil {
		return false, err
	}
	tst, err := tmp.Stat()
	if err != nil {
		return false, err
	}
	o, ok1 := ost.Sys().(*syscall.Stat_t)
	t, ok2 := tst.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 || (o.Uid == t.Uid && o.Gid == t.Gid) {
		return true, nil
	}
	err = tmp.Chown(int(o.Uid), int(o.Gid))
	if errors.Is(err, fs.ErrPermission) {
		return false, nil
	}
	return err == nil, err
}
