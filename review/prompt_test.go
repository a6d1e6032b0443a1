//go:build unix

package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

const patience = 10 * time.Second

// session is a pseudo-terminal with a reader that keeps everything the
// program under test writes to it, and, once run is called, a Prompt
// on its tty.
type session struct {
	t        *testing.T
	master   *os.File
	tty      *os.File
	before   *term.State
	cancel   context.CancelFunc
	ctx      context.Context
	res      chan result
	got      *result
	readDone chan struct{}

	mu     sync.Mutex
	raw    []byte
	notify chan struct{} // closed and replaced on every read
}

type result struct {
	d   Decision
	err error
}

// newSession opens a rows×cols pty. Cleanup cancels the Prompt, waits
// for it, closes both ends and waits for the reader.
func newSession(t *testing.T, rows, cols int) *session {
	t.Helper()
	t.Setenv("NO_COLOR", "") // colours on, whatever the environment says
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(tty, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
	// pty.Open leaves the master in blocking mode, where Close does not
	// interrupt a Read. A non-blocking copy does, so the reader always
	// ends.
	fd, err := unix.Dup(int(ptmx.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	ptmx.Close()
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	before, err := term.GetState(int(tty.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{
		t:        t,
		master:   os.NewFile(uintptr(fd), "ptmx"),
		tty:      tty,
		before:   before,
		ctx:      ctx,
		cancel:   cancel,
		readDone: make(chan struct{}),
		notify:   make(chan struct{}),
	}
	go s.read()
	t.Cleanup(s.close)
	return s
}

func (s *session) read() {
	defer close(s.readDone)
	buf := make([]byte, 4096)
	for {
		n, err := s.master.Read(buf)
		s.mu.Lock()
		s.raw = append(s.raw, buf[:n]...)
		close(s.notify)
		s.notify = make(chan struct{})
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (s *session) close() {
	s.cancel()
	if s.res != nil && s.got == nil {
		select {
		case <-s.res:
		case <-time.After(patience):
			s.t.Error("Prompt did not return after its context was cancelled")
		}
	}
	s.tty.Close()
	s.master.Close()
	<-s.readDone
}

// run starts Prompt(ctx, tty, tty, c).
func (s *session) run(c Change) {
	s.res = make(chan result, 1)
	go func() {
		d, err := Prompt(s.ctx, s.tty, s.tty, c)
		s.res <- result{d, err}
	}()
}

// result waits for Prompt's answer and checks that the terminal is as
// it was before.
func (s *session) result() (Decision, error) {
	s.t.Helper()
	d, err := s.answer()
	after, gerr := term.GetState(int(s.tty.Fd()))
	if gerr != nil {
		s.t.Fatal(gerr)
	}
	if !reflect.DeepEqual(s.before, after) {
		s.t.Errorf("terminal not restored:\nbefore %+v\nafter  %+v", s.before, after)
	}
	return d, err
}

// answer waits for Prompt's answer.
func (s *session) answer() (Decision, error) {
	s.t.Helper()
	if s.got == nil {
		select {
		case r := <-s.res:
			s.got = &r
		case <-time.After(patience):
			s.t.Fatalf("Prompt did not return; the screen:\n%s", s.text())
		}
	}
	return s.got.d, s.got.err
}

func (s *session) press(keys string) {
	s.t.Helper()
	if _, err := s.master.Write([]byte(keys)); err != nil {
		s.t.Fatal(err)
	}
}

// raw is all output so far; text is that without escape sequences.
func (s *session) rawOutput() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.raw)
}

func (s *session) text() string { return sgr.ReplaceAllString(s.rawOutput(), "") }

// waitFor waits until want is in text() after offset from and returns
// the offset just past it.
func (s *session) waitFor(want string, from int) int {
	s.t.Helper()
	deadline := time.NewTimer(patience)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ch := s.notify
		s.mu.Unlock()
		text := s.text()
		if from > len(text) {
			from = len(text)
		}
		if i := strings.Index(text[from:], want); i >= 0 {
			return from + i + len(want)
		}
		select {
		case <-ch:
		case <-deadline.C:
			s.t.Fatalf("no %q after offset %d within %v; the screen:\n%s", want, from, patience, text)
		}
	}
}

const question = "[v]iew again / [q]uit (keep staged)"

func small() Change {
	f1old := "package a\n\nfunc A() {\n\tfoo(1)\n}\n"
	f1new := "package a\n\nfunc A() {\n\tbar(1)\n}\n"
	f2old := "package b\n\nfunc B() { foo(2); foo(3) }\n"
	f2new := "package b\n\nfunc B() { bar(2); bar(3) }\n"
	return Change{
		ID:      "c7",
		Title:   "rewrite `foo($$$A)` → `bar($$$A)`",
		Matches: 3,
		Files: []File{
			{Path: "a/a.go", Diff: udiff.Unified("a/a/a.go", "b/a/a.go", f1old, f1new), Added: 1, Removed: 1, Status: "modified"},
			{Path: "b/b.go", Diff: udiff.Unified("a/b/b.go", "b/b/b.go", f2old, f2new), Added: 1, Removed: 1, Status: "modified"},
		},
	}
}

// big is a change whose diff has well over 100 lines, with long lines.
func big() Change {
	var old, new strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&old, "\tline %d of a file whose lines are long enough to be cut on a narrow screen: %s\n", i, strings.Repeat("x", i%50))
		if i%4 == 0 {
			fmt.Fprintf(&new, "\tLINE %d of a file whose lines are long enough to be cut on a narrow screen: %s\n", i, strings.Repeat("x", i%50))
		} else {
			fmt.Fprintf(&new, "\tline %d of a file whose lines are long enough to be cut on a narrow screen: %s\n", i, strings.Repeat("x", i%50))
		}
	}
	return Change{
		ID:      "big",
		Title:   "uppercase every fourth line",
		Matches: 30,
		Files: []File{{
			Path:   "pkg/with/a/long/path/big.txt",
			Diff:   udiff.Unified("a/big.txt", "b/big.txt", old.String(), new.String()),
			Status: "modified",
		}},
	}
}

func TestPromptKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  string
		want Decision
		says string
	}{
		{"y", "y", Apply, "→ apply"},
		{"Y", "Y", Apply, "→ apply"},
		{"n", "n", Discard, "→ discard"},
		{"N", "N", Discard, "→ discard"},
		{"q", "q", Keep, "→ keep staged"},
		{"Q", "Q", Keep, "→ keep staged"},
		{"Esc", "\x1b", Keep, "→ keep staged"},
		{"Ctrl-C", "\x03", Keep, "→ keep staged"},
		{"Ctrl-D", "\x04", Keep, "→ keep staged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, 40, 120)
			s.run(small())
			at := s.waitFor("Apply 3 changes to 2 files? [y]es / [n]o (discard) / [v]iew again / [q]uit (keep staged) ", 0)
			s.press(tc.key)
			d, err := s.result()
			if d != tc.want || err != nil {
				t.Fatalf("Prompt = %v, %v; want %v, nil", d, err, tc.want)
			}
			s.waitFor("\r\n"+tc.says+"\r\n", at-1)
		})
	}
}

