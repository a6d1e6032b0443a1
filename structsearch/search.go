package structsearch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sort"
	"strings"
	"sync"

	"cchub/syntax"
	"cchub/workspace"
)

// Options says what Search looks for, and where.
type Options struct {
	Pattern string
	// Lang fixes the language; "" searches each file in the language of
	// its extension, compiling the pattern once per language.
	Lang string
	// Paths are files or directories relative to the root; none means
	// the whole workspace.
	Paths []string
	// Workers is the parallelism; 0 means one per CPU.
	Workers int
}

// Sources is what a caller that keeps state about the workspace lends
// Search so that it reads and parses less (the hub does); the zero value
// walks the disk, and reads and parses every file of a searched language
// that may match. They change what Search reads and parses, never what
// it answers.
type Sources struct {
	// Cache, when set, supplies parsed trees and keeps them (a long-lived
	// hub); nil parses each file once and drops the tree (a one-shot CLI).
	Cache *syntax.ParseCache
	// Listing, when set, is a walk of the root kept by a caller whose
	// file watcher vouches for it: it is walked instead of the disk
	// where it holds a path as a directory.
	Listing *workspace.Listing
	// Lacks, when set, says without reading it that the file rel (d its
	// directory entry) holds not every one of lits (a token index);
	// false when unsure. Such files are not read.
	Lacks workspace.TokenFilter
	// Clean, when set, says without parsing it that the file rel (d its
	// directory entry, lits as for Lacks) parses without a syntax error
	// (a token index, from the code graph's parse); false when unsure.
	// Only the parts of such a file that can hold a match are parsed:
	// lines of Python, declarations of Go (partial.go).
	Clean workspace.TokenFilter
}

// Result is what Search found.
type Result struct {
	Pattern string  `json:"pattern"`
	Matches []Match `json:"matches"`
	// Languages the pattern was compiled for, and those it was not valid
	// in (language: reason) that files were skipped for.
	Languages []string          `json:"languages"`
	Invalid   map[string]string `json:"invalid,omitempty"`
	Files     int               `json:"files"`  // files in a searched language
	Parsed    int               `json:"parsed"` // files that could match and were parsed
	// Unreadable lists the directories the walk could not read.
	Unreadable workspace.UnreadableDirs `json:"unreadable,omitempty"`
	// Refused lists the files that were not searched because matching
	// them would take more than their budget (code nested thousands of
	// levels deep) or their tree more memory than one file may have
	// (syntax.TooBig), sorted by path.
	Refused []RefusedFile `json:"refused,omitempty"`

	filesIn map[string]int // files searched, by language
}

// RefusedFile is a file Search did not search, and why.
type RefusedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"` // an error wrapping ErrTooComplex or syntax.ErrTooBig, as text
}

// Search finds the pattern in the workspace. A pattern that is valid in
// none of the languages searched is an error naming them.
func Search(ctx context.Context, root *workspace.Root, opts Options) (*Result, error) {
	return SearchWith(ctx, root, opts, Sources{})
}

