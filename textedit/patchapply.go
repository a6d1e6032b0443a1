package textedit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"cchub/textfmt"
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
	// Written is every file the patch wrote or removed, in patch order (a
	// moved file: its old path removed, then its new path written).
	Written []workspace.Written `json:"-"`
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

// planned is one file's new state: data to write at rel, or removal.
type planned struct {
	rel    string
	old    []byte // what the patch was checked against; nil for a new file
	data   []byte
	remove bool
	mode   fs.FileMode // for a new file: the mode of the file it moves
}

// ApplyPatch verifies every file of the patch before writing any, then
// hands them all to committer, which writes them whole or not at all; a
// nil committer writes them here and, if a write fails, puts back the
// ones already written.
func (f *Files) ApplyPatch(ctx context.Context, patch string, seen *Seen, committer Committer) (*PatchResult, error) {
	ops, err := ParsePatch(patch)
	if ud := asUnifiedDiff(err); ud != nil && ud.Converted != "" {
		f.checkConverted(ud)
	}
	if err != nil {
		return nil, err
	}
	targets, rels, err := f.resolvePatch(ops)
	if err != nil {
		return nil, err
	}
	unlockFiles, err := f.lock(ctx, rels...)
	if err != nil {
		return nil, err
	}
	// The committer path lets the locks go before it commits (below).
	unlock := sync.OnceFunc(unlockFiles)
	defer unlock()
	plan, res, err := f.planPatch(ctx, ops, targets, seen)
	if err != nil {
		return nil, err
	}
	if committer != nil {
		// The committer checks each file against what was read here, so
		// the lock may go first (it takes the files' locks itself).
		unlock()
		if err := committer(ctx, plannedFiles(plan)); err != nil {
			return nil, err
		}
	} else if err := commit(f.root, plan); err != nil {
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

// patchTarget is where one section of a patch lands: the file it names,
// and the file it moves that one to ("" when it stays).
type patchTarget struct{ rel, moveRel string }

// resolvePatch resolves every path of a patch before anything is read: a
// patch that reaches outside the root is refused whole, and so is one
// that touches a file twice. It returns each section's target and the
// paths to lock.
func (f *Files) resolvePatch(ops []FileOp) ([]patchTarget, []string, error) {
	targets := make([]patchTarget, len(ops))
	var rels []string
	for i, op := range ops {
		if err := checkPatchPath(op.Path, op.MoveTo); err != nil {
			return nil, nil, err
		}
		_, rel, err := f.root.Resolve(op.Path)
		if err != nil {
			return nil, nil, err
		}
		targets[i] = patchTarget{rel: rel}
		rels = append(rels, rel)
		if op.MoveTo != "" {
			_, mrel, err := f.root.Resolve(op.MoveTo)
			if err != nil {
				return nil, nil, err
			}
			targets[i].moveRel = mrel
			if mrel != rel {
				rels = append(rels, mrel)
			}
		}
	}
	sorted := slices.Clone(rels)
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1] == sorted[i] {
			return nil, nil, fmt.Errorf("%w: %s is touched by two sections of the patch; put all of a file's changes in one section", ErrPatchSyntax, sorted[i])
		}
	}
	return targets, rels, nil
}

// planPatch reads every file the patch touches (its locks held) and
// works out what each becomes: the plan to commit, and the result that
// says what was done, with each file's content before and after.
func (f *Files) planPatch(ctx context.Context, ops []FileOp, targets []patchTarget, seen *Seen) ([]planned, *PatchResult, error) {
	var plan []planned
	res := &PatchResult{}
	for i, op := range ops {
		r := targets[i]
		switch op.Kind {
		case OpAdd:
			if _, err := f.root.Lstat(r.rel); err == nil {
				return nil, nil, fmt.Errorf("%w: Add File %s: the file already exists; use Update File to change it, or Delete File first", ErrPatchDoesNotFit, r.rel)
			}
			var data []byte
			if len(op.Lines) > 0 {
				data = []byte(strings.Join(op.Lines, "\n") + "\n")
			}
			plan = append(plan, planned{rel: r.rel, data: data})
			res.Files = append(res.Files, PatchedFile{Kind: "added", Path: r.rel, Added: len(op.Lines)})
			res.Written = append(res.Written, wrote(r.rel, nil, data))
		case OpDelete:
			data, err := readForPatch(f.root, r.rel, "Delete File")
			if err != nil {
				return nil, nil, err
			}
			if err := seen.Fresh(r.rel, data); err != nil {
				return nil, nil, err
			}
			plan = append(plan, planned{rel: r.rel, old: data, remove: true})
			res.Files = append(res.Files, PatchedFile{Kind: "deleted", Path: r.rel, Removed: len(splitLines(string(data)))})
			res.Written = append(res.Written, workspace.Written{Path: r.rel, Old: data})
		case OpUpdate:
			data, err := readForPatch(f.root, r.rel, "Update File")
			if err != nil {
				return nil, nil, err
			}
			if err := seen.Fresh(r.rel, data); err != nil {
				return nil, nil, err
			}
			ft := textfmt.DecodeText(data)
			body, added, removed, err := applyHunks(ctx, ft.Body, op.Hunks, r.rel)
			if err != nil {
				return nil, nil, err
			}
			out := ft.Encode(body)
			pf := PatchedFile{Kind: "updated", Path: r.rel, Added: added, Removed: removed}
			if r.moveRel != "" && r.moveRel != r.rel {
				if _, err := f.root.Lstat(r.moveRel); err == nil {
					return nil, nil, fmt.Errorf("%w: Update File %s: Move to %s: the target already exists; delete it first or choose another path", ErrPatchDoesNotFit, r.rel, r.moveRel)
				}
				mode := fs.FileMode(0o644)
				if st, err := f.root.Stat(r.rel); err == nil {
					mode = st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
				}
				plan = append(plan, planned{rel: r.moveRel, data: out, mode: mode}, planned{rel: r.rel, old: data, remove: true})
				pf.Kind, pf.MoveTo = "moved", r.moveRel
				res.Written = append(res.Written, workspace.Written{Path: r.rel, Old: data}, wrote(r.moveRel, nil, out))
			} else {
				plan = append(plan, planned{rel: r.rel, old: data, data: out})
				res.Written = append(res.Written, wrote(r.rel, data, out))
			}
			res.Files = append(res.Files, pf)
		}
	}
	return plan, res, nil
}

