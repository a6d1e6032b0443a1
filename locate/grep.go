package locate

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp/syntax"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"cchub/textfmt"
	"cchub/workspace"
)

// DefaultGrepLimit is how many matching lines Grep shows when the caller
// gives no limit.
const DefaultGrepLimit = 100

// MaxGrepFileBytes is the largest file grep searches. It is far above
// workspace.MaxFileBytes: grep is how a model finds its way in files too
// large to read whole.
const MaxGrepFileBytes = 256 << 20

// GrepOptions says what Grep looks for, and where.
type GrepOptions struct {
	// Pattern is an RE2 regular expression (Go regexp syntax), or literal
	// text when Literal is set. It is matched line by line.
	Pattern    string `json:"pattern"`
	Literal    bool   `json:"literal,omitempty"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	// Path is a file or directory to search; empty means the root.
	Path string `json:"path,omitempty"`
	// Include keeps only files whose path matches this glob, with Glob's
	// semantics ("*.go" matches at any depth).
	Include string `json:"include,omitempty"`
	// Limit caps the matching lines shown; 0 means DefaultGrepLimit.
	Limit int `json:"limit,omitempty"`
}

// Sources is what a caller that keeps state about the workspace lends
// Grep so that it reads less (the hub does); the zero value walks the
// disk and reads every file. They change what Grep reads, never what it
// answers.
type Sources struct {
	// Lacks, when set, says without reading it that the file rel (d its
	// directory entry) is text and holds not every one of lits (a token
	// index); false when unsure. Such a file counts as searched, and is
	// not read.
	Lacks workspace.TokenFilter
	// Listing, when set, is a walk of the root kept by a caller whose
	// file watcher vouches for it: it is walked instead of the disk
	// (where it holds opts.Path as a directory), and its entries give
	// Lacks their stat with no system call.
	Listing *workspace.Listing
}

// GrepMatch is one matching line.
type GrepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
	// Chars is the line's full length in characters when Text was cut
	// at MaxLineChars; 0 when Text is the whole line.
	Chars int `json:"chars,omitempty"`
}

// GrepResult is the matching lines, in path order then line order.
type GrepResult struct {
	Pattern string      `json:"pattern"`
	Path    string      `json:"path"`
	Include string      `json:"include,omitempty"`
	Matches []GrepMatch `json:"matches"`
	// Total counts every matching line, shown or not; a line with two
	// matches counts once.
	Total     int  `json:"total"`
	Truncated bool `json:"truncated"`
	// Files counts the files with at least one matching line.
	Files int `json:"files"`
	// Searched counts the text files searched.
	Searched      int  `json:"searched"`
	SkippedBinary int  `json:"skipped_binary,omitempty"`
	SkippedLarge  int  `json:"skipped_large,omitempty"`
	PathIgnored   bool `json:"path_ignored,omitempty"` // Path itself is ignored by .gitignore
	// Unreadable lists the directories that could not be listed: their
	// files were not searched.
	Unreadable workspace.UnreadableDirs `json:"unreadable,omitempty"`
	ignoreCase bool
}

// Grep searches the text files under opts.Path (or the one file it names)
// for lines matching opts.Pattern. Like Glob, it skips what .gitignore
// ignores and the .git and .cchub directories; it also skips binary files
// (a NUL byte in the first 8 KiB) and files over MaxGrepFileBytes, and says
// how many it skipped.
//
// Files are searched in parallel; the result is deterministic all the same.
func Grep(ctx context.Context, root *workspace.Root, opts GrepOptions) (*GrepResult, error) {
	return GrepWith(ctx, root, opts, Sources{})
}

// GrepWith is Grep lent what src holds: it answers the same, reading less.
func GrepWith(ctx context.Context, root *workspace.Root, opts GrepOptions, src Sources) (*GrepResult, error) {
	if opts.Pattern == "" {
		return nil, errors.New("grep: the pattern is empty; give a regular expression (RE2 syntax), or text with literal: true")
	}
	m, err := compileMatcher(opts.Pattern, opts.Literal, opts.IgnoreCase)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			return nil, fmt.Errorf("grep: invalid regexp `%s`: %v; to search for the text as written, pass literal: true (or escape the special characters with \\)", opts.Pattern, err)
		}
		return nil, fmt.Errorf("grep: %w", err)
	}
	_, rel, st, err := root.ResolveExisting(ctx, opts.Path)
	if err != nil {
		return nil, err
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultGrepLimit
	}
	res := &GrepResult{Pattern: opts.Pattern, Path: rel, Include: opts.Include, Matches: []GrepMatch{}, ignoreCase: opts.IgnoreCase}
	var workers []*grepWorker
	if st.IsDir() {
		var inc *pathGlob
		if opts.Include != "" {
			if inc, err = newPathGlob(root, opts.Include, rel); err != nil {
				return nil, fmt.Errorf("grep: include: %w", err)
			}
		}
		if workers, res.PathIgnored, err = grepTree(ctx, root, rel, inc, m, limit, src, res.Unreadable.Add); err != nil {
			return nil, err
		}
	} else {
		// A file named outright is searched even if .gitignore ignores
		// it or include would not pick it: the caller asked for it.
		w := newGrepWorker(m.clone(), limit)
		o, err := root.OpenRead(rel, MaxGrepFileBytes)
		switch {
		case errors.Is(err, workspace.ErrTooLarge):
			return nil, fmt.Errorf("grep: %s is %s bytes, over grep's limit of %s", rel, textfmt.Thousands(int(st.Size())), textfmt.Thousands(MaxGrepFileBytes))
		case errors.Is(err, workspace.ErrNotRegular):
			return nil, fmt.Errorf("grep: %s is not a regular file (%v); grep searches files and directories", rel, st.Mode().Type())
		case err != nil:
			return nil, fmt.Errorf("grep: %w", err)
		}
		err = w.search(ctx, 0, rel, &o)
		o.Close()
		switch {
		case errors.Is(err, errBinary):
			return nil, fmt.Errorf("grep: %s is a binary file (a NUL byte in its first 8 KiB); grep searches text files only", rel)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			return nil, fmt.Errorf("grep: %w", err)
		}
		workers = []*grepWorker{w}
	}
	res.merge(workers, limit)
	return res, nil
}

// grepTree searches the files under dir with runtime.NumCPU() workers fed
// by one walk. Every worker has returned when it returns.
func grepTree(ctx context.Context, root *workspace.Root, dir string, inc *pathGlob, m *lineMatcher, limit int, src Sources, unreadable func(string, error)) ([]*grepWorker, bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Jobs go in batches: a hand-over per file wakes a worker per file,
	// and the scheduler's spinning to find it costs more than the
	// file's read (GOROOT: ten thousand sleeps a grep).
	jobs := make(chan []grepJob, 16)
	workers := make([]*grepWorker, runtime.NumCPU())
	var wg sync.WaitGroup
	for i := range workers {
		w := newGrepWorker(m.clone(), limit)
		if alts := m.required(); src.Lacks != nil && len(alts) > 0 {
			w.lacks, w.alts = src.Lacks, alts
		}
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ctx, root, jobs)
		}()
	}
	// Over a Listing, the token index's answer costs no system call: the
	// walk asks it, and hands the workers only the files to read (ten
	// thousand hand-overs cost more than the answers).
	var asker *grepWorker
	if src.Listing != nil && workers[0].lacks != nil {
		asker = &grepWorker{lacks: workers[0].lacks, alts: workers[0].alts} // reads nothing
		for _, w := range workers {
			w.lacks = nil
		}
	}
	seq, visited := 0, false
	var batch []grepJob
	send := func() error {
		if len(batch) == 0 {
			return nil
		}
		select {
		case jobs <- batch:
			batch = make([]grepJob, 0, grepBatch)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := root.WalkListed(ctx, src.Listing, dir, func(p string, d fs.DirEntry, in *workspace.Dir) error {
		visited = true
		if d.IsDir() || (inc != nil && !inc.Match(p)) {
			return nil
		}
		if asker != nil && asker.lacksAll(grepJob{path: p, d: d}) {
			asker.searched++ // a text file, searched without being read
			seq++
			return nil
		}
		in.Hold() // the worker that reads the file lets go of it
		batch = append(batch, grepJob{seq: seq, path: p, d: d, dir: in})
		seq++
		if len(batch) < grepBatch {
			return nil
		}
		return send()
	}, unreadable)
	if err == nil {
		err = send()
	}
	for _, j := range batch {
		j.dir.Release() // not sent: the walk ended early
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, false, err
	}
	if asker != nil {
		workers = append(workers, asker)
	}
	return workers, !visited, nil
}

type grepJob struct {
	seq  int // walk order, which is the order of the result
	path string
	d    fs.DirEntry
	dir  *workspace.Dir // held for the job: the worker releases it
}

// grepFile is one file's matches: all counted, the first limit kept.
type grepFile struct {
	seq     int
	count   int
	matches []GrepMatch
}

// grepWorker searches files and keeps, of the matches it found, only those
// that can be among the first limit of the whole result: the files with
// the lowest walk order whose kept matches add up to limit.
type grepWorker struct {
	m     *lineMatcher
	limit int
	buf   []byte

	kept        fileHeap // max-heap on seq
	keptMatches int

	total, files, searched, binary, large int

	// A token index's answer, and the literals matches hold (see
	// lineMatcher.required).
	lacks workspace.TokenFilter
	alts  [][][]byte
}

// lacksAll says whether the token index rules out every alternative for
// the file.
func (w *grepWorker) lacksAll(j grepJob) bool {
	for _, lits := range w.alts {
		if !w.lacks(j.path, j.d, lits) {
			return false
		}
	}
	return true
}

func newGrepWorker(m *lineMatcher, limit int) *grepWorker {
	return &grepWorker{m: m, limit: limit, buf: make([]byte, 0, grepReadSize)}
}

func (w *grepWorker) run(ctx context.Context, root *workspace.Root, jobs <-chan []grepJob) {
	for batch := range jobs {
		for _, j := range batch {
			w.runOne(ctx, root, j)
			j.dir.Release()
		}
	}
}

// grepBatch is how many files a worker is handed at once.
const grepBatch = 32

// runOne searches the file of one job, unless the search is over.
func (w *grepWorker) runOne(ctx context.Context, root *workspace.Root, j grepJob) {
	if ctx.Err() != nil {
		return // drain, so the walk never blocks on a full channel
	}
	if w.lacks != nil && w.lacksAll(j) {
		w.searched++ // a text file, searched without being read
		return
	}
	o, err := root.OpenReadAt(j.dir, j.d, j.path, MaxGrepFileBytes)
	if err != nil {
		if errors.Is(err, workspace.ErrTooLarge) {
			w.large++
		}
		return // a pipe or device, or vanished or unreadable since the walk: skipped, as by git
	}
	err = w.search(ctx, j.seq, j.path, &o)
	o.Close()
	switch {
	case errors.Is(err, errBinary):
		w.binary++
	case errors.Is(err, workspace.ErrTooLarge):
		w.large++ // grew past the limit while it was read
	}
}

// grepReadSize is how much of a file a worker reads at once. A file is
// searched a piece at a time, while the piece is still in the CPU's cache,
// and a large file needs no buffer its size: reading GOROOT's large
// files whole cost a fifth of a grep in allocation and page faults.
const grepReadSize = 128 << 10

// errBinary is search's refusal of a binary file.
var errBinary = errors.New("a binary file")

// search reads one file from src a buffer at a time and finds its
// matching lines. It refuses a binary file (a NUL byte in its first 8 KiB)
// with errBinary, and gives up, counting nothing, on a read's error or when
// ctx ends.
func (w *grepWorker) search(ctx context.Context, seq int, rel string, src *workspace.Opened) error {
	// Text and line numbers cost time; skip them when this file comes after
	// enough kept matches to fill the result.
	keep := w.keptMatches < w.limit || seq < w.kept[0].seq
	var count int
	var matches []GrepMatch
	buf := w.buf[:0]
	defer func() { w.buf = buf[:0] }()
	// buf[start:] is read and not yet searched; line is the number of the
	// line buf[counted] is on.
	start, counted, line := 0, 0, 1
	looked := false // at the head of the file: binary, byte-order mark
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(buf) == cap(buf) {
			if start == 0 {
				buf = slices.Grow(buf, cap(buf)) // a line longer than the buffer
			} else {
				// The searched lines make room; their line breaks are
				// counted first, while a match after them may be shown.
				if keep && len(matches) < w.limit {
					line += bytes.Count(buf[counted:start], []byte{'\n'})
				}
				buf = buf[:copy(buf, buf[start:])]
				start, counted = 0, 0
			}
		}
		var end bool
		var err error
		if buf, end, err = src.ReadMore(buf); err != nil {
			return err
		}
		if !looked {
			if !end && len(buf) < workspace.BinaryHead {
				continue
			}
			looked = true
			if workspace.IsBinary(buf) {
				return errBinary
			}
			// The byte-order mark is not text: ^ matches after it, as
			// read shows.
			if text, ok := textfmt.CutBOM(buf); ok {
				start = len(buf) - len(text)
				counted = start
			}
		}
		// Only whole lines are matched, so ^ and $ mean what they mean in
		// the whole file.
		stop := len(buf)
		if !end {
			i := bytes.LastIndexByte(buf[start:], '\n')
			if i < 0 {
				continue
			}
			stop = start + i + 1
		}
		w.m.eachLine(buf[start:stop], func(s, e int) bool {
			s, e = s+start, e+start
			count++
			if keep && len(matches) < w.limit {
				line += bytes.Count(buf[counted:s], []byte{'\n'})
				counted = s
				matches = append(matches, newGrepMatch(rel, line, buf[s:e]))
			}
			return true
		})
		start = stop
		if end {
			break
		}
	}
	w.searched++
	if count == 0 {
		return nil
	}
	w.total += count
	w.files++
	if len(matches) == 0 {
		return nil
	}
	heap.Push(&w.kept, &grepFile{seq: seq, count: count, matches: matches})
	w.keptMatches += len(matches)
	for len(w.kept) > 1 && w.keptMatches-len(w.kept[0].matches) >= w.limit {
		top := heap.Pop(&w.kept).(*grepFile)
		w.keptMatches -= len(top.matches)
	}
	return nil
}

func newGrepMatch(rel string, line int, text []byte) GrepMatch {
	text = textfmt.TrimCR(text)
	g := GrepMatch{Path: rel, Line: line}
	if len(text) > MaxLineChars {
		if n := utf8.RuneCount(text); n > MaxLineChars {
			g.Chars = n
			text = cutChars(text, MaxLineChars)
		}
	}
	if utf8.Valid(text) {
		g.Text = string(text)
	} else {
		g.Text = strings.ToValidUTF8(string(text), "\uFFFD")
	}
	return g
}

// merge combines the workers' counts and kept matches into r.
func (r *GrepResult) merge(workers []*grepWorker, limit int) {
	var files []*grepFile
	for _, w := range workers {
		r.Total += w.total
		r.Files += w.files
		r.Searched += w.searched
		r.SkippedBinary += w.binary
		r.SkippedLarge += w.large
		files = append(files, w.kept...)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].seq < files[j].seq })
	for _, f := range files {
		for _, m := range f.matches {
			if len(r.Matches) == limit {
				break
			}
			r.Matches = append(r.Matches, m)
		}
	}
	r.Truncated = r.Total > len(r.Matches)
}

// Text is the result as a model reads it: a summary, then the matching
// lines grouped by file, each "N\ttext" under its file's path:
//
//	Found 3 matches in 2 files
//	src/a.go
//	12	func main() {
//	40		main()
//	src/b.go
//	3	package b
func (r *GrepResult) Text() string {
	if r.Total == 0 {
		return r.noMatchText() + r.Unreadable.Note("their files were not searched")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %s in %s", plural(r.Total, "match", "matches"), plural(r.Files, "file", "files"))
	if r.Truncated {
		fmt.Fprintf(&b, "; showing the first %d. Narrow with a more specific pattern, a path, or include (e.g. \"*.go\"), or raise limit", len(r.Matches))
	}
	b.WriteByte('\n')
	prev := ""
	for _, m := range r.Matches {
		if m.Path != prev {
			b.WriteString(textfmt.ShowPath(m.Path) + "\n")
			prev = m.Path
		}
		b.WriteString(ReadLine{Line: m.Line, Text: m.Text, Chars: m.Chars}.text())
	}
	b.WriteString(r.Unreadable.Note("their files were not searched"))
	return b.String()
}

func (r *GrepResult) noMatchText() string {
	var b strings.Builder
	where := r.Path
	if where == "." {
		where = "the workspace"
	}
	if r.PathIgnored {
		fmt.Fprintf(&b, "No matches for `%s`: %s is ignored by .gitignore, so grep does not search it. Read its files by path instead.\n", r.Pattern, r.Path)
		return b.String()
	}
	if r.Include != "" && r.Searched+r.SkippedBinary+r.SkippedLarge == 0 {
		fmt.Fprintf(&b, "No matches for `%s`: no files in %s match include %q (it matches like glob: without a slash, file names at any depth).\n", r.Pattern, where, r.Include)
		return b.String()
	}
	fmt.Fprintf(&b, "No matches for `%s` in %s", r.Pattern, where)
	if r.Include != "" {
		fmt.Fprintf(&b, " among files matching %q", r.Include)
	}
	fmt.Fprintf(&b, " (searched %s", plural(r.Searched, "text file", "text files"))
	if r.SkippedBinary > 0 {
		fmt.Fprintf(&b, "; skipped %s", plural(r.SkippedBinary, "binary file", "binary files"))
	}
	if r.SkippedLarge > 0 {
		fmt.Fprintf(&b, "; skipped %s over %d MiB", plural(r.SkippedLarge, "file", "files"), MaxGrepFileBytes>>20)
	}
	b.WriteString("; files ignored by .gitignore are not searched).")
	if !r.ignoreCase && strings.ContainsFunc(r.Pattern, unicode.IsLetter) {
		b.WriteString(" The search is case-sensitive; ignore_case: true widens it.")
	}
	b.WriteByte('\n')
	return b.String()
}

// fileHeap is a max-heap of files on walk order.
type fileHeap []*grepFile

func (h fileHeap) Len() int           { return len(h) }
func (h fileHeap) Less(i, j int) bool { return h[i].seq > h[j].seq }
func (h fileHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *fileHeap) Push(x any)        { *h = append(*h, x.(*grepFile)) }
func (h *fileHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
