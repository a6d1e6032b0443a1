package textedit

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"cchub/syntax"
	"cchub/textfmt"
	"cchub/workspace"
)

// Seen remembers, for one conversation, the content hash of what it last
// saw of each file (by read, edit or write), so an edit to a file that
// changed on disk since is refused instead of applied to text the model
// has not seen. The zero value is ready to use; a nil *Seen tracks nothing.
type Seen struct {
	mu     sync.Mutex
	keeper SeenKeeper // nil: this process is the whole conversation
	hashes map[string][32]byte
	// parts are files too large to read whole that the conversation has
	// paged through: seen, without a hash to check.
	parts map[string]bool
	// texts are the contents last seen of the files seen most recently,
	// within seenTextBytes (oldest dropped first): what a line and column
	// the conversation took from them pointed at (see Text).
	texts     map[string]string
	textOrder []string
	textBytes int
}

// seenTextBytes bounds the contents a Seen keeps; seenTextFile is the
// largest content it keeps.
const (
	seenTextBytes = 8 << 20
	seenTextFile  = 1 << 20
)

// SeenKeeper keeps what a conversation saw beyond one process: separate
// CLI calls joined into one run by name share it through the store.
type SeenKeeper interface {
	Saw(rel string, hash [32]byte)
	SawPart(rel string)
	Forget(rel string)
}

// Keep starts s from what k kept of the conversation (hashes of files
// seen whole, files seen in part) and has k keep what s sees from now on.
func (s *Seen) Keep(k SeenKeeper, hashes map[string][32]byte, parts map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keeper = k
	if s.hashes == nil {
		s.hashes = map[string][32]byte{}
	}
	for rel, h := range hashes {
		s.hashes[rel] = h
	}
	if s.parts == nil {
		s.parts = map[string]bool{}
	}
	for rel := range parts {
		s.parts[rel] = true
	}
}

// SawPart records that the conversation has read part of rel, a file too
// large to read whole.
func (s *Seen) SawPart(rel string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parts == nil {
		s.parts = map[string]bool{}
	}
	s.parts[rel] = true
	if s.keeper != nil {
		s.keeper.SawPart(rel)
	}
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
	h := sha256.Sum256(data)
	s.hashes[rel] = h
	s.keepText(rel, data)
	if s.keeper != nil {
		s.keeper.Saw(rel, h)
	}
}

// keepText keeps data as rel's content seen, dropping the oldest contents
// kept beyond the bound. s.mu is held.
func (s *Seen) keepText(rel string, data []byte) {
	s.dropText(rel)
	if len(data) > seenTextFile {
		return
	}
	if s.texts == nil {
		s.texts = map[string]string{}
	}
	s.texts[rel] = string(data)
	s.textOrder = append(s.textOrder, rel)
	s.textBytes += len(data)
	for s.textBytes > seenTextBytes && len(s.textOrder) > 0 {
		s.dropText(s.textOrder[0])
	}
}

// dropText forgets rel's content. s.mu is held.
func (s *Seen) dropText(rel string) {
	t, ok := s.texts[rel]
	if !ok {
		return
	}
	delete(s.texts, rel)
	s.textBytes -= len(t)
	if i := slices.Index(s.textOrder, rel); i >= 0 {
		s.textOrder = slices.Delete(s.textOrder, i, i+1)
	}
}

// Text is the content the conversation last saw of rel, when this process
// still keeps it (the files seen most recently, not too large; not what
// other calls of a named run saw).
func (s *Seen) Text(rel string) (string, bool) {
	if s == nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.texts[rel]
	return t, ok
}

// Changed says whether the conversation saw rel whole with other content
// than data.
func (s *Seen) Changed(rel string, data []byte) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.hashes[rel]
	return ok && h != sha256.Sum256(data)
}

// Has says whether the conversation has seen rel at all. A nil *Seen,
// which tracks nothing, has seen everything.
func (s *Seen) Has(rel string) bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.hashes[rel]
	return ok || s.parts[rel]
}

// Forget drops what is known of rel (it was deleted or moved).
func (s *Seen) Forget(rel string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.hashes, rel)
	delete(s.parts, rel)
	s.dropText(rel)
	if s.keeper != nil {
		s.keeper.Forget(rel)
	}
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

// Files changes the files of one root, one change at a time per file
// across every process that works on the root, and writes them
// atomically. The zero value is not usable; call NewFiles.
type Files struct {
	root *workspace.Root
	// parses, when set, holds the trees the syntax guard starts from:
	// a file outlined or searched before it is edited is not parsed again.
	parses *syntax.ParseCache
}

// WithParseCache has the syntax guard take the trees of files before an
// edit from c (and leave them there), and returns f.
func (f *Files) WithParseCache(c *syntax.ParseCache) *Files {
	f.parses = c
	return f
}

// NewFiles returns the editor of root's files.
func NewFiles(root *workspace.Root) *Files {
	return &Files{root: root}
}