// PlannedFile is one file of a verified multi-file change, for a
// Committer: Old is what it was checked against (nil: it does not exist),
// New what it becomes (nil: it is deleted), Mode a new file's mode.
type PlannedFile struct {
	Path string
	Old  []byte
	New  []byte
	Mode fs.FileMode
}

// Committer writes a verified multi-file change whole or not at all, and
// refuses it if a file is no longer what the change was checked against.
type Committer func(ctx context.Context, files []PlannedFile) error

func plannedFiles(plan []planned) []PlannedFile {
	out := make([]PlannedFile, 0, len(plan))
	for _, p := range plan {
		pf := PlannedFile{Path: p.rel, Old: p.old, Mode: p.mode}
		if !p.remove {
			pf.New = p.data
			if pf.New == nil {
				pf.New = []byte{}
			}
		}
		out = append(out, pf)
	}
	return out
}

func readForPatch(root *workspace.Root, rel, section string) ([]byte, error) {
	data, err := root.ReadText(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s %s: no such file; use Add File to create it", ErrPatchDoesNotFit, section, rel)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %v", ErrPatchDoesNotFit, section, rel, err)
	}
	return data, nil
}

// checkPatchPath refuses a section path that names a directory.
func checkPatchPath(paths ...string) error {
	for _, p := range paths {
		if p == "" {
			continue
		}
		if err := workspace.CheckFilePath(p); err != nil {
			return fmt.Errorf("%w: %v", ErrPatchSyntax, err)
		}
	}
	return nil
}

// original is a file's state before a commit, to put back on failure.
type original struct {
	rel    string
	exists bool
	data   []byte
	mode   fs.FileMode
	made   []string // directories its write created
}

// commit carries out a verified plan. If any step fails, the steps already
// taken are undone, directories made for new files included, so the tree
// is as it was.
func commit(root *workspace.Root, plan []planned) error {
	var done []original
	undo := func() {
		for i := len(done) - 1; i >= 0; i-- {
			o := done[i]
			if o.exists {
				_, _ = root.WriteFile(o.rel, o.data, o.mode)
			} else {
				_ = root.RemoveFile(o.rel)
			}
			root.RemoveDirs(o.made)
		}
	}
	fail := func(what, rel string, err error) error {
		undo()
		if errors.Is(err, workspace.ErrReadOnly) || errors.Is(err, workspace.ErrProtected) {
			return fmt.Errorf("%w; nothing was changed", err)
		}
		return fmt.Errorf("textedit: patch: %s %s: %w; nothing was changed", what, rel, err)
	}
	for _, p := range plan {
		o := original{rel: p.rel}
		st, err := root.StatWritable(p.rel)
		if err != nil {
			undo()
			return fmt.Errorf("textedit: patch: %w; nothing was changed", err)
		}
		if st != nil {
			data, err := root.ReadInto(p.rel, nil, workspace.MaxFileBytes)
			if err != nil {
				return fail("read", p.rel, err)
			}
			o.exists, o.data, o.mode = true, data, st.Mode()
		}
		if p.remove {
			err = root.RemoveFile(p.rel)
		} else {
			mode := p.mode
			if mode == 0 {
				mode = 0o644
			}
			o.made, err = root.WriteFile(p.rel, p.data, mode)
		}
		if err != nil {
			return fail("write", p.rel, err)
		}
		done = append(done, o)
	}
	return nil
}
