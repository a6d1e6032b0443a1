package anchor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cchub/gitcmd"
	"cchub/unidiff"
)

// maxDiffBytes bounds the diff read from git or given as text.
const maxDiffBytes = 64 << 20

// diffFile is one file of a diff: its new name, the new side of each hunk
// as a region, and the file's section of the diff as text (for the model).
type diffFile struct {
	path    string
	regions []region
	text    string
}

// parseDiff reads a unified diff (git's, or any with ---/+++ headers).
func parseDiff(data []byte) ([]diffFile, error) {
	if len(data) > maxDiffBytes {
		return nil, fmt.Errorf("the diff is %d MB, more than the %d MB anchoring reads; narrow it to the files the comments are on", len(data)>>20, maxDiffBytes>>20)
	}
	patch := unidiff.Parse(string(data))
	if err := patch.Err(); err != nil {
		return nil, fmt.Errorf("the diff cannot be read: %v; give a unified diff (git diff output)", err)
	}
	var out []diffFile
	for _, f := range patch.Files {
		if f.Status == unidiff.Deleted || f.Binary {
			continue
		}
		df := diffFile{path: f.NewPath}
		var text strings.Builder
		fmt.Fprintf(&text, "--- a/%s\n+++ b/%s\n", f.OldPath, df.path)
		for _, h := range f.Hunks {
			text.WriteString(h.String())
			r := region{path: df.path, first: max(h.NewStart, 1)}
			for _, l := range h.Lines {
				if l.Kind != unidiff.Delete {
					r.lines = append(r.lines, strings.TrimSuffix(l.Text, "\r"))
				}
			}
			df.regions = append(df.regions, r)
		}
		df.text = text.String()
		out = append(out, df)
	}
	return out, nil
}

// gitDiff runs `git diff BASE` in dir: the working tree against BASE,
// with every option that shapes the output given, so the user's git
// configuration cannot change what is parsed.
func gitDiff(ctx context.Context, dir, base string) ([]byte, error) {
	if base == "" || strings.HasPrefix(base, "-") || strings.ContainsAny(base, " \t\n") {
		return nil, fmt.Errorf("base %q is not a revision; give a branch, tag or commit (e.g. main, HEAD~1)", base)
	}
	git, err := gitcmd.New(dir)
	if err != nil {
		return nil, fmt.Errorf("git is not installed; give the diff as text instead of a base")
	}
	git.Timeout = 2 * time.Minute
	out, err := git.Diff(ctx, maxDiffBytes, "--unified=3", "--find-renames", base, "--")
	var ge *gitcmd.Error
	var tl *gitcmd.TooLongError
	switch {
	case errors.As(err, &ge):
		msg := ge.Message
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return nil, fmt.Errorf("git diff %s: %s; check that the workspace is a git repository and %s names a revision in it", base, msg, base)
	case errors.As(err, &tl):
		return nil, fmt.Errorf("the diff is more than the %d MB anchoring reads; narrow it to the files the comments are on", maxDiffBytes>>20)
	case err != nil:
		return nil, fmt.Errorf("git diff %s: %w", base, err)
	}
	return out, nil
}
