package astedit

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"cchub/store"
	"cchub/unidiff"
)

// FileEdit is one file's part of a change: its content when the change
// was made, and what it becomes.
type FileEdit struct {
	Path string
	Old  []byte // nil: the file does not exist yet
	New  []byte // nil: the file is deleted
	// Mode is a new file's mode (0: 0644); a file that exists keeps its own.
	Mode fs.FileMode
}

// Location is one place a change touches: a match of a rewrite, a
// renamed identifier.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"` // the place's first line, clipped
}

// Change is a change to make to several files at once, whole or not at
// all.
type Change struct {
	Kind      string // rewrite, rename, patch
	Title     string
	Files     []FileEdit
	Locations []Location
	// Nested counts matches inside matches that were rewritten: a rewrite
	// takes the outermost, so these wait for another run. Overlapping
	// counts matches that overlapped a rewritten one without being inside
	// it; they are never both applied.
	Nested      int
	Overlapping int
	// Unchanged counts matches whose replacement is the text they had.
	Unchanged int
	// Unorganized are the files whose imports were to be organized by a
	// language server that did not do it, and UnorganizedWhy says why:
	// written as staged they may not build, so they are organized (or
	// the change refused) when it is applied.
	Unorganized    []string
	UnorganizedWhy string
}

// report is what a staged change keeps besides its files.
type report struct {
	Locations   []Location `json:"locations,omitempty"`
	Nested      int        `json:"nested,omitempty"`
	Overlapping int        `json:"overlapping,omitempty"`
	Unchanged   int        `json:"unchanged,omitempty"`
	Unorganized []string   `json:"unorganized,omitempty"`
	Why         string     `json:"unorganized_why,omitempty"`
}

// Staged is a change as it was staged: its id, what it does, and per
// file the diff a reviewer reads.
type Staged struct {
	ID          string       `json:"id"`
	Kind        string       `json:"kind"`
	Title       string       `json:"title"`
	Created     time.Time    `json:"created"`
	Matches     int          `json:"matches"`
	Files       []StagedFile `json:"files"`
	Locations   []Location   `json:"locations,omitempty"`
	Nested      int          `json:"nested,omitempty"`
	Overlapping int          `json:"overlapping,omitempty"`
	Unchanged   int          `json:"unchanged,omitempty"`
	// Unorganized and UnorganizedWhy are the Change's: files whose
	// imports no one organized, and why.
	Unorganized    []string `json:"unorganized,omitempty"`
	UnorganizedWhy string   `json:"unorganized_why,omitempty"`
}

// StagedFile is one file of a staged change.
type StagedFile struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // modified, added, deleted
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Diff    string `json:"diff,omitempty"`
}

// Stage keeps c in the store under a new id, with each file's hash as it
// is now in c.Old, and returns it with its diffs. A change that changes
// nothing is refused: there is nothing to review.
func Stage(ctx context.Context, st *store.Store, c *Change) (*Staged, error) {
	if len(c.Files) == 0 {
		return nil, fmt.Errorf("astedit: the change changes no file; nothing was staged")
	}
	paths := map[string]bool{}
	for _, f := range c.Files {
		if paths[f.Path] {
			return nil, fmt.Errorf("astedit: %s appears twice in one change", f.Path)
		}
		paths[f.Path] = true
	}
	rep := report{Locations: c.Locations, Nested: c.Nested, Overlapping: c.Overlapping, Unchanged: c.Unchanged, Unorganized: c.Unorganized, Why: c.UnorganizedWhy}
	repJSON, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	s := &store.Staged{
		ID: newID(), Kind: c.Kind, Title: c.Title, Created: time.Now(),
		Matches: len(c.Locations), Report: string(repJSON),
	}
	if s.Matches == 0 {
		s.Matches = len(c.Files) // a change without places counts its files
	}
	for _, f := range c.Files {
		diff, added, removed, err := fileDiff(f)
		if err != nil {
			return nil, fmt.Errorf("astedit: diff of %s: %w", f.Path, err)
		}
		sf := store.StagedFile{Path: f.Path, Diff: diff, Added: added, Remove: removed, Mode: uint32(f.Mode.Perm())}
		if f.Old != nil {
			h := sha256.Sum256(f.Old)
			sf.OldSHA = &h
		}
		if f.New != nil {
			sf.New = f.New
		}
		s.Files = append(s.Files, sf)
	}
	slices.SortFunc(s.Files, func(a, b store.StagedFile) int { return strings.Compare(a.Path, b.Path) })
	if err := st.SaveStaged(ctx, s); err != nil {
		return nil, err
	}
	return fromStore(s, true)
}

