//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

// ownerUID is the user who owns the file fi describes.
func ownerUID(fi fs.FileInfo) (int, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), true
	}
	return 0, false
}
