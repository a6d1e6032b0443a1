package hub

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cchub/gitcmd"
	"cchub/store"
	"cchub/workspace"
)

// state is the hub's database, opened on first need.
func (h *Hub) state(ctx context.Context) (*store.Store, error) {
	h.dbMu.Lock()
	defer h.dbMu.Unlock()
	if h.db == nil && h.dbErr == nil {
		h.db, h.dbErr = store.Open(ctx, h.Root)
	}
	return h.db, h.dbErr
}

// StateNotice is the warning that the workspace's .cchub is not this
// user's cchub state and is ignored (see workspace's state.go), or "".
func (h *Hub) StateNotice() string { return h.Root.StateNotice() }

// say keeps a notice for every run to hear once (Notice) and warns of it
// (Options.Warn), once per process.
func (h *Hub) say(notice string) {
	if notice == "" {
		return
	}
	h.noticeMu.Lock()
	for _, n := range h.notices {
		if n == notice {
			h.noticeMu.Unlock()
			return
		}
	}
	h.notices = append(h.notices, notice)
	h.noticeMu.Unlock()
	h.warn(notice)
}

// Notice is what r has not been told yet of the hub's notices (the state
// notice, the shared store's), as lines to put before a result, each
// given once per run.
func (h *Hub) Notice(r *Run) string {
	if r == nil {
		return ""
	}
	h.noticeMu.Lock()
	notices := append([]string(nil), h.notices...)
	h.noticeMu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, n := range notices {
		if r.heard == nil {
			r.heard = map[string]bool{}
		}
		if r.heard[n] {
			continue
		}
		r.heard[n] = true
		b.WriteString("[" + n + "]\n")
	}
	return b.String()
}

// openState decides where the hub keeps its state (asking git, for a
// .cchub without this user's stamp, whether it is tracked) and says,
// once per process, when the workspace's .cchub is ignored.
func (h *Hub) openState() {
	h.Root.CheckTrackedWith(gitTracks(h.Root.Dir()))
	h.say(h.Root.StateNotice())
}

// gitTrackTimeout bounds the one git question a start may ask.
const gitTrackTimeout = 30 * time.Second

// gitTracks asks git, run in dir, whether it tracks anything under a
// path. Outside a repository nothing is tracked; without git, nothing is
// where the root has no .git, and the answer is unknown where it has.
func gitTracks(dir string) workspace.TrackedFunc {
	return func(rel string) (bool, error) {
		g, err := gitcmd.New(dir)
		if errors.Is(err, exec.ErrNotFound) {
			if _, serr := os.Lstat(filepath.Join(dir, ".git")); serr != nil {
				return false, nil
			}
		}
		if err != nil {
			return false, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), gitTrackTimeout)
		defer cancel()
		out, err := g.Output(ctx, 1<<16, "ls-files", "-z", "--", rel)
		var ge *gitcmd.Error
		if errors.As(err, &ge) && strings.Contains(ge.Message, "not a git repository") {
			return false, nil
		}
		var tl *gitcmd.TooLongError
		if errors.As(err, &tl) {
			return true, nil // more than a page of tracked paths
		}
		if err != nil {
			return false, err
		}
		return len(out) > 0, nil
	}
}
