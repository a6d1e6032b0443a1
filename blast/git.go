package blast

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"cchub/gitcmd"
	"cchub/proc"
)

// maxDiffBytes bounds the diff read from git. A change larger than this is
// not one a blast radius helps to review.
const maxDiffBytes = 256 << 20

// gitDir runs git in one directory (the workspace root: git then lists
// paths relative to it), through gitcmd: each command is a child process
// in a group of its own, reaped, and stopped with its context.
type gitDir struct {
	dir string
	git *gitcmd.Git
}

func newGit(dir string) (*gitDir, error) {
	git, err := gitcmd.New(dir)
	if err != nil {
		return nil, errors.New("blast: git is not on PATH; blast compares git revisions and needs it")
	}
	git.QuotePaths = true // ParseDiff unquotes
	return &gitDir{dir: dir, git: git}, nil
}

// run returns what a git command printed, at most limit bytes; its
// stderr is in the error when it fails.
func (g *gitDir) run(ctx context.Context, limit int64, args ...string) ([]byte, error) {
	out, err := g.git.Output(ctx, limit, args...)
	return out, said(ctx, err)
}

// said words gitcmd's errors as blast says them: what git said and the
// context's end as they are, the rest as blast's.
func said(ctx context.Context, err error) error {
	var ge *gitcmd.Error
	var tl *gitcmd.TooLongError
	switch {
	case err == nil || ctx.Err() != nil || errors.As(err, &ge):
		return err
	case errors.As(err, &tl):
		return fmt.Errorf("blast: git %s printed more than %d MiB; compare closer revisions", tl.Command, tl.Limit>>20)
	}
	return fmt.Errorf("blast: %w", err)
}

// prefix checks that the directory is in a git work tree and returns its
// path inside it ("" at the top).
func (g *gitDir) prefix(ctx context.Context) (string, error) {
	out, err := g.run(ctx, 1<<16, "rev-parse", "--show-prefix")
	if err != nil {
		var ge *gitcmd.Error
		if errors.As(err, &ge) {
			return "", fmt.Errorf("blast: %s is not inside a git work tree (%s); blast compares git revisions", g.dir, ge.Message)
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
	args := []string{"--unified=0", "--find-renames", "-M", "--full-index", "--relative", "--ignore-submodules", base}
	if head != "" {
		args = append(args, head)
	}
	args = append(args, "--")
	out, err := g.git.Diff(ctx, maxDiffBytes, args...)
	return out, said(ctx, err)
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
	p      *proc.Process
	in     io.WriteCloser
	stdout io.Closer
	out    *bufio.Reader
}

func (g *gitDir) blobs(ctx context.Context) (*blobs, error) {
	c, err := g.git.Command(ctx, "cat-file", "--batch")
	if err != nil {
		return nil, said(ctx, err)
	}
	in, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p, err := c.Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("blast: start git cat-file: %w", err)
	}
	return &blobs{p: p, in: in, stdout: out, out: bufio.NewReaderSize(out, 64<<10)}, nil
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

// close ends cat-file and waits for it. Closing its stdout too ends it
// when it is still writing an object nobody reads.
func (b *blobs) close() {
	b.in.Close()
	b.stdout.Close()
	_ = b.p.Wait()
}
