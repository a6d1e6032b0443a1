package sharedhub

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// peer is the process at the other end of c, as the kernel says
// (SO_PEERCRED: for a connecting front, who connected; for the hub's
// socket, who listened).
type peer struct{ pid, uid int }

func peerOf(c *net.UnixConn) (peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return peer{}, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return peer{}, err
	}
	if credErr != nil {
		return peer{}, credErr
	}
	return peer{pid: int(cred.Pid), uid: int(cred.Uid)}, nil
}

// samePeer checks that the other end of c is a process of this user.
func samePeer(c *net.UnixConn) (peer, error) {
	p, err := peerOf(c)
	if err != nil {
		return p, fmt.Errorf("who is at the other end of the socket: %w", err)
	}
	if p.uid != os.Getuid() {
		return p, fmt.Errorf("the other end of the socket is uid %d (pid %d), not this user (uid %d)", p.uid, p.pid, os.Getuid())
	}
	return p, nil
}