// lock holds rels against every other change, in this process or another,
// from before they are read until after they are written: an edit lands on
// the content it was checked against, or not at all.
func (f *Files) lock(ctx context.Context, rels ...string) (func(), error) {
	return f.root.LockFiles(ctx, rels...)
}

// writeError says that nothing was written; the refusals of WriteFile
// (read-only, protected, not a regular file) already say why and what to
// do, and are passed on as they are.
func writeError(rel string, err error) error {
	if errors.Is(err, workspace.ErrReadOnly) || errors.Is(err, workspace.ErrProtected) || errors.Is(err, workspace.ErrOutsideRoot) {
		return err
	}
	return fmt.Errorf("textedit: write %s: %w; the file was not changed", rel, err)
}

// wrote is rel written with data, having held old.
func wrote(rel string, old, data []byte) workspace.Written {
	if data == nil {
		data = []byte{}
	}
	return workspace.Written{Path: rel, Old: old, New: data}
}

// EditResult is what an edit tells its caller.
type EditResult struct {
	Path string `json:"path"`
	Applied
	// Written is the file before and after the edit.
	Written []workspace.Written `json:"-"`
}

// Edit applies ch to the file at path, checking first that seen (one
// conversation's memory; may be nil) saw the file as it is now.
func (f *Files) Edit(ctx context.Context, path string, ch Change, seen *Seen) (*EditResult, error) {
	if err := workspace.CheckFilePath(path); err != nil {
		return nil, err
	}
	_, rel, err := f.root.Resolve(path)
	if err != nil {
		return nil, err
	}
	unlock, err := f.lock(ctx, rel)
	if err != nil {
		return nil, err
	}
	defer unlock()
	data, err := f.root.ReadText(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, failf(ErrMissingTarget, "%s does not exist; to create it, use write", rel)
		}
		return nil, failf(ErrNotText, "cannot edit %s: %v", rel, err)
	}
	if err := seen.Fresh(rel, data); err != nil {
		return nil, err
	}
	a, err := applyEdit(ctx, data, rel, ch, f.parses)
	if err != nil {
		return nil, err
	}
	if _, err := f.root.WriteFile(rel, a.Data, 0o644); err != nil {
		return nil, writeError(rel, err)
	}
	seen.Saw(rel, a.Data)
	return &EditResult{Path: rel, Applied: *a, Written: []workspace.Written{wrote(rel, data, a.Data)}}, nil
}

// WriteResult is what a write tells its caller.
type WriteResult struct {
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Lines   int    `json:"lines"`
	Bytes   int    `json:"bytes"`
	// Written is the file before and after the write.
	Written []workspace.Written `json:"-"`
}

// WriteOptions says how write treats an existing file.
type WriteOptions struct {
	// KeepStyle converts content to the existing file's line endings and
	// keeps its byte-order mark.
	KeepStyle bool
	// ReadFirst refuses to replace an existing file that seen has never
	// seen (ErrNotRead): a conversation overwrites only what it has read.
	// The MCP tool sets it; a CLI call, a conversation of its own, does
	// not.
	ReadFirst bool
}

// Write replaces (or creates) the file at path with content. An existing
// file keeps its mode; with KeepStyle, also its line endings and BOM.
func (f *Files) Write(ctx context.Context, path, content string, opts WriteOptions, seen *Seen) (*WriteResult, error) {
	if err := workspace.CheckFilePath(path); err != nil {
		return nil, err
	}
	_, rel, err := f.root.Resolve(path)
	if err != nil {
		return nil, err
	}
	unlock, err := f.lock(ctx, rel)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := f.root.StatWritable(rel)
	if err != nil {
		return nil, err
	}
	created := st == nil
	if !created && opts.ReadFirst && !seen.Has(rel) {
		return nil, failf(ErrNotRead, "%s exists and has not been read in this conversation; read it first (read path=%s) so that nothing in it is lost unseen, then write it, or change part of it with edit", rel, rel)
	}
	data := []byte(content)
	// A file too large to read was never seen whole, so there is nothing
	// to compare it with; its style is not worth reading it for.
	var old []byte
	if !created && st.Size() <= workspace.MaxFileBytes {
		old, err = f.root.ReadInto(rel, nil, workspace.MaxFileBytes)
		if err != nil {
			return nil, err
		}
		if err := seen.Fresh(rel, old); err != nil {
			return nil, err
		}
		if opts.KeepStyle {
			data = textfmt.DecodeText(old).Encode(textfmt.ToLF(content))
		}
	}
	if _, err := f.root.WriteFile(rel, data, 0o644); err != nil {
		return nil, writeError(rel, err)
	}
	seen.Saw(rel, data)
	lines := len(splitLines(string(data)))
	return &WriteResult{Path: rel, Created: created, Lines: lines, Bytes: len(data), Written: []workspace.Written{wrote(rel, old, data)}}, nil
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
	b.WriteString("Edited " + textfmt.Place(r.Path, r.FirstLine, r.LastLine))
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
