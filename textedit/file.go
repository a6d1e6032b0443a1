package textedit

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"cchub/workspace"
)

// Seen remembers, for one conversation, the content hash of what it last
// saw of each file (by read, edit or write), so an edit to a file that
// changed on disk since is refused instead of applied to text the model
// has not seen. The zero value is ready to use; a nil *Seen tracks nothing.
type Seen struct {
	mu     sync.Mutex
	hashes map[string][32]byte
}

// Saw records that the conversation has seen data as the content of rel.
func (s *Seen) Saw(rel string, data []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hashes == nil {
		s.hashes = map[string][32]byte{}
	}
	s.hashes[rel] = sha256.Sum256(data)
}

// Forget drops what is known of rel (it was deleted or moved).
func (s *Seen) Forget(rel string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.hashes, rel)
}

// Fresh returns an error if the conversation saw rel with other content
// than data. A file it never saw is fresh: the matcher still guards it.
func (s *Seen) Fresh(rel string, data []byte) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.hashes[rel]
	if !ok || h == sha256.Sum256(data) {
		return nil
	}
	return failf(ErrStale, "%s changed on disk since you last read it; read it again (read path=%s), then edit", rel, rel)
}

// Files serializes changes per file and writes them atomically. The zero
// value is not usable; call NewFiles.
type Files struct {
	root  *workspace.Root
	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// NewFiles returns the editor of root's files.
func NewFiles(root *workspace.Root) *Files {
	return &Files{root: root, locks: map[string]*sync.Mutex{}}
}

// lock serializes changes to one file; edits to different files run
// concurrently.
func (f *Files) lock(abs string) func() {
	f.mu.Lock()
	m, ok := f.locks[abs]
	if !ok {
		m = &sync.Mutex{}
		f.locks[abs] = m
	}
	f.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// EditResult is what an edit tells its caller.
type EditResult struct {
	Path string `json:"path"`
	Applied
}

// Edit applies ch to the file at path, checking first that seen (one
// conversation's memory; may be nil) saw the file as it is now.
func (f *Files) Edit(path string, ch Change, seen *Seen) (*EditResult, error) {
	abs, rel, err := f.root.Resolve(path)
	if err != nil {
		return nil, err
	}
	defer f.lock(abs)()
	data, err := workspace.ReadText(abs, rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, failf(ErrMissingTarget, "%s does not exist; to create it, use write", rel)
		}
		return nil, failf(ErrNotText, "cannot edit %s: %v", rel, err)
	}
	if err := seen.Fresh(rel, data); err != nil {
		return nil, err
	}
	a, err := Apply(data, rel, ch)
	if err != nil {
		return nil, err
	}
	if err := workspace.WriteAtomic(abs, a.Data, 0o644); err != nil {
		return nil, fmt.Errorf("textedit: write %s: %w", rel, err)
	}
	seen.Saw(rel, a.Data)
	return &EditResult{Path: rel, Applied: *a}, nil
}

// WriteResult is what a write tells its caller.
type WriteResult struct {
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Lines   int    `json:"lines"`
	Bytes   int    `json:"bytes"`
}

// WriteOptions says how write treats an existing file.
type WriteOptions struct {
	// KeepStyle converts content to the existing file's line endings and
	// keeps its byte-order mark.
	KeepStyle bool
}

// Write replaces (or creates) the file at path with content. An existing
// file keeps its mode; with KeepStyle, also its line endings and BOM.
func (f *Files) Write(path, content string, opts WriteOptions, seen *Seen) (*WriteResult, error) {
	abs, rel, err := f.root.Resolve(path)
	if err != nil {
		return nil, err
	}
	defer f.lock(abs)()
	st, err := workspace.StatWritable(abs, rel)
	if err != nil {
		return nil, err
	}
	created := st == nil
	data := []byte(content)
	if !created {
		old, err := os.ReadFile(abs)
		if err != nil {
			return nil, err
		}
		if err := seen.Fresh(rel, old); err != nil {
			return nil, err
		}
		if opts.KeepStyle {
			data = workspace.DecodeText(old).Encode(workspace.ToLF(content))
		}
	}
	if err := workspace.WriteAtomic(abs, data, 0o644); err != nil {
		return nil, fmt.Errorf("textedit: write %s: %w", rel, err)
	}
	seen.Saw(rel, data)
	lines := len(splitLines(string(data)))
	return &WriteResult{Path: rel, Created: created, Lines: lines, Bytes: len(data)}, nil
}

// Text is the model-facing answer of an edit: the changed place, then the
// changed lines with a few lines around them, numbered:
//
//	Edited src/a.go:12-13
//	9	func f() {
//	...
//
// A deletion names the line where the text was; several replacements
// show the first.
func (r *EditResult) Text() string {
	var b strings.Builder
	b.WriteString("Edited " + workspace.Place(r.Path, r.FirstLine, r.LastLine))
	var notes []string
	if r.LastLine < r.FirstLine {
		notes = append(notes, "deleted text")
	}
	if r.Replacements > 1 {
		notes = append(notes, fmt.Sprintf("%d places; first shown", r.Replacements))
	}
	if len(notes) > 0 {
		b.WriteString(" (" + strings.Join(notes, "; ") + ")")
	}
	b.WriteByte('\n')
	b.WriteString(r.Snippet)
	return b.String()
}

// Text is the model-facing answer of a write.
func (r *WriteResult) Text() string {
	verb := "Wrote"
	if r.Created {
		verb = "Created"
	}
	return fmt.Sprintf("%s %s (%d lines, %d bytes)\n", verb, r.Path, r.Lines, r.Bytes)
}
