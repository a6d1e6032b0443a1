package gitcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
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

	mu      sync.Mutex
	filters []string // the options that switch off the filter drivers; nil until read
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

// safeConfig switches off, on every command, what a repository's (or
// anyone's) git configuration could have git run or wait on: the file
// system monitor hook, hooks, an external diff, pagers, signature
// checks, submodule recursion (a child git in another repository),
// automatic maintenance, and every transport (a partial clone's lazy
// fetch would run ssh, credential helpers or an ext:: command).
var safeConfig = []string{
	"core.fsmonitor=false",
	"core.hooksPath=" + os.DevNull,
	"core.untrackedCache=false",
	"core.pager=cat",
	"color.ui=false",
	"diff.external=",
	"diff.ignoreSubmodules=all",
	"log.showSignature=false",
	"submodule.recurse=false",
	"protocol.allow=never",
	"gc.auto=0",
	"maintenance.auto=false",
}

// maxFilters bounds the filter drivers a configuration may define: each
// costs four options on every command line.
const maxFilters = 1000

// Command is git with args (a command and its options), ready to be
// given pipes and started: for a long conversation such as cat-file
// --batch. Like every command run here, it runs with safeConfig and with
// every filter driver the configuration defines switched off, which
// takes reading the configuration first (bounded by ctx).
func (g *Git) Command(ctx context.Context, args ...string) (*proc.Cmd, error) {
	filters, err := g.filterDrivers(ctx)
	if err != nil {
		return nil, err
	}
	return g.command(append(filters, args...)...), nil
}

// command is git with safeConfig, then args.
func (g *Git) command(args ...string) *proc.Cmd {
	quote := "core.quotepath=false"
	if g.QuotePaths {
		quote = "core.quotepath=true"
	}
	pre := []string{"--no-pager", "-c", quote}
	for _, kv := range safeConfig {
		pre = append(pre, "-c", kv)
	}
	c := proc.Command(g.path, append(pre, args...)...)
	c.Dir = g.Dir
	c.Env = append(os.Environ(), "LC_ALL=C", "LANGUAGE=C", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat", "PAGER=cat", "GIT_NO_LAZY_FETCH=1")
	return c
}

// filterDrivers reads, once per Git, the names of the filter drivers the
// configuration defines (filter.<name>.clean, .smudge, .process: commands
// git runs on a file's content when a .gitattributes line names the
// driver, as soon as it reads the working tree) and returns the options
// that switch each off: its commands empty, not required. The read itself
// runs nothing: git config only reads files.
func (g *Git) filterDrivers(ctx context.Context) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.filters != nil {
		return g.filters, nil
	}
	out, err := g.output(ctx, 1<<20, "config", g.command("config", "--null", "--name-only", "--get-regexp", `^filter\.`))
	var ge *Error
	if errors.As(err, &ge) && ge.exit == 1 && ge.Message == "exit status 1" {
		out, err = nil, nil // no key matched
	}
	if err != nil {
		return nil, fmt.Errorf("reading git's configuration for the filter drivers to switch off: %w", err)
	}
	seen := map[string]bool{}
	filters := []string{}
	for _, key := range strings.Split(string(out), "\x00") {
		rest, ok := strings.CutPrefix(key, "filter.")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i <= 0 || seen[rest[:i]] {
			continue
		}
		name := rest[:i]
		seen[name] = true
		if strings.ContainsAny(name, "=\n\x00") || len(seen) > maxFilters {
			// -c cannot name it; rather than run it, run nothing.
			return nil, fmt.Errorf("git's configuration defines a filter driver cchub cannot switch off (%q, of %d): rename it in .git/config or your git configuration, or remove it", name, len(seen))
		}
		for _, k := range []string{"clean=", "smudge=", "process=", "required=false"} {
			filters = append(filters, "-c", "filter."+name+"."+k)
		}
	}
	g.filters = filters
	return filters, nil
}

// Output runs git with args and returns what it printed, at most limit
// bytes: past it, git is killed and the error is a *TooLongError. A
// command that fails is an *Error; one that ends with ctx returns ctx's
// error.
func (g *Git) Output(ctx context.Context, limit int64, args ...string) ([]byte, error) {
	c, err := g.Command(ctx, args...)
	if err != nil {
		return nil, err
	}
	return g.output(ctx, limit, args[0], c)
}

// output runs c, named command in errors, as Output says.
func (g *Git) output(ctx context.Context, limit int64, command string, c *proc.Cmd) ([]byte, error) {
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
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
		readErr = &TooLongError{Command: command, Limit: limit}
		p.Kill()
	}
	waitErr := p.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if tctx.Err() != nil {
		return nil, fmt.Errorf("git %s did not finish within %v", command, timeout)
	}
	if readErr != nil {
		return nil, readErr
	}
	if waitErr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = waitErr.Error()
		}
		e := &Error{Command: command, Message: msg}
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			e.exit = ee.ExitCode()
		}
		return nil, e
	}
	return data, nil
}

// Diff runs git diff with the options that fix its form whatever the
// user's configuration says: no colour, no external diff, no textconv,
// a/ and b/ prefixes, submodules not looked into (that would run git in
// each, under its own configuration). args give the rest: context,
// renames, revisions, "--" and paths.
func (g *Git) Diff(ctx context.Context, limit int64, args ...string) ([]byte, error) {
	return g.Output(ctx, limit, append([]string{"diff",
		"--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=all", "--src-prefix=a/", "--dst-prefix=b/"}, args...)...)
}

// Error is a git command that ran and failed, with what git said (or
// how it exited, when it said nothing).
type Error struct {
	Command string // diff, rev-parse, ...
	Message string
	exit    int // git's exit status, when it exited
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
