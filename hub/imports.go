package hub

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"cchub/astedit"
	"cchub/importfix"
	"cchub/lang"
	"cchub/lspmux"
	"cchub/store"
	"cchub/textfmt"
)

// serverOrganizes says whether rel's language server organizes its
// imports for a staged change (lspmux.Organizes).
func (h *Hub) serverOrganizes(rel string) bool {
	mux, err := h.servers()
	return err == nil && mux.Organizes(rel)
}

// importsDone is what became of the imports of a change's files.
type importsDone struct {
	fixed     int    // Go files whose imports importfix fixed in process
	organized int    // files the language server's organize-imports changed
	note      string // why some were not organized, and what that means
}

// organizeImports fixes the imports of the new content of each file c
// changes, so that the diff a person approves is one that builds: a
// rewrite of fmt.Errorf($MSG) to errors.New($MSG) adds "errors" and drops
// a "fmt" nothing else uses. Go files are fixed in process first
// (importfix: no server to wait for, nothing run); what that leaves — a
// package only the module graph can name — goes to the language server's
// organize-imports action, as do the files of other languages it
// organizes. The files on disk are not touched. Files the server was to
// organize and did not (none, a slow or failing one) are named in
// c.Unorganized with the reason: applying the change organizes them
// first or refuses (applyOrganized).
func (h *Hub) organizeImports(ctx context.Context, c *astedit.Change) importsDone {
	var done importsDone
	var files []lspmux.File // Go files importfix left for the server
	var at []int
	var left, notes []string
	others := map[string]int{}
	siblings := h.goSiblings(c)
	for i, f := range c.Files {
		if f.New == nil {
			continue
		}
		if lang.NameOf(f.Path) != "go" {
			l := lang.NameOf(f.Path)
			switch {
			case l == "" || bytes.Equal(f.Old, f.New):
			case h.serverOrganizes(f.Path):
				// TypeScript and JavaScript: the server adds what is
				// missing and drops what is unused.
				files = append(files, lspmux.File{Path: f.Path, Data: f.New})
				at = append(at, i)
				left = append(left, f.Path+" ("+l+")")
			default:
				others[l]++
			}
			continue
		}
		r, err := importfix.Fix(f.Path, f.Old, f.New, siblings(f.Path))
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		if !bytes.Equal(r.Data, f.New) {
			c.Files[i].New = r.Data
			done.fixed++
		}
		if !r.Done() {
			files = append(files, lspmux.File{Path: f.Path, Data: r.Data})
			at = append(at, i)
			left = append(left, f.Path+" ("+r.Unresolved[0]+")")
		}
	}
	for _, l := range slices.Sorted(maps.Keys(others)) {
		notes = append(notes, fmt.Sprintf("imports of %s are not checked (cchub organizes the imports of Go, TypeScript and JavaScript only): read them in the diff", textfmt.Count(others[l], l+" file")))
	}
	if len(files) > 0 {
		mux, err := h.servers()
		var out []lspmux.File
		if err == nil {
			out, err = mux.OrganizeImports(ctx, files)
		}
		var still []string
		for j, f := range files {
			fe := &c.Files[at[j]]
			if j < len(out) && !bytes.Equal(out[j].Data, f.Data) {
				fe.New = out[j].Data
				done.organized++
			} else if err != nil {
				still = append(still, f.Path)
			}
		}
		if len(still) > 0 && ctx.Err() == nil { // a cancelled caller's own error says so
			c.Unorganized, c.UnorganizedWhy = still, err.Error()
			notes = append(notes, fmt.Sprintf("imports of %s were not organized: %s; they need the server for %s; the diff does not show them organized: applying it asks the server again first, and refuses while it does not answer",
				textfmt.Count(len(still), "file"), err.Error(), clipList(left, 3)))
		}
	}
	done.note = strings.Join(notes, "\n")
	return done
}

// clipList joins the first n of items, saying how many more there are.
func clipList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:n], "; ") + fmt.Sprintf("; and %d more", len(items)-n)
}

