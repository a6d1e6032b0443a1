package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"golang.org/x/term"
)

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	// Through SyscallConn rather than f.Fd(): Fd puts the descriptor in
	// blocking mode for good, which would take deadlines away from the
	// caller's file.
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	if err := rc.Control(func(fd uintptr) { ok = term.IsTerminal(int(fd)) }); err != nil {
		return false
	}
	return ok
}

// Prompt shows the change on a terminal and asks once per key press. in must be a terminal (it is put in raw mode
// with golang.org/x/term and restored on every return path, including panics and ctx cancel). If the rendered diff is
// taller than the screen (term.GetSize), it is paged: one screen at a time with a status line
// "-- lines 1-40 of 300 (13%) -- space: next page, b: back, enter: next line, q: skip to the question --";
// then it asks
//
//	Apply N changes to M files? [y]es / [n]o (discard) / [v]iew again / [q]uit (keep staged)
//
// reading ONE key (no Enter): y/Y → Apply, n/N → Discard, v/V → show the diff again (paged) and ask again,
// q/Q/Esc/Ctrl-C (byte 3)/Ctrl-D/EOF → Keep. Any other key: re-ask briefly saying which keys work.
// It prints what was decided on its own line ("applying…" is NOT its job; just return). Output uses \r\n while raw.
//
// Lines are truncated to the terminal's width, and colours are on unless
// NO_COLOR is set (https://no-color.org). The pager also takes PgDn, f
// and Ctrl-F (next page), PgUp and Ctrl-B (back), j and ↓ (next line),
// k and ↑ (previous line); Ctrl-C and Ctrl-D there return Keep at once.
// A cancelled ctx returns Keep with ctx.Err(); any error comes with Keep.
func Prompt(ctx context.Context, in *os.File, out io.Writer, c Change) (d Decision, err error) {
	if in == nil {
		return Keep, errors.New("review: no terminal to prompt on")
	}
	if err := ctx.Err(); err != nil {
		return Keep, err
	}
	rc, err := in.SyscallConn()
	if err != nil {
		return Keep, fmt.Errorf("review: %s: %w", in.Name(), err)
	}
	var (
		saved  *term.State
		rawErr error
	)
	if err := rc.Control(func(fd uintptr) {
		saved, rawErr = term.MakeRaw(int(fd))
		if rawErr == nil {
			flushInput(int(fd))
		}
	}); err != nil {
		return Keep, fmt.Errorf("review: %s: %w", in.Name(), err)
	}
	if rawErr != nil {
		return Keep, fmt.Errorf("review: %s is not a usable terminal: %w", in.Name(), rawErr)
	}
	// Deferred so that it also runs while a panic unwinds. If the
	// terminal cannot be restored the answer is dropped: the caller
	// should not go on writing files onto a broken terminal.
	defer func() {
		var rerr error
		if cerr := rc.Control(func(fd uintptr) { rerr = term.Restore(int(fd), saved) }); cerr != nil {
			rerr = cerr
		}
		if rerr != nil && err == nil {
			d, err = Keep, fmt.Errorf("review: restoring the terminal: %w", rerr)
		}
	}()

	keys, err := newKeyReader(ctx, in, rc)
	if err != nil {
		return Keep, fmt.Errorf("review: %w", err)
	}
	defer keys.close()

	p := &prompter{
		ctx:   ctx,
		rc:    rc,
		keys:  keys,
		out:   out,
		c:     c,
		color: os.Getenv("NO_COLOR") == "",
	}
	return p.run()
}

type prompter struct {
	ctx        context.Context
	rc         syscall.RawConn
	keys       *keyReader
	out        io.Writer
	c          Change
	color      bool
	rows, cols int // 0 when unknown: no paging, no truncation
}

func (p *prompter) run() (Decision, error) {
	for {
		d, toAsk, err := p.view()
		if err != nil || !toAsk {
			return d, err
		}
		d, again, err := p.ask()
		if !again || err != nil {
			return d, err
		}
	}
}

// size asks the terminal, every time the diff is shown, so that a
// window resized before "v" gets a diff that fits it.
func (p *prompter) size() {
	var cols, rows int
	var err error
	if cerr := p.rc.Control(func(fd uintptr) { cols, rows, err = term.GetSize(int(fd)) }); cerr != nil || err != nil {
		cols, rows = 0, 0
	}
	p.rows, p.cols = max(rows, 0), max(cols, 0)
}

func (p *prompter) write(s string) error {
	if _, err := io.WriteString(p.out, s); err != nil {
		return fmt.Errorf("review: writing to the terminal: %w", err)
	}
	return nil
}

// view shows the diff, paged when it does not fit on the screen with
// the question. toAsk is false when the pager already ended it (Ctrl-C,
// Ctrl-D, end of input, ctx): then d and err are the answer.
func (p *prompter) view() (d Decision, toAsk bool, err error) {
	p.size()
	lines := renderLines(p.c, p.color, p.cols)
	if p.rows < 2 || len(lines)+len(p.wrap(p.question())) <= p.rows {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l)
			b.WriteString("\r\n")
		}
		return Keep, true, p.write(b.String())
	}
	return p.page(lines)
}

