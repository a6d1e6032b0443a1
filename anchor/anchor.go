package anchor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"unicode"

	"cchub/textfmt"
	"cchub/workspace"
)

// Tiers, in the order they are tried.
const (
	TierSameFile  = "same-file"  // the quote is in the file it was said to be in
	TierOtherFile = "other-file" // it is in exactly one other file (of the diff, or of the workspace)
	TierLLM       = "llm"        // a model copied the lines it meant, and they are in the file
)

// Request is a quote to place.
type Request struct {
	Path    string `json:"path"`              // the file the quote is said to be from
	Snippet string `json:"snippet"`           // the quote
	Comment string `json:"comment,omitempty"` // the review comment it came with, for the model
	// Base compares the working tree with a git revision (git diff BASE);
	// DiffText is a unified diff given as text. With neither, the quote is
	// placed in the working tree's files.
	Base     string `json:"base,omitempty"`
	DiffText string `json:"-"`
}

// Candidate is one of several places a quote matched.
type Candidate struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

// Result is where a quote was placed, or why it was not.
type Result struct {
	Anchored  bool     `json:"anchored"`
	Tier      string   `json:"tier,omitempty"` // which tier placed it
	Path      string   `json:"path,omitempty"`
	StartLine int      `json:"start_line,omitempty"`
	EndLine   int      `json:"end_line,omitempty"`
	Lines     []string `json:"lines,omitempty"` // the code's own lines there, verbatim
	// Snippet is the quote that was placed: the request's, or, from the
	// model tier, the lines the model copied. Unplaced, it is the request's.
	Snippet string `json:"snippet"`
	// MovedFrom is the path the request named when the quote was found in
	// another file.
	MovedFrom  string      `json:"moved_from,omitempty"`
	Candidates []Candidate `json:"candidates,omitempty"`
	Reason     string      `json:"reason,omitempty"` // why it is unplaced
	Mode       string      `json:"mode"`             // "diff" or "working tree"
}

// Options tunes Anchor.
type Options struct {
	// Model answers the model tier; nil leaves the tier out (no request
	// at all).
	Model Completer
	// MaxFiles bounds how many workspace files the other-file tier reads
	// in working-tree mode (0: DefaultMaxFiles).
	MaxFiles int
}

// DefaultMaxFiles is how many files the other-file tier reads at most in
// a working tree.
const DefaultMaxFiles = 20000

// maxCandidates is how many places an ambiguous quote lists.
const maxCandidates = 10

// ErrEmptySnippet is returned for a quote with no lines.
var ErrEmptySnippet = errors.New("the snippet is empty")

// Anchor places a quote: in the named file (tier 1); failing that, in
// exactly one other file (tier 2); failing that, when a model is given, at
// the lines the model copies from the file's diff (tier 3, which must
// then match in the named file). Several matches in the named file, or in
// other files, leave the quote unplaced with its candidates: a quote is
// never placed on a guess.
func Anchor(ctx context.Context, root *workspace.Root, req Request, o Options) (*Result, error) {
	q := quoteLines(req.Snippet)
	if len(q) == 0 {
		return nil, fmt.Errorf("%w: give the lines the comment is about", ErrEmptySnippet)
	}
	rel, err := relPath(root, req.Path)
	if err != nil {
		return nil, err
	}
	src, err := newSource(ctx, root, req, o)
	if err != nil {
		return nil, err
	}
	res := &Result{Snippet: req.Snippet, Mode: src.mode()}

	// Tier 1: the named file.
	own, err := src.regionsOf(rel)
	if err != nil {
		return nil, err
	}
	if hit := find(q, own); len(hit) > 0 {
		return placed(res, hit, TierSameFile, rel, ""), nil
	}
	// Tier 2: exactly one other file, for a quote distinctive enough that
	// being found elsewhere says where it came from.
	if distinctive(q) {
		other, err := src.others(ctx, rel, q)
		if err != nil {
			return nil, err
		}
		if len(other) > 0 {
			return placed(res, other, TierOtherFile, rel, rel), nil
		}
	}
	// Tier 3: the model, when there is one.
	if o.Model != nil {
		r, ok, err := src.askModel(ctx, o.Model, rel, req, own)
		if err != nil {
			return nil, err
		}
		if ok {
			return r, nil
		}
	}
	res.Reason = fmt.Sprintf("the snippet (%s) is not, as consecutive lines, %s", countLines(len(q)), src.where(rel))
	if !distinctive(q) {
		res.Reason = fmt.Sprintf("the snippet (%s) is not, as consecutive lines, in %s, and is too short to look for in other files; quote more of the code", countLines(len(q)), rel)
	}
	return res, nil
}

