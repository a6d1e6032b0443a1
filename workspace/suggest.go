package workspace

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	"cchub/textfmt"
)

// NotFoundError is a path that does not exist, with the workspace paths
// most like it.
type NotFoundError struct {
	Path        string   // as resolved, relative to the root
	Suggestions []string // at most three, best first; directories end in "/"
}

func (e *NotFoundError) Error() string {
	if len(e.Suggestions) > 0 {
		return "no such file: " + e.Path + "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
	}
	parent := "its parent directory " + path.Dir(e.Path)
	if path.Dir(e.Path) == "." {
		parent = `the workspace root (path ".")`
	}
	return "no such file: " + e.Path + "; glob for its name (e.g. \"**/" + path.Base(e.Path) + "\") or read " + parent
}

// Unwrap lets errors.Is(err, fs.ErrNotExist) hold.
func (e *NotFoundError) Unwrap() error { return fs.ErrNotExist }

// maxSuggestWalk bounds how many entries a missing path's suggestions
// look at, so a typo in a huge tree stays cheap.
const maxSuggestWalk = 200_000

// NotFound builds the error for a missing rel, suggesting up to three
// existing paths by name: the same file name in another directory first,
// then the closest by edit distance. dirs says whether directories may be
// suggested too.
func (root *Root) NotFound(ctx context.Context, rel string, dirs bool) error {
	want := strings.ToLower(strings.TrimSuffix(rel, "/"))
	wantBase := path.Base(want)
	type cand struct {
		path string
		same bool // same file name
		dist int
	}
	var cands []cand
	seen := 0
	errEnough := errors.New("enough")
	walkErr := root.Walk(ctx, ".", func(p string, d fs.DirEntry) error {
		if seen++; seen > maxSuggestWalk {
			return errEnough
		}
		if p == "." || (d.IsDir() && !dirs) {
			return nil
		}
		lp := strings.ToLower(p)
		base := path.Base(lp)
		c := cand{path: p, same: base == wantBase}
		if d.IsDir() {
			c.path += "/"
		}
		if c.same {
			cands = append(cands, c)
			return nil
		}
		// The file name must be close, and so must the whole path: a
		// typo in a name, or the right name in a nearby directory.
		bd := textfmt.EditDistance(base, wantBase, maxDist(wantBase))
		if bd > maxDist(wantBase) {
			return nil
		}
		c.dist = textfmt.EditDistance(lp, want, maxDist(want)+bd)
		if c.dist <= maxDist(want)+bd {
			cands = append(cands, c)
		}
		return nil
	})
	if walkErr != nil && !errors.Is(walkErr, errEnough) && ctx.Err() != nil {
		return ctx.Err()
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.same != b.same {
			return a.same
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return a.path < b.path
	})
	e := &NotFoundError{Path: rel}
	for i := 0; i < len(cands) && i < 3; i++ {
		e.Suggestions = append(e.Suggestions, cands[i].path)
	}
	return e
}

// maxDist is how many edits still count as a typo of s.
func maxDist(s string) int {
	return max(1, min(len(s)/4, 4))
}

// ResolveExisting resolves path inside the root and stats it; a path that
// does not exist is an error suggesting similarly named ones.
func (root *Root) ResolveExisting(ctx context.Context, path string) (abs, rel string, st fs.FileInfo, err error) {
	abs, rel, err = root.Resolve(path)
	if err != nil {
		return "", "", nil, err
	}
	st, err = root.Stat(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", nil, root.NotFound(ctx, rel, true)
		}
		return "", "", nil, err
	}
	return abs, rel, st, nil
}
