package lspmux

import (
	"io"

	"go.lsp.dev/jsonrpc2"
)

// newStream frames JSON-RPC messages over a server's stdio.
func newStream(rwc io.ReadWriteCloser) jsonrpc2.Stream { return jsonrpc2.NewStream(rwc) }