func TestPromptShowsDiff(t *testing.T) {
	s := newSession(t, 40, 120)
	s.run(small())
	s.waitFor(question, 0)
	s.press("y")
	if d, err := s.result(); d != Apply || err != nil {
		t.Fatalf("Prompt = %v, %v", d, err)
	}
	s.waitFor("→ apply", 0)
	text := s.text()
	for _, want := range []string{
		"rewrite `foo($$$A)` → `bar($$$A)`\r\n",
		"change c7 · 3 changes in 2 files · +2 −2\r\n",
		"── a/a.go (+1 −1) ──\r\n",
		"4   │ -    foo(1)\r\n",
		"  4 │ +    bar(1)\r\n",
		"── b/b.go (+1 −1) ──\r\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q on the screen:\n%s", want, text)
		}
	}
	raw := s.rawOutput()
	for _, code := range []string{sgrRed, sgrGreen, sgrCyan, sgrBold} {
		if !strings.Contains(raw, code) {
			t.Errorf("no colour %q in the output", code)
		}
	}
	if strings.Contains(strings.ReplaceAll(raw, "\r\n", ""), "\n") {
		t.Error("a bare \\n was written while the terminal was raw")
	}
}

func TestPromptNoColor(t *testing.T) {
	s := newSession(t, 40, 120)
	t.Setenv("NO_COLOR", "1")
	s.run(small())
	s.waitFor(question, 0)
	s.press("q")
	if d, err := s.result(); d != Keep || err != nil {
		t.Fatalf("Prompt = %v, %v", d, err)
	}
	s.waitFor("→ keep staged", 0)
	if raw := s.rawOutput(); strings.Contains(raw, "\x1b") {
		t.Errorf("NO_COLOR set, yet escapes in %q", raw)
	}
}