// SearchWith is Search lent what src holds: it answers the same, reading
// and parsing less.
func SearchWith(ctx context.Context, root *workspace.Root, opts Options, src Sources) (*Result, error) {
	res := &Result{Pattern: opts.Pattern, Invalid: map[string]string{}, filesIn: map[string]int{}}
	if _, err := prepare(newSteps(ctx), opts.Pattern); err != nil {
		return nil, err // wrong in every language alike
	}
	patterns, err := compilePatterns(ctx, opts, res)
	defer func() {
		for _, p := range patterns {
			p.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	for name := range patterns {
		res.Languages = append(res.Languages, name)
	}
	sort.Strings(res.Languages)

	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan searchJob, 64)
	var walkErr error
	skipped := map[string]bool{} // languages with files the pattern is not valid in
	go func() {
		defer close(jobs)
		walkErr = walkFor(ctx, root, opts, src.Listing, patterns, jobs, skipped, res.Unreadable.Add)
	}()

	// One search is one scan of the cache: repeated, it finds the trees
	// that fit even when it parses more than the cache holds.
	var scan *syntax.Scan
	if src.Cache != nil {
		scan = src.Cache.NewScan()
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				ms, parsed, err := searchJobFile(ctx, root, scan, src, j)
				mu.Lock()
				res.Files++
				res.filesIn[j.p.Lang.Name]++
				if parsed {
					res.Parsed++
				}
				res.Matches = append(res.Matches, ms...)
				switch {
				case errors.Is(err, ErrTooComplex) || errors.Is(err, syntax.ErrTooBig):
					// One hostile file must not cost the answer for the rest.
					res.Refused = append(res.Refused, RefusedFile{Path: j.rel, Reason: err.Error()})
				case err != nil && firstErr == nil:
					firstErr = err
					cancel() // the answer is an error now: stop the others
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait() // the walker has closed jobs, so it is done with skipped
	for name := range res.Invalid {
		if !skipped[name] {
			delete(res.Invalid, name)
		}
	}
	if walkErr != nil {
		return nil, walkErr
	}
	if firstErr != nil {
		return nil, firstErr
	}
	sort.Slice(res.Refused, func(i, j int) bool { return res.Refused[i].Path < res.Refused[j].Path })
	sort.Slice(res.Matches, func(i, j int) bool {
		a, b := res.Matches[i], res.Matches[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.StartByte < b.StartByte
	})
	return res, nil
}

// compilePatterns compiles the pattern for opts.Lang, or for every language
// it is valid in (recording in res.Invalid why not in the others). The
// patterns it returns are the caller's to close, error or not.
func compilePatterns(ctx context.Context, opts Options, res *Result) (map[string]*Pattern, error) {
	patterns := map[string]*Pattern{}
	if opts.Lang != "" {
		language := syntax.LanguageByName(opts.Lang)
		if language == nil {
			return patterns, fmt.Errorf("%w: unknown language %q; cchub knows %s", ErrBadPattern, opts.Lang, strings.Join(syntax.LanguageNames(), ", "))
		}
		p, err := Compile(ctx, opts.Pattern, language)
		if err != nil {
			return patterns, wrongLanguage(ctx, err)
		}
		patterns[language.Name] = p
		return patterns, nil
	}
	var errs []string
	for _, name := range syntax.LanguageNames() {
		p, err := Compile(ctx, opts.Pattern, syntax.LanguageByName(name))
		if err != nil {
			if !errors.Is(err, ErrBadPattern) {
				return patterns, err
			}
			res.Invalid[name] = err.Error()
			errs = append(errs, name)
			continue
		}
		patterns[name] = p
	}
	if len(patterns) == 0 {
		return patterns, fmt.Errorf("%w: `%s` is valid code in none of %s; check its syntax, or search with lang=LANG to see where it breaks in LANG",
			ErrBadPattern, opts.Pattern, strings.Join(errs, ", "))
	}
	return patterns, nil
}

// searchJob is one file to search, with the pattern of its language.
type searchJob struct {
	rel string
	d   fs.DirEntry
	p   *Pattern
}

// walkFor walks opts.Paths (over listing where it holds them) and sends
// each file of a searched language to jobs, with its pattern; skipped
// gets the languages whose files the pattern is not valid in. It stops
// with ctx's error once ctx is done.
func walkFor(ctx context.Context, root *workspace.Root, opts Options, listing *workspace.Listing, patterns map[string]*Pattern, jobs chan<- searchJob, skipped map[string]bool, unreadable func(string, error)) error {
	paths := opts.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	visit := func(rel string, d fs.DirEntry, _ *workspace.Dir) error {
		if d.IsDir() {
			return nil
		}
		language := syntax.LanguageFor(rel)
		if opts.Lang != "" {
			if language == nil || language.Name != opts.Lang && syntax.LanguageByName(opts.Lang) != language {
				return nil
			}
		}
		if language == nil {
			return nil
		}
		p := patterns[language.Name]
		if p == nil {
			skipped[language.Name] = true
			return nil
		}
		select {
		case jobs <- searchJob{rel, d, p}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, start := range paths {
		if err := root.WalkListed(ctx, listing, start, visit, unreadable); err != nil {
			return err
		}
	}
	return nil
}

// searchJobFile searches one file, unread when the token index says it
// lacks a literal of the pattern, in part when it says it parses cleanly.
func searchJobFile(ctx context.Context, root *workspace.Root, scan *syntax.Scan, src Sources, j searchJob) ([]Match, bool, error) {
	if src.Lacks != nil && len(j.p.lits) > 0 && src.Lacks(j.rel, j.d, j.p.lits) {
		return nil, false, nil
	}
	var clean func() bool
	if src.Clean != nil && j.p.partly() {
		clean = func() bool { return src.Clean(j.rel, j.d, j.p.lits) }
	}
	return searchFile(ctx, root, scan, j.rel, j.p, clean)
}

// wrongLanguage turns a pattern's error in the language asked for into one
// that names the languages the pattern does parse in, if there are any:
// most often the pattern is right and the language is not.
func wrongLanguage(ctx context.Context, err error) error {
	var inv *invalidError
	if !errors.As(err, &inv) {
		return err
	}
	var others []string
	for _, name := range syntax.LanguageNames() {
		if name == inv.language {
			continue
		}
		if p, err := Compile(ctx, inv.source, syntax.LanguageByName(name)); err == nil {
			p.Close()
			others = append(others, name)
		}
	}
	if len(others) == 0 {
		return err
	}
	var with []string
	for _, name := range others {
		with = append(with, "lang="+name)
	}
	how := with[0]
	if len(with) > 1 {
		how = strings.Join(with[:len(with)-1], ", ") + " or " + with[len(with)-1]
	}
	return fmt.Errorf("%w: `%s` is not valid %s, but this pattern parses as %s: search with %s (as %s: %s)",
		ErrBadPattern, inv.source, inv.language, strings.Join(others, ", "), how, inv.language, strings.Join(inv.tries, "; "))
}

// searchFile reads, prefilters, parses and matches one file. Files that
// are not text (binary, too large) are skipped, as grep does; text that is
// not all UTF-8 (a Latin-1 comment) is searched like the rest. A file that
// matching would take too long on is an error wrapping ErrTooComplex, one
// too large to parse an error wrapping syntax.ErrTooBig. clean, if not
// nil, says whether the file is known to parse without a syntax error, so
// that the parts that can hold a match may be parsed alone (matchParts),
// when the cache has no tree of it.
func searchFile(ctx context.Context, root *workspace.Root, scan *syntax.Scan, rel string, p *Pattern, clean func() bool) ([]Match, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	// Read through the root's handle: a directory swapped for a symlink
	// since the walk listed rel cannot lead the read outside.
	src, err := root.ReadText(rel)
	if err != nil && !errors.Is(err, workspace.ErrInvalidUTF8) {
		return nil, false, nil
	}
	if !p.MayMatch(src) {
		return nil, false, nil
	}
	var tree *syntax.Tree
	if clean != nil && clean() {
		if scan != nil {
			tree = scan.Cached(rel, p.Lang, src) // parsed whole before: cheaper
		}
		if tree == nil {
			ms, ok, err := p.matchParts(ctx, src)
			if ok || err != nil {
				for i := range ms {
					ms[i].Path = rel
				}
				return ms, true, err
			}
		}
	}
	switch {
	case tree != nil:
	case scan != nil:
		tree, err = scan.Parse(ctx, rel, p.Lang, src)
	default:
		tree, err = syntax.ParseOnce(ctx, p.Lang, src)
	}
	if tb := (*syntax.TooBigError)(nil); errors.As(err, &tb) {
		return nil, false, fmt.Errorf("%w; grep path=%s searches its text", tb, rel)
	}
	if err != nil {
		// tree-sitter fails only when cancelled or limited, never on bad
		// syntax: a file left unsearched must not pass for no match.
		return nil, true, fmt.Errorf("structsearch: parse %s: %w", rel, err)
	}
	defer tree.Release()
	ms, err := p.Match(ctx, tree.RootNode(), tree.Source)
	if err != nil {
		return nil, true, err
	}
	for i := range ms {
		ms[i].Path = rel
	}
	return ms, true, nil
}
