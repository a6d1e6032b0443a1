package blast

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// maxDiffBytes bounds the diff read from git. A change larger than this is
// not one a blast radius helps to review.
const maxDiffBytes = 256 << 20

// gitDir runs git in one directory (the workspace root: git then lists
// paths relative to it). Each command is a child process in a group of
// its own, waited for, and killed with its context.
type gitDir struct {
	dir  string
	path string
}

func newGit(dir string) (*gitDir, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return nil, errors.New("blast: git is not on PATH; blast compares git revisions and needs it")
	}
	return &gitDir{dir: dir, path: p}, nil
}

func (g *gitDir) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, g.path, args...)
	cmd.Dir = g.dir
	// English messages and no locks taken for a mere look (a diff against
	// the working tree would otherwise refresh the index).
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANGUAGE=C", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat")
	cmd.SysProcAttr = procAttr()
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// run returns what a git command printed, at most limit bytes; its
// stderr is in the error when it fails.
func (g *gitDir) run(ctx context.Context, limit int64, args ...string) ([]byte, error) {
	cmd := g.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, left: 4096}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("blast: start git: %w", err)
	}
	data, readErr := io.ReadAll(io.LimitReader(out, limit+1))
	if readErr == nil && int64(len(data)) > limit {
		readErr = fmt.Errorf("blast: git %s printed more than %d MiB; compare closer revisions", args[0], limit>>20)
		_ = killGroup(cmd.Process.Pid)
	}
	waitErr := cmd.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if readErr != nil {
		return nil, readErr
	}
	if waitErr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = waitErr.Error()
		}
		return nil, &gitError{args: args, msg: msg}
	}
	return data, nil
}

// gitError is a git command that failed, with what git said.
type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string { return "git " + e.args[0] + ": " + e.msg }

// limitedBuffer keeps the first bytes written to it and drops the rest.
type limitedBuffer struct {
	buf  *bytes.Buffer
	left int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := min(len(p), b.left)
	b.buf.Write(p[:n])
	b.left -= n
	return len(p), nil
}

// prefix checks that the directory is in a git work tree and returns its
// path inside it ("" at the top).
func (g *gitDir) prefix(ctx context.Context) (string, error) {
	out, err := g.run(ctx, 1<<16, "rev-parse", "--show-prefix")
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) {
			return "", fmt.Errorf("blast: %s is not inside a git work tree (%s); blast compares git revisions", g.dir, ge.msg)
		}
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// commit resolves ref to the full id of a commit, or says what to do.
func (g *gitDir) commit(ctx context.Context, flag, ref string) (string, error) {
	if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n") {
		return "", fmt.Errorf("blast: %s %q is not a revision; give a branch, tag or commit (e.g. origin/main)", flag, ref)
	}
	out, err := g.run(ctx, 1<<10, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("blast: %s %q names no commit in this repository; fetch it first (in GitHub Actions: actions/checkout with fetch-depth: 0)", flag, ref)
	}
	return strings.TrimSpace(string(out)), nil
}

// mergeBase is the best common ancestor of two commits.
func (g *gitDir) mergeBase(ctx context.Context, a, b string) (string, error) {
	out, err := g.run(ctx, 1<<10, "merge-base", a, b)
	if err != nil {
		return "", fmt.Errorf("blast: no merge base of %.12s and %.12s (a shallow clone? fetch more history): %w", a, b, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// diff is the diff from base to head (the working tree when head is ""),
// restricted to the workspace directory, with paths relative to it. The
// options that change its form are all given, so no configuration of the
// user's changes what is parsed.
func (g *gitDir) diff(ctx context.Context, base, head string) ([]byte, error) {
	args := []string{"-c", "core.quotePath=true", "diff",
		"--no-color", "--no-ext-diff", "--no-textconv", "--unified=0", "--find-renames", "-M",
		"--full-index", "--relative", "--src-prefix=a/", "--dst-prefix=b/", "--ignore-submodules", base}
	if head != "" {
		args = append(args, head)
	}
	args = append(args, "--")
	return g.run(ctx, maxDiffBytes, args...)
}

// treeEntry is a blob of a revision.
type treeEntry struct {
	path, id string
	size     int64 // -1: unknown
}

// tree lists the regular files of a commit under the workspace directory
// (git ls-tree run in it), with paths relative to it.
func (g *gitDir) tree(ctx context.Context, commit string) ([]treeEntry, error) {
	out, err := g.run(ctx, maxDiffBytes, "ls-tree", "-r", "-z", "--long", commit)
	if err != nil {
		return nil, err
	}
	var es []treeEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		// "<mode> SP <type> SP <object> SP+ <size> TAB <path>"
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 4 || f[1] != "blob" || f[0] != "100644" && f[0] != "100755" {
			continue // trees, submodules, symlinks
		}
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			size = -1
		}
		es = append(es, treeEntry{path: string(p), id: f[2], size: size})
	}
	return es, nil
}

// blobs reads objects one at a time from one git cat-file --batch.
type blobs struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (g *gitDir) blobs(ctx context.Context) (*blobs, error) {
	cmd := g.command(ctx, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("blast: start git cat-file: %w", err)
	}
	return &blobs{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

// errTooLarge says a blob was over the limit it was read with.
var errTooLarge = errors.New("too large")

// read returns the content of object (an id, or rev:path), at most max
// bytes: a larger one is skipped and errTooLarge returned. A missing
// object is an error naming it.
func (b *blobs) read(object string, max int64) ([]byte, error) {
	if strings.ContainsAny(object, "\n\x00") {
		return nil, fmt.Errorf("blast: %q cannot be asked of git cat-file", object)
	}
	if _, err := io.WriteString(b.in, object+"\n"); err != nil {
		return nil, fmt.Errorf("blast: git cat-file: %w", err)
	}
	header, err := b.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("blast: git cat-file: %w", err)
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return nil, fmt.Errorf("blast: git cat-file has no %s: %s", object, strings.TrimSpace(header))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return nil, fmt.Errorf("blast: git cat-file: bad header %q", strings.TrimSpace(header))
	}
	if size > max || f[1] != "blob" {
		if _, err := b.out.Discard(int(size) + 1); err != nil {
			return nil, fmt.Errorf("blast: git cat-file: %w", err)
		}
		if f[1] != "blob" {
			return nil, fmt.Errorf("blast: %s is a %s, not a file", object, f[1])
		}
		return nil, errTooLarge
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(b.out, data); err != nil {
		return nil, fmt.Errorf("blast: git cat-file: %w", err)
	}
	return data[:size], nil
}

// close ends cat-file and waits for it.
func (b *blobs) close() {
	b.in.Close()
	_ = b.cmd.Wait()
}