func TestPromptViewAgain(t *testing.T) {
	s := newSession(t, 40, 120)
	s.run(small())
	at := s.waitFor(question, 0)
	s.press("v")
	s.waitFor(question, at)
	s.press("y")
	if d, err := s.result(); d != Apply || err != nil {
		t.Fatalf("Prompt = %v, %v", d, err)
	}
	s.waitFor("→ apply", at)
	text := s.text()
	for _, want := range []string{"── a/a.go (+1 −1) ──", "── b/b.go (+1 −1) ──", question} {
		if n := strings.Count(text, want); n != 2 {
			t.Errorf("%q shown %d times, want 2:\n%s", want, n, text)
		}
	}
}

func TestPromptUnknownKey(t *testing.T) {
	s := newSession(t, 40, 120)
	s.run(small())
	at := s.waitFor(question, 0)
	s.press("x")
	at = s.waitFor("Press y to apply, n to discard, v to see the diff again, q to keep it staged.\r\n", at)
	at = s.waitFor("Apply 3 changes to 2 files? [y/n/v/q] ", at)
	s.press("\r") // Enter is not an answer either
	at = s.waitFor("[y/n/v/q] ", at)
	s.press("\x1b[A") // nor is an arrow key, though it starts with Esc
	at = s.waitFor("[y/n/v/q] ", at)
	s.press("y")
	if d, err := s.result(); d != Apply || err != nil {
		t.Fatalf("Prompt = %v, %v", d, err)
	}
	s.waitFor("→ apply", at)
}

func TestPromptPaged(t *testing.T) {
	c := big()
	total := len(renderLines(c, true, 120))
	if total < 100 {
		t.Fatalf("the diff has %d lines, too few to page", total)
	}
	s := newSession(t, 24, 120) // wide enough for the whole status line
	s.run(c)
	status := func(from, to int) string {
		return fmt.Sprintf("-- lines %d-%d of %d (%d%%) -- space: next page, b: back, enter: next line, q: skip to the question --", from, to, total, to*100/total)
	}
	at := s.waitFor(status(1, 23), 0)
	s.press(" ")
	at = s.waitFor(status(24, 46), at)
	s.press("\r")
	at = s.waitFor(status(25, 47), at)
	s.press("\x1b[B") // ↓ is enter too
	at = s.waitFor(status(26, 48), at)
	s.press("b")
	at = s.waitFor(status(3, 25), at)
	if strings.Contains(s.text(), "Apply ") {
		t.Fatal("the question was asked while paging")
	}
	s.press("q")
	at = s.waitFor("Apply 30 changes to 1 file? [y]es", at)
	s.press("y")
	if d, err := s.result(); d != Apply || err != nil {
		t.Fatalf("Prompt = %v, %v", d, err)
	}
	s.waitFor("→ apply", at)
}

func TestPromptPagedToTheEnd(t *testing.T) {
	c := big()
	total := len(renderLines(c, true, 100))
	s := newSession(t, 24, 100)
	s.run(c)
	at := 0
	for end := 23; end < total; end += 23 {
		at = s.waitFor(fmt.Sprintf("-- lines %d-%d of %d", end-22, end, total), at)
		s.press(" ")
	}
	// Past the last page comes the question, then v pages again.
	at = s.waitFor(question, at)
	s.press("v")
	at = s.waitFor(fmt.Sprintf("-- lines 1-23 of %d", total), at)
	s.press("\x03") // Ctrl-C in the pager ends it all
	if d, err := s.result(); d != Keep || err != nil {
		t.Fatalf("Prompt = %v, %v", d, err)
	}
	s.waitFor("→ keep staged", at)
}

