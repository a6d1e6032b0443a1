package lspmux

import (
	"context"
	"crypto/sha256"
	"path/filepath"
	"time"

	"go.lsp.dev/uri"
)

// docURI is the URI the server knows rel by.
func (m *Mux) docURI(rel string) uri.URI {
	return uri.File(filepath.Join(m.root.Dir(), filepath.FromSlash(rel)))
}

// tell tells s that the document u (language lang) now holds text: opened
// at version 1 the first time, then a full change with the next version,
// then saved, since it is on disk. It returns the server's publish count
// before it was told, from which a wait for its diagnostics counts.
func (s *server) tell(ctx context.Context, u uri.URI, lang string, text []byte) (told, error) {
	s.mu.Lock()
	since := told{seq: s.seq, begun: s.begun}
	v, open := s.docs[u]
	v++
	s.docs[u] = v
	if held, ok := s.held[u]; !open || !ok || held != sha256.Sum256(text) {
		s.fresh[u] = true
		s.dirty = true
	}
	s.remember(u, text)
	since.version = v
	s.used = time.Now()
	s.mu.Unlock()
	var err error
	if !open {
		err = s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
			"textDocument": map[string]any{"uri": u, "languageId": lang, "version": v, "text": string(text)},
		})
	} else {
		err = s.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": v},
			"contentChanges": []map[string]any{{"text": string(text)}},
		})
	}
	if err == nil {
		err = s.conn.Notify(ctx, "textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": u}})
	}
	if err != nil {
		return since, s.failed("sync", err)
	}
	return since, nil
}

// told is where a server stood when a document was told to it: its
// publish and progress counts, and the version the document was given.
type told struct {
	seq, begun uint64
	version    int32
}

// forget tells s that the document u is gone from disk.
func (s *server) forget(ctx context.Context, u uri.URI) error {
	s.mu.Lock()
	_, open := s.docs[u]
	delete(s.docs, u)
	delete(s.held, u)
	delete(s.diags, u)
	delete(s.pushed, u)
	delete(s.kinds, u)
	delete(s.fresh, u)
	s.dirty = true
	s.mu.Unlock()
	if open {
		if err := s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}}); err != nil {
			return s.failed("didClose", err)
		}
	}
	const deleted = 3 // FileChangeType.Deleted
	err := s.conn.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{
		"changes": []map[string]any{{"uri": u, "type": deleted}},
	})
	if err != nil {
		return s.failed("didChangeWatchedFiles", err)
	}
	return nil
}

// defaultQuiet is how long a server must have said nothing, after its
// diagnostics for a change came, for them to count as settled (see
// Spec.QuietMS).
const defaultQuiet = 300 * time.Millisecond

// settle waits until s's diagnostics for the documents told count as
// settled, and says whether they did before ctx's deadline:
//
//   - each document told has been published after it was told, for its
//     new version when the server says which: servers publish a
//     document's diagnostics after every change, even when unchanged;
//   - no work-done progress the server reported is still going: gopls,
//     asked for verbose progress, reports each diagnostic pass (other
//     packages, a broken caller, included), so the type errors of the
//     change are in before it ends;
//   - and, unless the server's progress reports its diagnostic passes
//     (Spec.ProgressSettles) and one began since it was told, it has
//     said nothing for its quiet time (Spec.QuietMS): such servers
//     publish in waves (syntax, then types), and their progress, if
//     any, is of other work.
//
// A server that checks the project (Spec.ChecksProject) is asked for
// every file's diagnostics instead: they are settled once it answered.
func (s *server) settle(ctx context.Context, docs map[uri.URI]told) bool {
	if s.own.spec.ChecksProject {
		return s.check(ctx).whole()
	}
	return s.waitPublished(ctx, docs)
}

// waitPublished is settle by what the server published itself.
func (s *server) waitPublished(ctx context.Context, docs map[uri.URI]told) bool {
	pushes := s.diags
	if s.own.spec.ChecksProject {
		pushes = s.pushed
	}
	for {
		s.mu.Lock()
		wake := s.wake
		wait := time.Duration(0)
		done := len(s.active) == 0
		progressed := true
		for u, t := range docs {
			// A publish for an older version (a pass over the previous
			// content that ended late) is not the answer.
			if p := pushes[u]; p.seq <= t.seq || p.version != 0 && p.version < t.version {
				done = false
			}
			if s.begun <= t.begun || !s.own.spec.ProgressSettles {
				progressed = false
			}
		}
		if done && !progressed {
			if left := s.own.spec.quiet() - time.Since(s.last); left > 0 {
				done, wait = false, left
			}
		}
		s.mu.Unlock()
		if done {
			return true
		}
		var timer *time.Timer
		var fired <-chan time.Time
		if wait > 0 {
			timer = time.NewTimer(wait)
			fired = timer.C
		}
		ok := true
		select {
		case <-wake:
		case <-fired:
		case <-s.exited:
			ok = false
		case <-ctx.Done():
			ok = false
		}
		if timer != nil {
			timer.Stop()
		}
		if !ok {
			return false
		}
	}
}

// settleAll waits until s has no work-done progress going and has said
// nothing for still: a server that was just started has loaded and
// diagnosed its workspace. It says whether that came before ctx ended.
//
// A server that checks the project is checked again if anything was told
// to it since its last check (or it never was).
func (s *server) settleAll(ctx context.Context, still time.Duration) bool {
	if s.own.spec.ChecksProject {
		return s.checkIfDue(ctx).whole()
	}
	for {
		s.mu.Lock()
		wake := s.wake
		wait := still - time.Since(s.last)
		busy := len(s.active) > 0
		s.mu.Unlock()
		if !busy && wait <= 0 {
			return true
		}
		if busy {
			wait = still
		}
		t := time.NewTimer(wait)
		select {
		case <-wake:
		case <-t.C:
		case <-s.exited:
			t.Stop()
			return false
		case <-ctx.Done():
			t.Stop()
			return false
		}
		t.Stop()
	}
}
