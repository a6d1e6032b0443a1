// Package framing is cchub's one implementation of Content-Length framing,
// the base protocol that LSP (language servers) and DAP (debug adapters)
// both speak over a child's stdin and stdout:
//
//	Content-Length: N\r\n
//	[Content-Type: ...\r\n]
//	\r\n
//	<N bytes of body>
//
// It has three layers. Reader and Writer move frames (bodies as bytes) over
// an io.Reader and an io.Writer and know nothing of what a body means. Conn
// puts the two over one io.ReadWriteCloser and adds contexts and Close; DAP
// (go-dap's codec) is meant to sit on it. Stream adapts a Conn to
// go.lsp.dev/jsonrpc2's Stream, so jsonrpc2.NewConn(framing.NewStream(rwc,
// opts)) talks JSON-RPC over it.
//
// What a peer may do, and what the Reader does about it:
//
//   - Bytes that are not a frame (a server printing "Starting server..." to
//     stdout) are skipped and handed to Options.OnJunk, a line at a time.
//     Before the first frame they are never fatal; between frames a run of
//     more than Options.MaxJunk bytes is an error, because by then the
//     stream is meant to be frames only and that much text means the reader
//     has lost its place. A header starts at the first "Content-Length:" or
//     "Content-Type:" (any case), even in the middle of a line, so text
//     printed without a line end does not hide the frame after it.
//   - Header names are matched in any case; headers other than
//     Content-Length are read and ignored. Lines may end in CRLF or a bare
//     LF.
//   - A Content-Length above Options.MaxFrameSize is refused before anything
//     is allocated, and a body is allocated as it arrives, never up front: a
//     peer that declares 60 MB and sends 10 bytes costs kilobytes.
//   - A negative, non-numeric, missing or contradictory Content-Length, a
//     header line without a colon, a header longer than MaxHeaderBytes, and
//     an end of input inside a frame (io.ErrUnexpectedEOF, saying how far
//     the frame got and, in a body, how many bytes were missing) are errors
//     that say what was wrong. A header's lines are checked once its blank
//     line has arrived. After one of
//     them the Reader is broken: every later call returns the same error,
//     since a reader that guessed where the next frame starts would deliver
//     garbage. The end of input between frames is io.EOF.
//   - Any other error of the underlying reader (a deadline, say) is returned,
//     wrapped, and loses nothing: the next ReadFrame continues the same
//     frame.
//
// Invariants: a Writer emits each frame with a single Write call under a
// lock, so concurrent writers never interleave; a frame that went out in
// part (its Write failed after some bytes) breaks the Writer for good,
// because the peer now holds a torn frame. A body returned by ReadFrame
// belongs to the caller. Every call after Close fails with an error that
// wraps ErrClosed (and so net.ErrClosed).
//
// Contexts: Conn.ReadFrame and Conn.WriteFrame (and so Stream.Read and
// Stream.Write) check their context before they start, and give up waiting
// for their turn when it ends. A call already blocked on the peer is
// interrupted by the context only when the transport has deadlines
// (net.Conn, *os.File pipes, a Duplex of them): Conn then sets a deadline in
// the past. Otherwise Close is what ends it, which is how jsonrpc2.Conn.Close
// stops its reader. An interrupted read loses nothing (the frame continues
// on the next call); an interrupted write that had sent part of its frame
// breaks the Conn for writing.
//
// Conn owns its transport: Close closes it, and Conn sets its deadlines.
// The package keeps no goroutine running: the only one it causes is
// context.AfterFunc's, which sets the deadline, and the call that armed it
// waits for it before returning.
//
// It does not interpret bodies (that is jsonrpc2's, or go-dap's), start
// processes, or know which language server or debug adapter is speaking:
// that is lspmux's and dapsession's business.
package framing