func TestPromptNarrow(t *testing.T) {
	s := newSession(t, 10, 40)
	s.run(big())
	at := s.waitFor("-- lines 1-9 of", 0)
	s.press("x") // ignored; the next status line must not land on this one
	s.press(" ")
	at = s.waitFor("-- lines 10-18 of", at)
	s.press("b")
	at = s.waitFor("-- lines 1-9 of", at)
	s.press("q")
	at = s.waitFor("Apply 30 changes to 1 file? [y]es /", at)
	s.press("?")
	at = s.waitFor("[y/n/v/q] ", at)
	s.press("n")
	if d, err := s.result(); d != Discard || err != nil {
		t.Fatalf("Prompt = %v, %v", d, err)
	}
	s.waitFor("→ discard", at)

	// Every way the output returns to column 1 starts a new screen
	// line: \r, \n, and the cursor home before a redraw.
	text := sgr.ReplaceAllString(strings.ReplaceAll(s.rawOutput(), "\x1b[H", "\n"), "")
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\r' || r == '\n' }) {
		if n := utf8.RuneCountInString(line); n > 40 {
			t.Errorf("%d columns on a 40-column screen: %q", n, line)
		}
	}
	for _, want := range []string{"── …ith/a/long/path/big.txt (+30 −30) ──", "…"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q on the screen:\n%s", want, text)
		}
	}
}

func TestPromptCancel(t *testing.T) {
	s := newSession(t, 40, 120)
	s.run(small())
	at := s.waitFor(question, 0)
	s.cancel()
	d, err := s.result()
	if d != Keep || !errors.Is(err, context.Canceled) {
		t.Fatalf("Prompt = %v, %v; want keep, context.Canceled", d, err)
	}
	s.waitFor("→ keep staged (context canceled)", at)
}

func TestPromptCancelledBefore(t *testing.T) {
	s := newSession(t, 40, 120)
	s.cancel()
	s.run(small())
	if d, err := s.result(); d != Keep || !errors.Is(err, context.Canceled) {
		t.Fatalf("Prompt = %v, %v; want keep, context.Canceled", d, err)
	}
}

func TestPromptHangup(t *testing.T) {
	s := newSession(t, 40, 120)
	s.run(small())
	s.waitFor(question, 0)
	s.master.Close() // the terminal goes away: end of input
	// A hung-up tty answers every ioctl with EIO, so whether it was
	// restored cannot be asked; the other tests cover that.
	if d, err := s.answer(); d != Keep {
		t.Fatalf("Prompt = %v, %v; want keep", d, err)
	} else {
		t.Logf("after a hangup: %v, %v", d, err)
	}
}

// Keys typed before Prompt asks must not answer it.
func TestPromptTypeAhead(t *testing.T) {
	s := newSession(t, 40, 120)
	s.press("y")
	s.waitFor("y", 0) // echoed: the terminal has it
	s.run(small())
	at := s.waitFor(question, 0)
	s.press("n")
	if d, err := s.result(); d != Discard || err != nil {
		t.Fatalf("Prompt = %v, %v; want discard (the early y thrown away)", d, err)
	}
	s.waitFor("→ discard", at)
}

type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("boom") }

func TestPromptPanicRestores(t *testing.T) {
	s := newSession(t, 40, 120)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the writer's panic", r)
			}
		}()
		Prompt(context.Background(), s.tty, panicWriter{}, small())
	}()
	after, err := term.GetState(int(s.tty.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.before, after) {
		t.Error("terminal left raw after a panic")
	}
}

func TestNotATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(r) || IsTerminal(nil) {
		t.Error("IsTerminal says yes to a pipe or nil")
	}
	if d, err := Prompt(context.Background(), r, w, small()); d != Keep || err == nil {
		t.Errorf("Prompt on a pipe = %v, %v; want keep and an error", d, err)
	}
	s := newSession(t, 24, 80)
	if !IsTerminal(s.tty) {
		t.Error("IsTerminal says no to a pty")
	}
}
