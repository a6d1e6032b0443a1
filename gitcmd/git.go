package gitcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"cchub/proc"
)

// DefaultTimeout bounds each command Output runs.
const DefaultTimeout = 2 * time.Minute

// stderrBytes is how much of git's stderr an Error keeps: its first
// bytes, where git says what failed.
const stderrBytes = 4096

// Git runs git in one directory: paths git prints are relative to it
// where the command makes them so (--relative, ls-tree).
type Git struct {
	Dir string
	// QuotePaths has git quote a path with unusual bytes in C style
	// (core.quotepath=true), for a parser that unquotes; otherwise paths
	// are printed as they are.
	QuotePaths bool
	// Timeout bounds each command Output runs; DefaultTimeout when zero.
	// A Command's life is its context's.
	Timeout time.Duration

	path string // git, as found on PATH
}

// New finds git on PATH, to run it in dir. When git is not there, the
// error wraps exec.ErrNotFound.
func New(dir string) (*Git, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git is not on PATH: %w", err)
	}
	return &Git{Dir: dir, path: p}, nil
}

// Command is git with args (a command and its options), ready to be
// given pipes and started: for a long conversation such as cat-file
// --batch.
func (g *Git) Command(args ...string) *proc.Cmd {
	quote := "core.quotepath=false"
	if g.QuotePaths {
		quote = "core.quotepath=true"
	}
	c := proc.Command(g.path, append([]string{"--no-pager", "-c", quote, "-c", "color.ui=false"}, args...)...)
	c.Dir = g.Dir
	c.Env = append(os.Environ(), "LC_ALL=C", "LANGUAGE=C", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat")
	return c
}

// Output runs git with args and returns what it printed, at most limit
// bytes: past it, git is killed and the error is a *TooLongError. A
// command that fails is an *Error; one that ends with ctx returns ctx's
// error.
func (g *Git) Output(ctx context.Context, limit int64, args ...string) ([]byte, error) {
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := g.Command(args...)
	stderr := &head{left: stderrBytes}
	c.Stderr = stderr
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	defer out.Close()
	p, err := c.Start(tctx)
	if err != nil {
		return nil, fmt.Errorf("start git: %w", err)
	}
	data, readErr := io.ReadAll(io.LimitReader(out, limit+1))
	if readErr == nil && int64(len(data)) > limit {
		readErr = &TooLongError{Command: args[0], Limit: limit}
		p.Kill()
	}
	waitErr := p.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if tctx.Err() != nil {
		return nil, fmt.Errorf("git %s did not finish within %v", args[0], timeout)
	}
	if readErr != nil {
		return nil, readErr
	}
	if waitErr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = waitErr.Error()
		}
		return nil, &Error{Command: args[0], Message: msg}
	}
	return data, nil
}

// Diff runs git diff with the options that fix its form whatever the
// user's configuration says: no colour, no external diff, no textconv,
// a/ and b/ prefixes. args give the rest: context, renames, revisions,
// "--" and paths.
func (g *Git) Diff(ctx context.Context, limit int64, args ...string) ([]byte, error) {
	return g.Output(ctx, limit, append([]string{"diff",
		"--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}, args...)...)
}

// Error is a git command that ran and failed, with what git said (or
// how it exited, when it said nothing).
type Error struct {
	Command string // diff, rev-parse, ...
	Message string
}

func (e *Error) Error() string { return "git " + e.Command + ": " + e.Message }

// TooLongError is a command that printed more than its limit.
type TooLongError struct {
	Command string
	Limit   int64 // bytes
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("git %s printed more than %d bytes", e.Command, e.Limit)
}

// head keeps the first bytes written to it and drops the rest; os/exec
// writes to it from one goroutine.
type head struct {
	buf  strings.Builder
	left int
}

func (h *head) Write(p []byte) (int, error) {
	n := min(len(p), h.left)
	h.buf.Write(p[:n])
	h.left -= n
	return len(p), nil
}

func (h *head) String() string { return h.buf.String() }
