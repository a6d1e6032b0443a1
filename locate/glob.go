package locate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"cchub/textfmt"
	"cchub/workspace"
)

// DefaultGlobLimit is how many files Glob lists when the caller gives no
// limit.
const DefaultGlobLimit = 100

// GlobOptions says which files Glob lists.
type GlobOptions struct {
	// Pattern is a glob with ** for any number of directories and {a,b}
	// for alternatives. Without a slash it matches file names at any depth
	// ("*.go" is "**/*.go"); with one, it matches the whole path relative
	// to Path (or to the root).
	Pattern string `json:"pattern"`
	// Path is the directory to search under; empty means the root.
	Path string `json:"path,omitempty"`
	// Limit caps the files listed; 0 means DefaultGlobLimit.
	Limit int `json:"limit,omitempty"`
}

// GlobResult is the files that matched, newest first.
type GlobResult struct {
	Pattern   string   `json:"pattern"`
	Path      string   `json:"path"`
	Files     []string `json:"files"`
	Total     int      `json:"total"`
	Truncated bool     `json:"truncated"`
	// Unreadable lists the directories that could not be listed: files
	// in them are missing from Files.
	Unreadable workspace.UnreadableDirs `json:"unreadable,omitempty"`
}

// Glob lists the files under opts.Path whose paths match opts.Pattern,
// newest (by modification time) first, skipping what .gitignore ignores and
// the .git and .cchub directories. Directories are not listed.
func Glob(ctx context.Context, root *workspace.Root, opts GlobOptions) (*GlobResult, error) {
	if strings.TrimSpace(opts.Pattern) == "" {
		return nil, errors.New(`glob: the pattern is empty; give one such as "*.go" (any depth) or "src/**/*.ts"`)
	}
	_, rel, st, err := root.ResolveExisting(ctx, opts.Path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("glob: %s is a file, not a directory; glob under its directory %s, or read the file", rel, path.Dir(rel))
	}
	match, err := newPathGlob(root, opts.Pattern, rel)
	if err != nil {
		return nil, err
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultGlobLimit
	}

	type hit struct {
		path string
		mod  time.Time
	}
	var hits []hit
	var unreadable workspace.UnreadableDirs
	err = root.WalkReporting(ctx, rel, func(p string, d fs.DirEntry) error {
		if d.IsDir() || !match.Match(p) {
			return nil
		}
		var mod time.Time
		if info, err := d.Info(); err == nil {
			mod = info.ModTime()
		}
		hits = append(hits, hit{p, mod})
		return nil
	}, unreadable.Add)
	if err != nil {
		return nil, err
	}
	sort.Slice(hits, func(i, j int) bool {
		if !hits[i].mod.Equal(hits[j].mod) {
			return hits[i].mod.After(hits[j].mod)
		}
		return hits[i].path < hits[j].path
	})
	res := &GlobResult{Pattern: opts.Pattern, Path: rel, Total: len(hits), Files: []string{}, Unreadable: unreadable}
	for i, h := range hits {
		if i == limit {
			res.Truncated = true
			break
		}
		res.Files = append(res.Files, h.path)
	}
	return res, nil
}

// Text is the result as a model reads it: one path per line, and a note
// when the list was cut or is empty.
func (r *GlobResult) Text() string {
	var b strings.Builder
	if r.Total == 0 {
		fmt.Fprintf(&b, "No files match %q under %s.", r.Pattern, displayDir(r.Path))
		if hint := globHint(r.Pattern); hint != "" {
			b.WriteString(" " + hint)
		}
		b.WriteString(" (Files ignored by .gitignore are not listed.)\n")
		b.WriteString(r.Unreadable.Note("their files are not listed"))
		return b.String()
	}
	for _, f := range r.Files {
		b.WriteString(textfmt.ShowPath(f))
		b.WriteByte('\n')
	}
	if r.Truncated {
		fmt.Fprintf(&b, "[showing %s of %s files, newest first; narrow the pattern or path]\n",
			textfmt.Thousands(len(r.Files)), textfmt.Thousands(r.Total))
	}
	b.WriteString(r.Unreadable.Note("their files are not listed"))
	return b.String()
}

// globHint suggests how a pattern that matched nothing might be meant.
func globHint(pattern string) string {
	p := strings.TrimPrefix(pattern, "./")
	if strings.Contains(p, "/") && !strings.HasPrefix(p, "**/") {
		return fmt.Sprintf("A pattern with a slash matches the whole path from the search directory; to match at any depth, try %q.", "**/"+p)
	}
	if !strings.ContainsAny(p, "*?[{") {
		return fmt.Sprintf("The pattern has no wildcard, so it matches only files named exactly %q; try %q.", p, "*"+p+"*")
	}
	return "A pattern without a slash matches file names at any depth; check the spelling, or glob \"*\" to see what is here."
}

// pathGlob matches slash-separated paths relative to the root against a
// pattern, with the semantics Glob documents: without a slash the pattern
// matches the file name at any depth; with one, the path relative to the
// search directory, or (for callers who spell it from the root) the path
// relative to the root.
type pathGlob struct {
	pattern  string
	baseOnly bool
	dir      string // the search directory, root-relative; "." for the root
}

func newPathGlob(root *workspace.Root, pattern, dir string) (*pathGlob, error) {
	p := filepath.ToSlash(strings.TrimSpace(pattern))
	if filepath.IsAbs(pattern) {
		// An absolute pattern inside the root is a near miss for a
		// root-relative one.
		rootDir := filepath.ToSlash(root.Dir())
		if p == rootDir || strings.HasPrefix(p, rootDir+"/") {
			p = strings.TrimPrefix(strings.TrimPrefix(p, rootDir), "/")
			if p == "" {
				p = "**"
			}
		} else {
			return nil, fmt.Errorf("the absolute pattern %q %w %s; give a pattern relative to the root", pattern, workspace.ErrOutsideRoot, root.Dir())
		}
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if !doublestar.ValidatePattern(p) {
		return nil, fmt.Errorf("invalid glob pattern %q: check that every [ and { is closed; use ** for any number of directories and {a,b} for alternatives", pattern)
	}
	return &pathGlob{pattern: p, baseOnly: !strings.Contains(p, "/"), dir: dir}, nil
}

// Match reports whether rel, a file path relative to the root, matches.
func (g *pathGlob) Match(rel string) bool {
	if g.baseOnly {
		return doublestar.MatchUnvalidated(g.pattern, rel[strings.LastIndexByte(rel, '/')+1:])
	}
	if g.dir != "." {
		if under, ok := strings.CutPrefix(rel, g.dir+"/"); ok && doublestar.MatchUnvalidated(g.pattern, under) {
			return true
		}
	}
	return doublestar.MatchUnvalidated(g.pattern, rel)
}

// plural returns "1 file" or "2,345 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return textfmt.Thousands(n) + " " + many
}

// displayDir names a root-relative directory in messages.
func displayDir(rel string) string {
	if rel == "." || rel == "" {
		return "the workspace root"
	}
	return rel + "/"
}
