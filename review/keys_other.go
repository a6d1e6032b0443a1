//go:build !unix

package review

import (
	"context"
	"io"
	"os"
	"syscall"
	"time"
)

// keyReader reads key presses on systems without poll(2). A goroutine
// does the blocking read; when the context ends first, that goroutine
// stays blocked until the next key, which is then lost.
type keyReader struct {
	ctx     context.Context
	f       *os.File
	buf     []byte
	pending chan readResult // non-nil while a read is in flight
}

type readResult struct {
	b   []byte
	err error
}

func newKeyReader(ctx context.Context, f *os.File, _ syscall.RawConn) (*keyReader, error) {
	return &keyReader{ctx: ctx, f: f}, nil
}

func (k *keyReader) close() {}

func (k *keyReader) fill(timeoutMillis int) error {
	if k.pending == nil {
		ch := make(chan readResult, 1)
		k.pending = ch
		go func() {
			b := make([]byte, 256)
			n, err := k.f.Read(b)
			ch <- readResult{b[:n], err}
		}()
	}
	var timeout <-chan time.Time
	if timeoutMillis >= 0 {
		t := time.NewTimer(time.Duration(timeoutMillis) * time.Millisecond)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case r := <-k.pending:
		k.pending = nil
		k.buf = append(k.buf, r.b...)
		if len(r.b) == 0 && r.err == nil {
			return io.EOF
		}
		if len(r.b) > 0 {
			return nil
		}
		return r.err
	case <-k.ctx.Done():
		return k.ctx.Err()
	case <-timeout:
		return errTimeout
	}
}
