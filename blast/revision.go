package blast

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"cchub/codegraph"
	"cchub/syntax"
	"cchub/unidiff"
	"cchub/workspace"
)

// files is what the graph holds of a set of files, by path relative to
// the workspace root.
type files map[string]*codegraph.File

// blobSource names a file of a revision and the object git holds it as.
type blobSource struct {
	path   string
	object string // a blob id, or REV:PATH
}

// readBlobs reads files from git (one cat-file for all of them) and
// extracts them into a memory index. What the graph would not read from
// a working tree is left out as the working tree's index leaves it out:
// languages it does not read, binary files, files over
// workspace.MaxFileBytes, invalid UTF-8. Parsing runs on every core while
// git goes on reading.
func readBlobs(ctx context.Context, git *gitDir, cache *syntax.ParseCache, srcs []blobSource) (*codegraph.Index, error) {
	x := codegraph.NewMemIndex()
	if len(srcs) == 0 {
		return x, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bl, err := git.blobs(ctx)
	if err != nil {
		return nil, err
	}
	defer bl.close()

	type job struct {
		path string
		src  []byte
	}
	jobs := make(chan job)
	var mu sync.Mutex
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range jobs {
				f, err := codegraph.Extract(ctx, cache, j.path, j.src)
				if errors.Is(err, syntax.ErrTooBig) {
					continue // as a file past the size bound: not code the graph reads
				}
				if err != nil {
					fail(fmt.Errorf("blast: read %s: %w", j.path, err))
					continue
				}
				if f != nil {
					x.Put(j.path, f)
				}
			}
		})
	}
	for _, s := range srcs {
		if !codegraph.Indexed(s.path) {
			continue
		}
		src, err := bl.read(s.object, workspace.MaxFileBytes)
		if errors.Is(err, errTooLarge) {
			continue
		}
		if err != nil {
			fail(err)
			break
		}
		if workspace.IsBinary(src) || !utf8.Valid(src) {
			continue
		}
		select {
		case jobs <- job{s.path, src}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return x, nil
}

// revisionFiles reads every file the graph reads of commit, under the
// workspace directory, without a checkout.
func revisionFiles(ctx context.Context, git *gitDir, cache *syntax.ParseCache, commit string) (files, error) {
	entries, err := git.tree(ctx, commit)
	if err != nil {
		return nil, fmt.Errorf("blast: list the files of %.12s: %w", commit, err)
	}
	var srcs []blobSource
	for _, e := range entries {
		if e.size <= workspace.MaxFileBytes && codegraph.Indexed(e.path) {
			srcs = append(srcs, blobSource{path: e.path, object: e.id})
		}
	}
	x, err := readBlobs(ctx, git, cache, srcs)
	if err != nil {
		return nil, err
	}
	out := files{}
	for _, s := range srcs {
		if f := x.File(s.path); f != nil {
			out[s.path] = f
		}
	}
	return out, nil
}

// workingTreeFiles brings the workspace's code graph x (nil: a new one in
// memory) up to date and returns the files it holds: the same walk, reads
// and cache as `cchub index`.
func workingTreeFiles(ctx context.Context, root *workspace.Root, cache *syntax.ParseCache, x *codegraph.Index) (files, error) {
	if x == nil {
		x = codegraph.NewIndex(root, cache)
	}
	if _, err := x.Update(ctx); err != nil {
		return nil, fmt.Errorf("blast: index the working tree: %w", err)
	}
	fs, err := x.Files(ctx)
	if err != nil {
		return nil, fmt.Errorf("blast: read the working tree's index: %w", err)
	}
	out := files{}
	for _, f := range fs {
		out[f.Path] = f
	}
	return out, nil
}

// baseFiles reads the base versions of the files a diff changed: the only
// ones whose definitions can have been removed or changed.
func baseFiles(ctx context.Context, git *gitDir, cache *syntax.ParseCache, base, prefix string, diffs []unidiff.File) (files, error) {
	var srcs []blobSource
	for _, d := range diffs {
		// A copy's definitions are all new; a file that only moved has no
		// changed lines.
		if d.OldPath == "" || d.Binary || d.Status == unidiff.Copied || len(d.Hunks) == 0 && d.Status != unidiff.Deleted {
			continue
		}
		obj := fullID(d.OldBlob)
		if obj == "" {
			obj = base + ":" + prefix + d.OldPath
		}
		srcs = append(srcs, blobSource{path: d.OldPath, object: obj})
	}
	x, err := readBlobs(ctx, git, cache, srcs)
	if err != nil {
		return nil, fmt.Errorf("blast: read the base versions of the changed files: %w", err)
	}
	out := files{}
	for _, s := range srcs {
		if f := x.File(s.path); f != nil {
			out[s.path] = f
		}
	}
	return out, nil
}

// fullID is id when it names a git object in full (SHA-1 or SHA-256) and
// is not the null id, else "": an abbreviated id may be ambiguous.
func fullID(id string) string {
	if len(id) != 40 && len(id) != 64 || strings.Trim(id, "0123456789abcdef") != "" || strings.Trim(id, "0") == "" {
		return ""
	}
	return id
}
