package sharedhub

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
)

// socketPair is two connected unix sockets.
func socketPair(t testing.TB) (*net.UnixConn, *net.UnixConn) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socketpair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c.(*net.UnixConn)
	}
	return conn(fds[0]), conn(fds[1])
}

// The front carries whatever a client sends byte for byte, malformed
// JSON, lines without an end and NUL bytes included, and whatever the hub
// answers back the same way: it reads ids, never changes a message.
func FuzzCarry(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`+"\n"), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"))
	f.Add([]byte("not json\n{\"id\":[1,2],\"method\":7}\n\x00\xff"), []byte("{\"id\":null}\n{broken"))
	f.Add([]byte(`{"id":"x","method":"tools/call"}`), []byte(""))
	f.Fuzz(func(t *testing.T, fromClient, fromHub []byte) {
		front, hub := socketPair(t)
		defer hub.Close()
		got := make(chan []byte, 1)
		go func() { // the hub: answers, then reads all the client sent
			hub.Write(fromHub)
			b, _ := io.ReadAll(hub)
			got <- b
			hub.Close()
		}()
		var out bytes.Buffer
		fr := &Front{}
		err := fr.Carry(context.Background(), Hello{Op: OpMCP}, front, bufio.NewReader(front), bytes.NewReader(fromClient), &out)
		if err != nil {
			t.Fatalf("Carry: %v", err)
		}
		if b := <-got; !bytes.Equal(b, fromClient) {
			t.Fatalf("the hub got %q, the client sent %q", b, fromClient)
		}
		// Whole lines of the hub reach the client as they were.
		whole := fromHub[:bytes.LastIndexByte(fromHub, '\n')+1]
		if !bytes.Equal(out.Bytes(), whole) {
			t.Fatalf("the client got %q, the hub sent %q", out.Bytes(), whole)
		}
	})
}
