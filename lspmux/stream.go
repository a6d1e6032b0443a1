package lspmux

import (
	"io"
	"log"

	"go.lsp.dev/jsonrpc2"

	"cchub/framing"
)

// newStream frames JSON-RPC messages over a server's stdout and stdin
// with cchub's one framing; what a server prints that is no frame (a
// banner before its first) is skipped and logged, never fatal.
func newStream(name string, stdout io.ReadCloser, stdin io.WriteCloser) jsonrpc2.Stream {
	return framing.NewStream(framing.Duplex(stdout, stdin), framing.Options{
		OnJunk: func(skipped []byte) { log.Printf("lspmux: %s wrote outside a frame: %.200q", name, skipped) },
	})
}
