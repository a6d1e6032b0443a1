package workspace

import (
	"io/fs"
	"time"
)

// Identity is what a file's lstat says of it that lets a reader trust
// the content it read before without reading it again: size, mtime,
// ctime, inode and device. It is the one rule of the project: the token
// index, the syntax it records, and the code graph keep a file's Identity
// beside the SHA-256 of what they read, and read the file again, to hash
// it, unless Same says nothing moved.
//
// Size and mtime alone are not enough: a same-size edit whose mtime is
// put back (cp -p, rsync -t, tar x, touch -r, all common) keeps both.
// ctime cannot be set from user space: every write and every change of
// mtime moves it to the present; and a file written anew and renamed
// over the old (rsync, tar, an editor's save) has another inode.
//
// The zero MTime or CTime is unknown, and an unknown Identity vouches for
// nothing: a file changed within RacyWindow of its read (Settled), a row
// kept before ctime was, or a system where this package cannot read ctime
// (identity_other.go: there every file is hashed each time).
type Identity struct {
	Size  int64
	MTime int64 // Unix nanoseconds; 0: unknown
	CTime int64 // Unix nanoseconds; 0: unknown
	Inode uint64
	Dev   uint64
}

// RacyWindow: a file changed this close to the time it was read may
// change again within the same tick of its times' clock (the kernel
// stamps ctime with a coarse clock) without its Identity showing it, so
// its Identity is not kept (Settled) and it is read again next time,
// until it has been still for longer (as git does).
const RacyWindow = 2 * time.Second

// IdentityOf is the Identity of the file info describes: an lstat's
// answer, or a Listing's entry.
func IdentityOf(info fs.FileInfo) Identity {
	if l, ok := info.(listedEntry); ok {
		return l.e.id
	}
	id := Identity{Size: info.Size(), MTime: info.ModTime().UnixNano()}
	sysIdentity(info.Sys(), &id)
	return id
}

// Known says whether id can vouch for a content at all.
func (id Identity) Known() bool { return id.MTime != 0 && id.CTime != 0 }

// Same says whether a file whose Identity is now holds, unread, the
// content read when its Identity was id: id known, and every field as it
// was.
func (id Identity) Same(now Identity) bool { return id.Known() && id == now }

// Settled is id as it may be kept for a content read after start (the
// time taken before the file was stat'ed): unknown when the file's mtime
// or ctime is within RacyWindow of start, or after it.
func (id Identity) Settled(start time.Time) Identity {
	if start.Sub(time.Unix(0, id.MTime)) < RacyWindow || start.Sub(time.Unix(0, id.CTime)) < RacyWindow {
		id.MTime, id.CTime = 0, 0
	}
	return id
}
