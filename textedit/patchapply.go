package textedit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"cchub/workspace"
)

// ErrPatchDoesNotFit is wrapped when a hunk's lines are not in the file.
var ErrPatchDoesNotFit = errors.New("patch does not fit")

// PatchedFile is what a patch did to one file.
type PatchedFile struct {
	Kind    string `json:"kind"` // added, deleted, updated, moved
	Path    string `json:"path"`
	MoveTo  string `json:"move_to,omitempty"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// PatchResult lists what a patch did, in patch order.
type PatchResult struct {
	Files []PatchedFile `json:"files"`
}

// Text is the model-facing answer of a patch.
func (r *PatchResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Applied patch to %d file(s):\n", len(r.Files))
	for _, f := range r.Files {
		switch f.Kind {
		case "added":
			fmt.Fprintf(&b, "  A %s (%d lines)\n", f.Path, f.Added)
		case "deleted":
			fmt.Fprintf(&b, "  D %s\n", f.Path)
		case "moved":
			fmt.Fprintf(&b, "  R %s -> %s (+%d -%d)\n", f.Path, f.MoveTo, f.Added, f.Removed)
		default:
			fmt.Fprintf(&b, "  M %s (+%d -%d)\n", f.Path, f.Added, f.Removed)
		}
	}
	return b.String()
}

// planned is one file's new state: data to write at abs, or removal.
type planned struct {
	abs, rel string
	data     []byte
	remove   bool
	mode     fs.FileMode // for a new file: the mode of the file it moves
}

// ApplyPatch verifies every file of the patch before writing any, then
// writes them all or, if a write fails, puts back the ones already written.
func (f *Files) ApplyPatch(patch string, seen *Seen) (*PatchResult, error) {
	ops, err := ParsePatch(patch)
	if ud := asUnifiedDiff(err); ud != nil && ud.Converted != "" {
		f.checkConverted(ud)
	}
	if err != nil {
		return nil, err
	}
	// Resolve every path first: a patch that reaches outside the root is
	// refused whole.
	type resolved struct{ abs, rel, moveAbs, moveRel string }
	rs := make([]resolved, len(ops))
	var locks []string
	for i, op := range ops {
		abs, rel, err := f.root.Resolve(op.Path)
		if err != nil {
			return nil, err
		}
		rs[i] = resolved{abs: abs, rel: rel}
		locks = append(locks, abs)
		if op.MoveTo != "" {
			mabs, mrel, err := f.root.Resolve(op.MoveTo)
			if err != nil {
				return nil, err
			}
			rs[i].moveAbs, rs[i].moveRel = mabs, mrel
			locks = append(locks, mabs)
		}
	}
	sort.Strings(locks) // one order, so two patches never deadlock
	for i, abs := range locks {
		if i > 0 && locks[i-1] == abs {
			return nil, fmt.Errorf("%w: %s is touched by two sections of the patch (under different names); put all of a file's changes in one section", ErrPatchSyntax, f.root.Rel(abs))
		}
	}
	for _, abs := range locks {
		defer f.lock(abs)()
	}

	var plan []planned
	res := &PatchResult{}
	for i, op := range ops {
		r := rs[i]
		switch op.Kind {
		case OpAdd:
			if _, err := os.Lstat(r.abs); err == nil {
				return nil, fmt.Errorf("%w: Add File %s: the file already exists; use Update File to change it, or Delete File first", ErrPatchDoesNotFit, r.rel)
			}
			var data []byte
			if len(op.Lines) > 0 {
				data = []byte(strings.Join(op.Lines, "\n") + "\n")
			}
			plan = append(plan, planned{abs: r.abs, rel: r.rel, data: data})
			res.Files = append(res.Files, PatchedFile{Kind: "added", Path: r.rel, Added: len(op.Lines)})
		case OpDelete:
			data, err := readForPatch(r.abs, r.rel, "Delete File")
			if err != nil {
				return nil, err
			}
			if err := seen.Fresh(r.rel, data); err != nil {
				return nil, err
			}
			plan = append(plan, planned{abs: r.abs, rel: r.rel, remove: true})
			res.Files = append(res.Files, PatchedFile{Kind: "deleted", Path: r.rel, Removed: len(splitLines(string(data)))})
		case OpUpdate:
			data, err := readForPatch(r.abs, r.rel, "Update File")
			if err != nil {
				return nil, err
			}
			if err := seen.Fresh(r.rel, data); err != nil {
				return nil, err
			}
			ft := workspace.DecodeText(data)
			body, added, removed, err := applyHunks(ft.Body, op.Hunks, r.rel)
			if err != nil {
				return nil, err
			}
			out := ft.Encode(body)
			pf := PatchedFile{Kind: "updated", Path: r.rel, Added: added, Removed: removed}
			if r.moveAbs != "" && r.moveAbs != r.abs {
				if _, err := os.Lstat(r.moveAbs); err == nil {
					return nil, fmt.Errorf("%w: Update File %s: Move to %s: the target already exists; delete it first or choose another path", ErrPatchDoesNotFit, r.rel, r.moveRel)
				}
				mode := fs.FileMode(0o644)
				if st, err := os.Stat(r.abs); err == nil {
					mode = st.Mode().Perm()
				}
				plan = append(plan, planned{abs: r.moveAbs, rel: r.moveRel, data: out, mode: mode}, planned{abs: r.abs, rel: r.rel, remove: true})
				pf.Kind, pf.MoveTo = "moved", r.moveRel
			} else {
				plan = append(plan, planned{abs: r.abs, rel: r.rel, data: out})
			}
			res.Files = append(res.Files, pf)
		}
	}
	if err := commit(plan); err != nil {
		return nil, err
	}
	for _, p := range plan {
		if p.remove {
			seen.Forget(p.rel)
		} else {
			seen.Saw(p.rel, p.data)
		}
	}
	return res, nil
}

func readForPatch(abs, rel, section string) ([]byte, error) {
	data, err := workspace.ReadText(abs, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s %s: no such file; use Add File to create it", ErrPatchDoesNotFit, section, rel)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %v", ErrPatchDoesNotFit, section, rel, err)
	}
	return data, nil
}

// original is a file's state before a commit, to put back on failure.
type original struct {
	abs    string
	exists bool
	data   []byte
	mode   fs.FileMode
}

// commit carries out a verified plan. If any step fails, the steps already
// taken are undone, so the tree is as it was.
func commit(plan []planned) error {
	var done []original
	undo := func() {
		for i := len(done) - 1; i >= 0; i-- {
			o := done[i]
			if o.exists {
				_ = workspace.WriteAtomic(o.abs, o.data, o.mode)
				_ = os.Chmod(o.abs, o.mode)
			} else {
				_ = os.Remove(o.abs)
			}
		}
	}
	for _, p := range plan {
		o := original{abs: p.abs}
		st, err := workspace.StatWritable(p.abs, p.rel)
		if err != nil {
			undo()
			return fmt.Errorf("textedit: patch: %w; nothing was changed", err)
		}
		if st != nil {
			data, err := os.ReadFile(p.abs)
			if err != nil {
				undo()
				return fmt.Errorf("textedit: patch: read %s: %w; nothing was changed", p.rel, err)
			}
			o.exists, o.data, o.mode = true, data, st.Mode().Perm()
		}
		if p.remove {
			err = os.Remove(p.abs)
		} else {
			mode := p.mode
			if mode == 0 {
				mode = 0o644
			}
			err = workspace.WriteAtomic(p.abs, p.data, mode)
		}
		if err != nil {
			undo()
			return fmt.Errorf("textedit: patch: write %s: %w; nothing was changed", p.rel, err)
		}
		done = append(done, o)
	}
	return nil
}
