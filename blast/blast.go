package blast

import (
	"context"
	"fmt"
	"time"

	"cchub/codegraph"
	"cchub/store"
	"cchub/syntax"
	"cchub/unidiff"
	"cchub/workspace"
)

// DefaultDepth is how many calls away the radius goes unless told.
const DefaultDepth = 3

// Options is what the user chose: what to compare and how far to look.
type Options struct {
	// Base is the revision the change is measured from: a branch, tag or
	// commit (origin/main, say).
	Base string
	// Head is the revision with the change; "" is the working tree.
	// Given, head is read from git and nothing is checked out.
	Head string
	// MergeBase measures from the merge base of Base and Head (HEAD when
	// Head is ""): what a branch adds, whatever Base did since.
	MergeBase bool
	// MaxDepth is how many calls away to look (0: DefaultDepth).
	MaxDepth int
	// MinConfidence leaves out edges less sure than this: "exact",
	// "import" or "name-only" ("": every edge).
	MinConfidence string
	// Tests also selects the tests the change can break (Report.Selection),
	// through calls of any evidence, at any distance.
	Tests bool
	// Confirm asks Deps.Confirm about the name-only and possible edges of
	// the radius and of the test selection (a language server sees the
	// working tree: it is not asked when Head is given).
	Confirm bool
	// ConfirmBudget is how long the confirmation may take (0: the
	// confirmer's own default); for whoever makes Deps.Confirm.
	ConfirmBudget time.Duration
	// Platform is the target the tests are selected for (the zero value:
	// the one cchub runs on, no tags).
	Platform Platform
	// Matrix are more targets, each selected for too and compared with
	// Platform's selection (Selection.Matrix): a CI matrix in one run.
	Matrix []Platform
}

// Deps is what the caller lends a run, apart from what the user chose:
// each may be left out.
type Deps struct {
	// Confirm is asked about weak edges when Options.Confirm is set (nil:
	// edges stay unconfirmed).
	Confirm codegraph.Confirmer
	// Graph is the working tree's code graph (the hub's, kept in the
	// store); nil makes one in memory. Unused when Options.Head is given.
	Graph *codegraph.Index
	// Shared, if set, keeps the resolved head graph (a snapshot): another
	// runner measuring the same head reads it instead of resolving.
	Shared store.Shared
	// Warn, if set, is told each fault of the shared store as it is put
	// in the report's notes, so that a front end says it whatever the
	// report's format (a test list for a shell keeps no notes).
	Warn func(msg string)
}

// Run measures the blast radius of the diff from o.Base to o.Head in the
// workspace at root, which must be in a git work tree. Git runs in root,
// so paths are relative to it and files outside it are not compared.
// cache parses the files read from git and (with no o.Head) the working
// tree's.
func Run(ctx context.Context, root *workspace.Root, cache *syntax.ParseCache, o Options, deps Deps) (*Report, error) {
	switch o.MinConfidence {
	case "", codegraph.Exact, codegraph.Imported, codegraph.NameOnly, codegraph.Possible:
	default:
		return nil, fmt.Errorf("blast: min confidence %q is none of exact, import, name-only, possible", o.MinConfidence)
	}
	if o.MaxDepth < 0 {
		return nil, fmt.Errorf("blast: max depth %d: give 1 or more (0 means %d)", o.MaxDepth, DefaultDepth)
	}
	depth := o.MaxDepth
	if depth == 0 {
		depth = DefaultDepth
	}
	git, err := newGit(root.Dir())
	if err != nil {
		return nil, err
	}
	prefix, err := git.prefix(ctx)
	if err != nil {
		return nil, err
	}
	base := Revision{Ref: o.Base}
	if base.Commit, err = git.commit(ctx, "--base", o.Base); err != nil {
		return nil, err
	}
	head := Revision{Ref: o.Head, WorkingTree: o.Head == ""}
	if o.Head != "" {
		if head.Commit, err = git.commit(ctx, "--head", o.Head); err != nil {
			return nil, err
		}
	}
	from := base.Commit
	if o.MergeBase {
		tip := head.Commit
		if tip == "" {
			if tip, err = git.commit(ctx, "HEAD", "HEAD"); err != nil {
				return nil, err
			}
		}
		if from, err = git.mergeBase(ctx, base.Commit, tip); err != nil {
			return nil, err
		}
	}

	raw, err := git.diff(ctx, from, head.Commit)
	if err != nil {
		return nil, fmt.Errorf("blast: %w", err)
	}
	patch := unidiff.Parse(string(raw))
	if err := patch.Err(); err != nil {
		return nil, fmt.Errorf("blast: read git diff: %w", err)
	}
	diffs := patch.Files
	old, err := baseFiles(ctx, git, cache, from, prefix, diffs)
	if err != nil {
		return nil, err
	}
	var now files
	if head.WorkingTree {
		now, err = workingTreeFiles(ctx, root, cache, deps.Graph)
	} else {
		now, err = revisionFiles(ctx, git, cache, head.Commit)
	}
	if err != nil {
		return nil, err
	}
	cs := changes(diffs, old, now)
	x, names := headGraph(now, cs)
	if deps.Shared != nil {
		x.ShareSnapshots(deps.Shared)
	}
	var confirm codegraph.Confirmer
	if o.Confirm {
		confirm = codegraph.CachedConfirmer(deps.Confirm)
	}
	var unasked string
	if confirm != nil && !head.WorkingTree {
		confirm, unasked = nil, "not confirmed: the language server sees the working tree, not the head revision --head names"
	}
	var conf *Confirmation
	if confirm != nil {
		conf = &Confirmation{verdicts: map[string]string{}}
		confirm = conf.wrap(confirm)
	}
	r := blastRadius(ctx, x, cs, names, depth, o.MinConfidence, confirm)
	if unasked != "" {
		r.notes = append(r.notes, unasked)
	}
	if from != base.Commit {
		r.notes = append([]string{fmt.Sprintf("measured from the merge base %s of %s and head", short(from), o.Base)}, r.notes...)
	}
	rep := newReport(base, head, depth, o.MinConfidence, cs, r)
	defer conf.finish(rep)
	if o.Tests {
		read := func(p string, d unidiff.File) ([]byte, error) {
			if head.WorkingTree {
				return root.ReadInto(p, nil, workspace.MaxFileBytes)
			}
			obj := fullID(d.NewBlob)
			if obj == "" {
				obj = head.Commit + ":" + prefix + p
			}
			return git.run(ctx, workspace.MaxFileBytes, "cat-file", "blob", obj)
		}
		in := selectIn{diffs: diffs, base: old, head: now, cs: cs, x: x, names: names, read: read, confirm: confirm, platform: o.Platform}
		rep.Selection = selectTests(ctx, in)
		for _, p := range o.Matrix {
			in.platform = p
			rep.Selection.Matrix = append(rep.Selection.Matrix, rep.Selection.compare(selectTests(ctx, in)))
		}
	}
	if deps.Shared != nil {
		// The head graph, kept once measured (nothing is written when it
		// was read from the store).
		var faults []string
		if _, err := x.SaveSnapshot(ctx); err != nil && ctx.Err() == nil {
			faults = append(faults, fmt.Sprintf("the head graph's snapshot could not be kept (%v): another runner measuring this head resolves it again", err))
		}
		faults = append(faults, x.Notices()...)
		rep.Notes = append(rep.Notes, faults...)
		if deps.Warn != nil {
			for _, f := range faults {
				deps.Warn(f)
			}
		}
	}
	return rep, nil
}
