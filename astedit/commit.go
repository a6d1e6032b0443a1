package astedit

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"cchub/store"
	"cchub/workspace"
)

// ErrDrift is returned when a file of a staged change is no longer what
// it was when the change was staged.
var ErrDrift = errors.New("files changed since the change was staged")

// journalLock is the name of the lock every commit and every recovery of
// a workspace holds (through workspace.LockFiles, so it is shared by all
// processes and dropped by the kernel when its holder dies): a recovery
// never mistakes a commit in progress for an interrupted one. The NUL
// keeps it from naming a file.
const journalLock = "\x00astedit commit journal"

// journalMarker is a file in the workspace's state directory that exists
// while a commit may be unfinished: made before the journal is opened,
// removed after it is closed. Every start of cchub looks for it (a stat)
// instead of opening the database to read the journal. The state
// directory is the one the workspace chose as this user's: a .cchub that
// came with a clone is never it.
const journalMarker = workspace.JournalMarker

// Pending says whether a commit may have been interrupted: only then does
// a start need Recover.
func Pending(root *workspace.Root) bool {
	dir, err := root.StatePath()
	if err != nil {
		return false // the first call that needs the state says why
	}
	_, err = os.Lstat(filepath.Join(dir, journalMarker))
	return err == nil
}

// setMarker makes (on) or removes the journal marker.
func setMarker(root *workspace.Root, on bool) error {
	dir, err := root.OpenStateDir("")
	if err != nil {
		return err
	}
	defer dir.Close()
	if !on {
		if err := dir.Remove(journalMarker); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	f, err := dir.OpenFile(journalMarker, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// maxFileBytes bounds what a commit reads to compare a file with its
// staged hash.
const maxFileBytes = 1 << 30

// plan is what the journal records of a commit: enough to finish it or
// undo it with nothing but the files on disk.
type plan struct {
	Files []planned `json:"files"`
}

type planned struct {
	Path   string `json:"path"`
	Temp   string `json:"temp,omitempty"` // "" for a deletion
	Delete bool   `json:"delete,omitempty"`
}

// Committed says what a commit changed.
type Committed struct {
	ID    string       `json:"id"`
	Files []StagedFile `json:"files"` // without diffs
	// Written is each file before and after, in the order of Files: Old
	// is the content the commit checked against its staged hash (nil when
	// larger than workspace.MaxFileBytes), New what it wrote.
	Written []workspace.Written `json:"-"`
}

// crashPoint, when set (by tests only), is called at every step of a
// commit; the crash-safety test kills its process there.
var crashPoint func(step string)

func reached(step string) {
	if crashPoint != nil {
		crashPoint(step)
	}
}

// Commit applies the staged change id, whole or not at all. Every file is
// first compared with its hash at staging: any difference rejects the
// whole change (ErrDrift, naming the files), and nothing is written. Then
// the journal records the plan, the new contents are written beside their
// targets and synced, the journal is marked past the point of no return,
// the files are renamed into place, and the journal is closed. A crash at
// any point is finished or undone by the next Recover. File modes are
// kept. The change is no longer staged once committed.
func Commit(ctx context.Context, root *workspace.Root, st *store.Store, id string) (*Committed, error) {
	unlockJournal, err := root.LockFiles(ctx, journalLock)
	if err != nil {
		return nil, err
	}
	defer unlockJournal()
	if _, err := recoverLocked(ctx, root, st); err != nil {
		return nil, err
	}
	s, err := st.StagedChange(ctx, id)
	if err != nil {
		return nil, notStaged(ctx, st, id, err)
	}
	view, err := fromStore(s, false)
	if err != nil {
		return nil, err
	}
	targets := make([]string, len(s.Files))
	for i, f := range s.Files {
		if targets[i], err = root.WriteTarget(f.Path); err != nil {
			return nil, fmt.Errorf("astedit: %s: %w", f.Path, err)
		}
	}
	unlock, err := root.LockFiles(ctx, targets...)
	if err != nil {
		return nil, err
	}
	defer unlock()

	modes, olds, err := checkDrift(root, s, targets)
	if err != nil {
		return nil, err
	}
	var p plan
	for i, f := range s.Files {
		e := planned{Path: targets[i]}
		if f.New == nil {
			e.Delete = true
		} else {
			e.Temp = workspace.TempBeside(targets[i], id)
		}
		p.Files = append(p.Files, e)
	}
	pj, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := setMarker(root, true); err != nil {
		return nil, fmt.Errorf("astedit: %w; nothing was changed", err)
	}
	if err := st.OpenJournal(ctx, id, string(pj)); err != nil {
		setMarker(root, false)
		return nil, err
	}
	reached("journal opened")
	made, err := writeTemps(ctx, root, p, s.Files, modes)
	if err != nil {
		// Nothing is in place yet: undo what was written.
		rollBack(root, p)
		root.RemoveDirs(made)
		if cerr := st.CloseJournal(context.WithoutCancel(ctx), id); cerr != nil {
			return nil, fmt.Errorf("astedit: %w; and closing the journal failed (%v): the next cchub start will clean up", err, cerr)
		}
		setMarker(root, false)
		return nil, fmt.Errorf("astedit: %w; nothing was changed, the change is still staged", err)
	}
	// The point of no return: from here the change is finished, by this
	// process or, after a crash, by the next start.
	if err := st.JournalRenaming(context.WithoutCancel(ctx), id); err != nil {
		rollBack(root, p)
		root.RemoveDirs(made)
		if st.CloseJournal(context.WithoutCancel(ctx), id) == nil {
			setMarker(root, false)
		}
		return nil, fmt.Errorf("astedit: %w; nothing was changed", err)
	}
	reached("renaming")
	if err := rollForward(root, p, reached); err != nil {
		return nil, fmt.Errorf("astedit: the change is half applied and could not be finished (%v); the next cchub start finishes it: fix the cause and run `cchub staged`", err)
	}
	if err := st.CloseJournal(context.WithoutCancel(ctx), id); err != nil {
		return nil, err
	}
	setMarker(root, false)
	reached("closed")
	written := make([]workspace.Written, len(s.Files))
	for i, f := range s.Files {
		written[i] = workspace.Written{Path: f.Path, Old: olds[i], New: f.New}
	}
	return &Committed{ID: id, Files: view.Files, Written: written}, nil
}

// checkDrift compares each file of s with its hash at staging and returns
// the modes to give the new files, and the contents it compared (those
// within workspace.MaxFileBytes; nil for a new file). All drifted files
// are named at once.
func checkDrift(root *workspace.Root, s *store.Staged, targets []string) ([]fs.FileMode, [][]byte, error) {
	modes := make([]fs.FileMode, len(s.Files))
	olds := make([][]byte, len(s.Files))
	var drifted []string
	for i, f := range s.Files {
		modes[i] = 0o644
		if f.Mode != 0 {
			modes[i] = fs.FileMode(f.Mode)
		}
		st, err := root.Lstat(targets[i])
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if f.OldSHA != nil {
				drifted = append(drifted, f.Path+" (deleted)")
			}
			continue
		case err != nil:
			return nil, nil, fmt.Errorf("astedit: %s: %w", f.Path, err)
		case f.OldSHA == nil:
			drifted = append(drifted, f.Path+" (created)")
			continue
		case !st.Mode().IsRegular():
			return nil, nil, fmt.Errorf("astedit: %s is no longer a regular file; discard the change and stage it again", f.Path)
		}
		modes[i] = st.Mode()
		data, err := root.ReadInto(targets[i], nil, maxFileBytes)
		if err != nil {
			return nil, nil, fmt.Errorf("astedit: %s: %w", f.Path, err)
		}
		if sha256.Sum256(data) != *f.OldSHA {
			drifted = append(drifted, f.Path)
		}
		if len(data) <= workspace.MaxFileBytes {
			olds[i] = data
		}
	}
	if len(drifted) > 0 {
		return nil, nil, &DriftError{ID: s.ID, Files: drifted}
	}
	return modes, olds, nil
}

// DriftError names the files of a staged change that changed since it
// was staged.
type DriftError struct {
	ID    string
	Files []string // with "(deleted)" or "(created)" where that is the change
}

func (e *DriftError) Error() string {
	return fmt.Sprintf("%v: %s; nothing was written: this change would undo those edits. Discard it (`cchub discard %s`) and stage it again on the files as they are now", ErrDrift, strings.Join(e.Files, ", "), e.ID)
}

func (e *DriftError) Unwrap() error { return ErrDrift }

// writeTemps writes the new contents of p beside their targets, synced,
// a few at a time (each waits for its fsync), and returns the directories
// it made. The first error stops it.
func writeTemps(ctx context.Context, root *workspace.Root, p plan, files []store.StagedFile, modes []fs.FileMode) ([]string, error) {
	const workers = 4
	var (
		mu    sync.Mutex
		made  []string
		first error
		next  int
		wg    sync.WaitGroup
	)
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		for next < len(p.Files) && first == nil {
			i := next
			next++
			if !p.Files[i].Delete {
				return i
			}
		}
		return -1
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := take(); i >= 0; i = take() {
				dirs, err := root.WriteTemp(p.Files[i].Temp, files[i].New, modes[i])
				if err == nil {
					err = ctx.Err()
				}
				mu.Lock()
				made = append(made, dirs...)
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
				if err == nil {
					reached("temp written")
				}
			}
		}()
	}
	wg.Wait()
	return made, first
}