// minDistinctive is how many letters and digits a quote needs before
// another file may claim it: `}` or `return nil` found once elsewhere says
// nothing about where the reviewer copied it from.
const minDistinctive = 12

// distinctive says whether q holds enough words to move files for.
func distinctive(q []string) bool {
	n := 0
	for _, l := range q {
		for _, r := range l {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				n++
			}
		}
	}
	return n >= minDistinctive
}

// placed is res anchored at the one place in hits, or unplaced with the
// candidates when there are several.
func placed(res *Result, hits []place, tier, rel, movedFrom string) *Result {
	if len(hits) > 1 {
		res.Reason = fmt.Sprintf("the snippet matches %d places; quote more lines around the one meant", len(hits))
		for i, h := range hits {
			if i == maxCandidates {
				res.Reason += fmt.Sprintf(" (the first %d are listed)", maxCandidates)
				break
			}
			res.Candidates = append(res.Candidates, Candidate{Path: h.path, StartLine: h.start, EndLine: h.end})
		}
		return res
	}
	h := hits[0]
	res.Anchored, res.Tier, res.Path, res.StartLine, res.EndLine, res.Lines = true, tier, h.path, h.start, h.end, slices.Clone(h.lines)
	if movedFrom != "" && h.path != movedFrom {
		res.MovedFrom = movedFrom
	}
	return res
}

func countLines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// relPath is the request's path relative to the root. The file need not
// exist (in a diff it may be new, or the quote may be elsewhere).
func relPath(root *workspace.Root, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("path is empty: give the file the comment is on")
	}
	if err := workspace.CheckFilePath(p); err != nil {
		return "", err
	}
	_, rel, err := root.Resolve(p)
	return rel, err
}

// source is where quotes are looked for: the working tree or a diff.
type source struct {
	root  *workspace.Root
	diff  []diffFile // nil in working-tree mode
	isDif bool
	max   int
}

func newSource(ctx context.Context, root *workspace.Root, req Request, o Options) (*source, error) {
	s := &source{root: root, max: o.MaxFiles}
	if s.max <= 0 {
		s.max = DefaultMaxFiles
	}
	var data []byte
	switch {
	case req.DiffText != "":
		data = []byte(req.DiffText)
	case req.Base != "":
		var err error
		if data, err = gitDiff(ctx, root.Dir(), req.Base); err != nil {
			return nil, err
		}
	default:
		return s, nil
	}
	s.isDif = true
	var err error
	if s.diff, err = parseDiff(data); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *source) mode() string {
	if s.isDif {
		return "diff"
	}
	return "working tree"
}

// where names what was searched, for an unplaced quote.
func (s *source) where(rel string) string {
	if s.isDif {
		return fmt.Sprintf("on the new side of %s's diff nor of any other file's in the diff (%d files)", rel, len(s.diff))
	}
	return fmt.Sprintf("in %s nor in any other file of the workspace", rel)
}

// regionsOf is the code of rel to search: the new side of its hunks in a
// diff, its whole text in a working tree (none if it does not exist).
func (s *source) regionsOf(rel string) ([]region, error) {
	if s.isDif {
		for _, f := range s.diff {
			if f.path == rel {
				return f.regions, nil
			}
		}
		return nil, nil
	}
	data, err := s.root.ReadText(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	return []region{{path: rel, first: 1, lines: textfmt.SplitLines(string(data))}}, nil
}

// others finds the quote in files other than rel: the diff's other files,
// or the workspace's (at most max files, text only).
func (s *source) others(ctx context.Context, rel string, q []string) ([]place, error) {
	var hits []place
	if s.isDif {
		for _, f := range s.diff {
			if f.path != rel {
				hits = append(hits, find(q, f.regions)...)
			}
		}
		return hits, nil
	}
	seen := 0
	err := s.root.Walk(ctx, ".", func(p string, d fs.DirEntry) error {
		if d.IsDir() || p == rel {
			return nil
		}
		if seen++; seen > s.max {
			return fs.SkipAll
		}
		data, err := s.root.ReadText(p)
		if err != nil || !mayHold(string(data), q) {
			return nil
		}
		hits = append(hits, find(q, []region{{path: p, first: 1, lines: textfmt.SplitLines(string(data))}})...)
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) {
		return nil, err
	}
	return hits, nil
}