// goSiblings returns, for a Go file of c, the other Go files of its
// directory as they are to be (c's new content, else the disk's), read
// once per directory: importfix copies an import one of them has.
func (h *Hub) goSiblings(c *astedit.Change) func(rel string) [][]byte {
	changed := map[string][]byte{}
	gone := map[string]bool{}
	for _, f := range c.Files {
		changed[f.Path] = f.New
		gone[f.Path] = f.New == nil
	}
	byDir := map[string]map[string][]byte{}
	return func(rel string) [][]byte {
		dir := path.Dir(rel)
		files, ok := byDir[dir]
		if !ok {
			files = map[string][]byte{}
			ents, _ := h.Root.ReadDir(dir)
			for _, e := range ents {
				p := path.Join(dir, e.Name())
				if e.IsDir() || lang.NameOf(p) != "go" || gone[p] || len(files) >= maxSiblings {
					continue
				}
				if data, ok := changed[p]; ok {
					files[p] = data
				} else if data, err := h.Root.ReadText(p); err == nil {
					files[p] = data
				}
			}
			byDir[dir] = files
		}
		var out [][]byte
		for p, data := range files {
			if p != rel {
				out = append(out, data)
			}
		}
		return out
	}
}

// maxSiblings bounds the files of a directory read for their imports.
const maxSiblings = 200

// organizeStaged makes sure change id is not written with imports that
// were left unorganized when it was staged: it asks their server again
// (bounded as at staging). When the server organizes them now, the diff
// changes, so the change is staged again under a new id for review and
// the old one dropped; when it still does not, the change is refused.
// Either way nothing is written and the error says what to do. A change
// with nothing unorganized passes (nil).
func (h *Hub) organizeStaged(ctx context.Context, st *store.Store, id string) error {
	s, err := astedit.Load(ctx, st, id)
	if err != nil || len(s.Unorganized) == 0 {
		return nil // the commit says what is wrong with id
	}
	raw, err := st.StagedChange(ctx, id)
	if err != nil {
		return nil
	}
	byPath := map[string]*store.StagedFile{}
	for i := range raw.Files {
		byPath[raw.Files[i].Path] = &raw.Files[i]
	}
	var files []lspmux.File
	for _, p := range s.Unorganized {
		if f := byPath[p]; f != nil && f.New != nil {
			files = append(files, lspmux.File{Path: p, Data: f.New})
		}
	}
	mux, err := h.servers()
	var out []lspmux.File
	if err == nil {
		out, err = mux.OrganizeImports(ctx, files)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err != nil {
		return fmt.Errorf("change %s was not applied: the imports of %s are not organized (%s), and written as staged they would not build. %s",
			id, textfmt.Count(len(files), "file"), err.Error(), h.acceptAgain(id))
	}
	changed := false
	for j := range out {
		changed = changed || !bytes.Equal(out[j].Data, files[j].Data)
	}
	if !changed {
		return nil // the server answered: nothing to add, the diff stands
	}
	c := &astedit.Change{Kind: raw.Kind, Title: raw.Title, Locations: s.Locations, Nested: s.Nested, Overlapping: s.Overlapping, Unchanged: s.Unchanged}
	for j := range out {
		byPath[out[j].Path].New = out[j].Data
	}
	for _, f := range raw.Files {
		fe := astedit.FileEdit{Path: f.Path, New: f.New, Mode: fs.FileMode(f.Mode)}
		if f.OldSHA != nil {
			old, err := h.Root.ReadText(f.Path)
			if err != nil || sha256.Sum256(old) != *f.OldSHA {
				return nil // changed since staging: the commit refuses it and says so
			}
			fe.Old = old
		}
		c.Files = append(c.Files, fe)
	}
	again, err := astedit.Stage(ctx, st, c)
	if err != nil {
		return fmt.Errorf("change %s was not applied: its imports are organized now, but staging it again failed: %w", id, err)
	}
	astedit.Discard(ctx, st, id)
	o := &StagedOutcome{Staged: again, policy: h.approval}
	return fmt.Errorf("change %s was not applied: the imports of %s, left unorganized at staging, are organized now, so the diff changed: it is staged again as %s (%s dropped). Review it: %s",
		id, textfmt.Count(len(files), "file"), again.ID, id, strings.TrimSpace(o.howToResolve()))
}

// acceptAgain is the call that asks for change id to be applied again,
// as the approval policy lets it be.
func (h *Hub) acceptAgain(id string) string {
	if h.approval == ApproveAgent {
		return fmt.Sprintf("Accept it again once the server answers (accepting asks it again, and stages the organized diff for review): resolve action=accept id=%s; or drop it: resolve action=discard id=%s", id, id)
	}
	return fmt.Sprintf("Apply it again once the server answers (applying asks it again, and stages the organized diff for review): `cchub apply %s`; or drop it: resolve action=discard id=%s", id, id)
}