// rollBack removes the temporary files of p: nothing of it is in place.
func rollBack(root *workspace.Root, p plan) {
	for _, e := range p.Files {
		if e.Temp != "" {
			root.RemoveSynced(e.Temp)
		}
	}
}

// rollForward puts every file of p in place: a temporary file still there
// is renamed over its target; one already gone was renamed before. It is
// safe to run again after a crash halfway.
func rollForward(root *workspace.Root, p plan, step func(string)) error {
	dirs := map[string]bool{}
	for _, e := range p.Files {
		if e.Delete {
			if err := root.RemoveSynced(e.Path); err != nil {
				return fmt.Errorf("delete %s: %w", e.Path, err)
			}
			step("deleted")
			continue
		}
		if _, err := root.Lstat(e.Temp); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := root.RenameInto(e.Temp, e.Path); err != nil {
			return fmt.Errorf("rename %s over %s: %w", e.Temp, e.Path, err)
		}
		dirs[path.Dir(e.Path)] = true
		step("renamed")
	}
	// The renames survive a crash once their directories are synced; the
	// journal is closed only after.
	for d := range dirs {
		if err := root.SyncDir(d); err != nil {
			return fmt.Errorf("sync %s: %w", d, err)
		}
	}
	return nil
}

// Recovered says what Recover did to one interrupted commit.
type Recovered struct {
	ID     string   `json:"id"`
	Action string   `json:"action"` // "finished", "rolled back" or Ignored
	Files  []string `json:"files"`  // none for an ignored row
}

