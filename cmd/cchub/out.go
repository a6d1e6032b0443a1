package main

import (
	"io"
	"sync"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"cchub/textfmt"
)

// What the CLI writes reaches a person's terminal as often as a pipe, and
// most of it quotes a repository, an agent, a language server or a
// database: file names, lines, symbols, titles, error messages. So the
// command's stdout and stderr (c.OutOrStdout, c.ErrOrStderr) are
// escaping writers: whatever a command writes there is shown as
// textfmt.VisibleLines shows it (line feeds and tabs kept, every other
// control character, bidirectional control and invalid byte written as
// an escape), whether or not the stream is a terminal. A command cannot
// forget it: it is where output goes unless the command asks otherwise.
//
// The exceptions are asked for by name: JSON (jsonOut, whose escapes
// leave every value as it was), the shell commands of
// `blast --tests-format commands` and the terminal's own drawing (the
// review prompt, the progress bar), which take the stream as it is (rawOut).

// visibleWriter escapes what is written to w: as textfmt.VisibleLines
// does, or as textfmt.VisibleJSON when json is set. A character split
// between two writes is held until the next one (or Flush) completes it.
type visibleWriter struct {
	mu   sync.Mutex
	w    io.Writer
	json bool
	held []byte // the start of a multi-byte character
}

func newTextWriter(w io.Writer) *visibleWriter { return &visibleWriter{w: w} }

func (v *visibleWriter) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	buf := append(v.held, p...)
	v.held = nil
	// A tail that may be the start of a character waits for the rest.
	if cut := incompleteTail(buf); cut < len(buf) {
		v.held = append([]byte(nil), buf[cut:]...)
		buf = buf[:cut]
	}
	if err := v.write(buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held partial character, escaped as the invalid bytes it
// then is.
func (v *visibleWriter) Flush() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	buf := v.held
	v.held = nil
	return v.write(buf)
}

func (v *visibleWriter) write(buf []byte) error {
	if len(buf) == 0 {
		return nil
	}
	s := string(buf)
	if v.json {
		s = textfmt.VisibleJSON(s)
	} else {
		s = textfmt.VisibleLines(s)
	}
	_, err := io.WriteString(v.w, s)
	return err
}

// incompleteTail is where the bytes of b that begin a UTF-8 character
// without its end start: len(b) when b ends with a whole character (or
// with bytes that can never be one).
func incompleteTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if b[i] >= 0xc0 && !utf8.FullRune(b[i:]) {
				return i
			}
			return len(b)
		}
	}
	return len(b)
}

// rawOut is the command's stdout as it is, for what must reach it byte for
// byte (shell input) or draws on the terminal itself (the review prompt);
// what was written through the escaping writer is flushed first. Every
// caller says why it needs it.
func rawOut(c *cobra.Command) io.Writer {
	out := c.OutOrStdout()
	if v, ok := out.(*visibleWriter); ok {
		v.Flush()
		return v.w
	}
	return out
}

// rawErr is rawOut for stderr (the progress bar draws there).
func rawErr(c *cobra.Command) io.Writer {
	w := c.ErrOrStderr()
	if v, ok := w.(*visibleWriter); ok {
		v.Flush()
		return v.w
	}
	return w
}

// writeJSON has write put JSON on the command's stdout through a writer
// that writes every control and bidirectional character and invalid byte
// left in it (encoding/json writes C1 controls, DEL and bidirectional
// controls as they are) as a JSON \u escape, so the JSON parses to the
// same values and a terminal shows them instead of obeying them.
func writeJSON(c *cobra.Command, write func(w io.Writer) error) error {
	v := &visibleWriter{w: rawOut(c), json: true}
	err := write(v)
	if ferr := v.Flush(); err == nil {
		err = ferr
	}
	return err
}