// newID is a short random id, easy to type: six hex digits.
func newID() string {
	var b [3]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fileDiff is f's unified diff and its count of added and removed lines.
func fileDiff(f FileEdit) (string, int, int, error) {
	oldLabel, newLabel := "a/"+f.Path, "b/"+f.Path
	if f.Old == nil {
		oldLabel = "/dev/null"
	}
	if f.New == nil {
		newLabel = "/dev/null"
	}
	// Diffed line by line, not from the edits: a replacement that keeps
	// a line as it was must not show it removed and added.
	d := udiff.Unified(oldLabel, newLabel, string(f.Old), string(f.New))
	added, removed := 0, 0
	for _, file := range unidiff.Parse(d).Files {
		for _, h := range file.Hunks {
			for _, l := range h.Lines {
				switch l.Kind {
				case unidiff.Add:
					added++
				case unidiff.Delete:
					removed++
				}
			}
		}
	}
	return d, added, removed, nil
}

// fromStore is the staged change s as astedit shows it; withDiffs keeps
// the diffs (a listing leaves them out).
func fromStore(s *store.Staged, withDiffs bool) (*Staged, error) {
	var rep report
	if err := json.Unmarshal([]byte(s.Report), &rep); err != nil {
		return nil, fmt.Errorf("astedit: staged change %s: its report cannot be read (%v); discard it and stage again", s.ID, err)
	}
	out := &Staged{
		ID: s.ID, Kind: s.Kind, Title: s.Title, Created: s.Created, Matches: s.Matches,
		Locations: rep.Locations, Nested: rep.Nested, Overlapping: rep.Overlapping, Unchanged: rep.Unchanged,
		Unorganized: rep.Unorganized, UnorganizedWhy: rep.Why,
	}
	for _, f := range s.Files {
		sf := StagedFile{Path: f.Path, Status: "modified", Added: f.Added, Removed: f.Remove}
		switch {
		case f.OldSHA == nil:
			sf.Status = "added"
		case f.New == nil:
			sf.Status = "deleted"
		}
		if withDiffs {
			sf.Diff = f.Diff
		}
		out.Files = append(out.Files, sf)
	}
	return out, nil
}

// Load returns the staged change id with its diffs.
func Load(ctx context.Context, st *store.Store, id string) (*Staged, error) {
	s, err := st.StagedChange(ctx, id)
	if err != nil {
		return nil, notStaged(ctx, st, id, err)
	}
	return fromStore(s, true)
}

// List returns the staged changes, oldest first, without diffs.
func List(ctx context.Context, st *store.Store) ([]*Staged, error) {
	all, err := st.StagedChanges(ctx)
	if err != nil {
		return nil, err
	}
	var out []*Staged
	for i := range all {
		s, err := fromStore(&all[i], false)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Discard drops the staged change id; the files are not touched.
func Discard(ctx context.Context, st *store.Store, id string) error {
	ok, err := st.DropStaged(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return notStaged(ctx, st, id, fmt.Errorf("%w with id %q", store.ErrNoStaged, id))
	}
	return nil
}

// notStaged explains a missing id: it lists the ids that are staged.
func notStaged(ctx context.Context, st *store.Store, id string, err error) error {
	if errors.Is(err, store.ErrNotYours) {
		return fmt.Errorf("astedit: %w", err)
	}
	all, lerr := st.StagedChanges(ctx)
	if lerr != nil || len(all) == 0 {
		return fmt.Errorf("astedit: %w; nothing is staged now (it may have been applied or discarded already)", err)
	}
	var ids []string
	for _, s := range all {
		ids = append(ids, s.ID)
	}
	return fmt.Errorf("astedit: %w; staged now: %s", err, strings.Join(ids, ", "))
}