// Ignored is the Action of a journal row that this user's cchub did not
// write: it is left as it is, and nothing it names is touched.
const Ignored = "ignored"

// Recover finishes or undoes every commit a crash interrupted: one that
// had not written all its new files is undone (the change stays staged),
// one that had is finished. Only rows this user's cchub wrote are acted
// on (store.Journal.Mine); another writer's row (from a database that
// came from elsewhere) is left untouched and reported as Ignored, its plan
// not even read. It waits for a commit in progress in another process to
// end. Every cchub start runs it.
func Recover(ctx context.Context, root *workspace.Root, st *store.Store) ([]Recovered, error) {
	unlock, err := root.LockFiles(ctx, journalLock)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return recoverLocked(ctx, root, st)
}

func recoverLocked(ctx context.Context, root *workspace.Root, st *store.Store) ([]Recovered, error) {
	if !Pending(root) {
		return nil, nil
	}
	js, err := st.Journals(ctx)
	if err != nil {
		return nil, err
	}
	var out []Recovered
	for _, j := range js {
		if !j.Mine {
			out = append(out, Recovered{ID: j.Change, Action: Ignored})
			continue
		}
		var p plan
		if err := json.Unmarshal([]byte(j.Plan), &p); err != nil {
			return out, fmt.Errorf("astedit: the commit journal of change %s cannot be read (%v); its files may be half written: check them with git", j.Change, err)
		}
		r := Recovered{ID: j.Change}
		for _, e := range p.Files {
			r.Files = append(r.Files, e.Path)
		}
		if j.State == "renaming" {
			r.Action = "finished"
			if err := rollForward(root, p, func(string) {}); err != nil {
				return out, fmt.Errorf("astedit: finishing the interrupted commit of %s: %w; fix the cause (permissions, disk space) and run cchub again", j.Change, err)
			}
		} else {
			r.Action = "rolled back"
			rollBack(root, p)
		}
		if err := st.CloseJournal(ctx, j.Change); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, setMarker(root, false)
}