// page shows lines one screen at a time, like more(1): going forward
// appends to what is on the screen (so the scrollback keeps it), going
// back clears the screen and redraws. It returns when the last line is
// on screen or on q, leaving the cursor at the start of an empty line.
func (p *prompter) page(lines []string) (Decision, bool, error) {
	height := p.rows - 1 // the last row is the status line
	total := len(lines)
	top, end := 0, 0

	var b strings.Builder
	forward := func(to int) {
		if end > 0 {
			b.WriteString("\r\x1b[K") // the status line becomes the next line
		}
		for _, l := range lines[end:to] {
			b.WriteString(l)
			b.WriteString("\r\n")
		}
		end = to
		top = max(end-height, 0)
	}
	redraw := func(from int) {
		top = from
		end = min(top+height, total)
		b.WriteString("\x1b[H\x1b[2J")
		for _, l := range lines[top:end] {
			b.WriteString(l)
			b.WriteString("\r\n")
		}
	}

	forward(min(height, total))
	for {
		if end >= total {
			return Keep, true, p.write(b.String())
		}
		// From column 1: after an ignored key this redraws the status
		// line in place instead of appending to it.
		b.WriteString("\r\x1b[K" + p.status(top, end, total))
		if err := p.write(b.String()); err != nil {
			return Keep, false, err
		}
		b.Reset()

		k, err := p.keys.next()
		if err != nil {
			b.WriteString("\r\x1b[K")
			d, err := p.ended(err)
			return d, false, errors.Join(err, p.write(b.String()+strings.TrimPrefix(p.decided(Keep, err), "\r\n")))
		}
		switch k {
		case ' ', 'f', keyCtrlF, keyPgDn:
			forward(min(end+height, total))
		case '\r', '\n', 'j', keyDown:
			forward(end + 1)
		case 'b', keyCtrlB, keyPgUp:
			redraw(max(top-height, 0))
		case 'k', keyUp:
			redraw(max(top-1, 0))
		case 'q', 'Q', keyEsc:
			b.WriteString("\r\x1b[K")
			return Keep, true, p.write(b.String())
		case keyCtrlC, keyCtrlD:
			b.WriteString("\r\x1b[K")
			return Keep, false, p.write(b.String() + strings.TrimPrefix(p.decided(Keep, nil), "\r\n"))
		}
		// Any other key is ignored: the status line says which work.
	}
}

// status is the pager's last line, shortened to fit narrow terminals
// (the key help goes first, the position last).
func (p *prompter) status(top, end, total int) string {
	pos := fmt.Sprintf("%d-%d of %d (%d%%)", top+1, end, total, end*100/total)
	s := "-- lines " + pos + " -- space: next page, b: back, enter: next line, q: skip to the question --"
	for _, short := range []string{
		"-- lines " + pos + " -- space, b, enter, q --",
		"-- lines " + pos + " --",
		fmt.Sprintf("-- %d-%d/%d --", top+1, end, total),
	} {
		if p.cols <= 0 || utf8.RuneCountInString(s) <= p.cols {
			break
		}
		s = short
	}
	return row{{sgrReverse, s}}.format(p.color, p.cols)
}

func (p *prompter) question() string {
	return "Apply " + p.subject() + "? [y]es / [n]o (discard) / [v]iew again / [q]uit (keep staged) "
}

// subject is what the question asks to apply: "3 changes to 2 files".
func (p *prompter) subject() string {
	if p.c.Matches <= 0 {
		return "the change to " + what(p.c, "to")
	}
	return what(p.c, "to")
}

// ask asks the question until a key answers it. again is true for v.
func (p *prompter) ask() (d Decision, again bool, err error) {
	prompt := strings.Join(p.wrap(p.question()), "\r\n")
	if err := p.write(prompt); err != nil {
		return Keep, false, err
	}
	for {
		k, err := p.keys.next()
		if err != nil {
			d, err := p.ended(err)
			return d, false, errors.Join(err, p.write(p.decided(d, err)))
		}
		switch k {
		case 'y', 'Y':
			return Apply, false, p.write(p.decided(Apply, nil))
		case 'n', 'N':
			return Discard, false, p.write(p.decided(Discard, nil))
		case 'v', 'V':
			return Keep, true, p.write("\r\n")
		case 'q', 'Q', keyEsc, keyCtrlC, keyCtrlD:
			return Keep, false, p.write(p.decided(Keep, nil))
		}
		hint := p.wrap("Press y to apply, n to discard, v to see the diff again, q to keep it staged.")
		short := p.wrap("Apply " + p.subject() + "? [y/n/v/q] ")
		if err := p.write("\r\n" + strings.Join(append(hint, short...), "\r\n")); err != nil {
			return Keep, false, err
		}
	}
}

// ended turns a read failure into the answer: end of input is a plain
// Keep (as if q), anything else is Keep with the error.
func (p *prompter) ended(err error) (Decision, error) {
	if errors.Is(err, io.EOF) {
		return Keep, nil
	}
	if p.ctx.Err() != nil {
		return Keep, p.ctx.Err()
	}
	return Keep, fmt.Errorf("review: reading the terminal: %w", err)
}

// decided is the line that says what was decided, after the question.
func (p *prompter) decided(d Decision, err error) string {
	var s row
	switch d {
	case Apply:
		s = row{{sgrGreen + sgrBold, "→ apply"}}
	case Discard:
		s = row{{sgrRed + sgrBold, "→ discard"}}
	default:
		why := ""
		if err != nil {
			why = " (" + clean(err.Error()) + ")"
		}
		s = row{{sgrBold, "→ keep staged" + why}}
	}
	return "\r\n" + s.format(p.color, p.cols) + "\r\n"
}

// wrap breaks a message at spaces so that no line is wider than the
// terminal; a word longer than a line is cut. A trailing space (where
// the cursor waits) is kept if it fits.
func (p *prompter) wrap(s string) []string {
	if p.cols <= 0 || utf8.RuneCountInString(s) <= p.cols {
		return []string{s}
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		for utf8.RuneCountInString(w) > p.cols {
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			lines = append(lines, firstRunes(w, p.cols))
			w = w[len(firstRunes(w, p.cols)):]
		}
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= p.cols:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if strings.HasSuffix(s, " ") && utf8.RuneCountInString(line) < p.cols {
		line += " "
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
