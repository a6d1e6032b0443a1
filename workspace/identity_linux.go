package workspace

import "syscall"

// sysIdentity fills in what only the lstat's own record holds: ctime,
// inode and device.
func sysIdentity(sys any, id *Identity) {
	if st, ok := sys.(*syscall.Stat_t); ok {
		id.CTime = st.Ctim.Nano()
		id.Inode, id.Dev = uint64(st.Ino), uint64(st.Dev)
	}
}
