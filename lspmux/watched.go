package lspmux

import (
	"context"
	"crypto/sha256"
	"sort"
	"strings"
	"time"

	"go.lsp.dev/uri"

	"cchub/workspace"
)

// DiskReport is what DiskChanged told the running servers.
type DiskReport struct {
	// Changed are the open documents whose new content on disk was sent
	// (didChange); Closed those gone from disk (didClose).
	Changed, Closed []string
	// Same counts open documents whose content on disk their server
	// already held: the hub's own writes, told when they were made.
	Same int
	// Watched counts the changes sent as workspace/didChangeWatchedFiles,
	// over all servers.
	Watched int
	// Servers counts the running servers told anything.
	Servers int
	// Late is what the change on disk caused, measured as a change's
	// (see AfterWrite): it is ready once every server told of it has
	// settled. Nil when no server was told anything.
	Late *Late
}

// Told says whether any server was told anything.
func (r *DiskReport) Told() bool {
	return len(r.Changed) > 0 || len(r.Closed) > 0 || r.Watched > 0
}

// DiskChanged tells the running servers of files another process changed:
// a document a server has open gets its content on disk (didChange), or
// is closed when it is gone; every other change under a server's root is
// sent as workspace/didChangeWatchedFiles (servers register for it; one
// that did not ignores it). No server is started for it.
//
// What another process did is measured as a change is (AfterWrite): it
// takes its turn in each server's line of changes, from the settled state
// before it to the state once the server has settled after it, so that
// what it caused is told as its doing (Report.Late) and is not taken for
// the doing of the next change through the Mux. DiskChanged returns once
// the servers are told; the measuring goes on in the background.
func (m *Mux) DiskChanged(ctx context.Context, changes []workspace.Change) (*DiskReport, error) {
	rep := &DiskReport{}
	changed, closed := map[string]bool{}, map[string]bool{}
	var late []*job
	defer func() {
		rep.Changed, rep.Closed = pathsOf(changed), pathsOf(closed)
		if len(late) > 0 {
			rep.Late = &Late{jobs: late}
			for _, j := range late {
				rep.Late.Servers = append(rep.Late.Servers, j.own.spec.Name)
			}
		}
	}()
	for _, s := range m.running() {
		endTurn, err := m.turn(ctx, s.own.key())
		if err != nil {
			return rep, err
		}
		release := s.hold()
		if !m.stillSettled(s.own.key(), s) {
			// The server is busy with what came before (its own start, or
			// a change whose job ended unsettled): what it says next is
			// not this change's doing.
			sctx, cancel := context.WithTimeout(ctx, diskSettleBefore)
			s.settleAll(sctx, s.own.spec.quiet())
			cancel()
		}
		before := s.snapshot(m)
		j := &job{own: s.own, done: make(chan struct{})}
		toldAt := time.Now()
		s.mu.Lock()
		at := told{seq: s.seq, begun: s.begun}
		s.mu.Unlock()
		n, sent, err := m.diskChanged(ctx, s, changes, rep, changed, closed)
		if n == 0 || err != nil {
			release()
			endTurn()
			if err != nil {
				return rep, err
			}
			continue
		}
		rep.Servers++
		for _, c := range changes {
			if s.own.covers(c.Path) {
				j.files = append(j.files, File{Path: c.Path})
			}
		}
		late = append(late, j)
		m.jobs.Add(1)
		go func() { // owned by the Mux: Close cancels and waits for it
			defer m.jobs.Done()
			defer endTurn()
			defer release()
			defer close(j.done)
			m.measureDisk(j, s, before, sent, at, toldAt)
		}()
	}
	return rep, nil
}

// diskSettleBefore bounds the wait for a busy server to settle before it
// is told of a change on disk.
const diskSettleBefore = 5 * time.Second

// measureDisk waits for s to settle after it was told of a change on
// disk at toldAt (told: the open documents sent their content) and
// writes into j what the change caused.
func (m *Mux) measureDisk(j *job, s *server, before snapshot, told map[uri.URI]told, at told, toldAt time.Time) {
	ctx, cancel := context.WithTimeout(m.life, jobLimit)
	defer cancel()
	j.res.server = s.own.spec.Name
	j.res.settled = s.settle(ctx, told)
	if j.res.settled && !s.own.spec.ChecksProject {
		// Files sent as watched changes have no document to wait for: a
		// server that reacts begins within its quiet time, then settles.
		s.reacted(ctx, at, toldAt.Add(s.own.spec.quiet()))
		j.res.settled = s.settleAll(ctx, s.own.spec.quiet())
	}
	if !j.res.settled && !s.alive() {
		j.res.notes = append(j.res.notes, s.failed("diagnostics", errStopped).Error())
	}
	m.compare(j, before, s.snapshot(m), told)
	if j.res.settled {
		s.mu.Lock()
		seq, idle := s.seq, len(s.active) == 0
		s.mu.Unlock()
		if idle {
			m.mu.Lock()
			m.settledAt[j.own.key()] = settledMark{s, seq}
			m.mu.Unlock()
		}
	}
}

// diskChanged tells s of changes; it returns how many it was told of, and
// the open documents it was sent the content of.
func (m *Mux) diskChanged(ctx context.Context, s *server, changes []workspace.Change, rep *DiskReport, changed, closed map[string]bool) (int, map[uri.URI]told, error) {
	sent := map[uri.URI]told{}
	s.mu.Lock()
	open := make(map[uri.URI][sha256.Size]byte, len(s.docs))
	for u := range s.docs {
		open[u] = s.held[u]
	}
	s.mu.Unlock()
	told := 0
	var watched []map[string]any
	var reread []string
	for _, c := range changes {
		if !s.own.covers(c.Path) {
			continue
		}
		u := m.docURI(c.Path)
		if c.Kind == workspace.Deleted {
			// A directory takes the documents under it.
			for d := range open {
				if d == u || strings.HasPrefix(string(d), string(u)+"/") {
					if err := s.forget(ctx, d); err != nil {
						return told, sent, err
					}
					closed[m.root.Rel(d.Filename())] = true
					told++
				}
			}
			if _, ok := open[u]; !ok {
				watched = append(watched, map[string]any{"uri": u, "type": fileChangeType(c.Kind)})
			}
			continue
		}
		held, ok := open[u]
		if !ok {
			watched = append(watched, map[string]any{"uri": u, "type": fileChangeType(c.Kind)})
			if s.own.spec.ChecksProject {
				reread = append(reread, c.Path)
			}
			continue
		}
		data, err := m.root.ReadText(c.Path)
		if err != nil {
			// Gone since, or no longer text: not a document any more.
			if err := s.forget(ctx, u); err != nil {
				return told, sent, err
			}
			closed[c.Path] = true
			told++
			continue
		}
		if sha256.Sum256(data) == held {
			rep.Same++
			continue
		}
		t, err := s.tell(ctx, u, s.own.lang, data)
		if err != nil {
			return told, sent, err
		}
		sent[u] = t
		changed[c.Path] = true
		told++
	}
	if len(watched) > 0 {
		if err := s.conn.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": watched}); err != nil {
			return told, sent, s.failed("didChangeWatchedFiles", err)
		}
		rep.Watched += len(watched)
		told += len(watched)
	}
	if s.own.spec.ChecksProject && told > 0 {
		if err := m.reread(ctx, s, reread); err != nil {
			return told, sent, err
		}
	}
	return told, sent, nil
}

// reacted waits until s has published or begun work since at, or until
// deadline, or ctx's end.
func (s *server) reacted(ctx context.Context, at told, deadline time.Time) {
	for {
		s.mu.Lock()
		wake, moved := s.wake, s.seq > at.seq || s.begun > at.begun
		s.mu.Unlock()
		left := time.Until(deadline)
		if moved || left <= 0 {
			return
		}
		t := time.NewTimer(left)
		select {
		case <-wake:
		case <-t.C:
		case <-s.exited:
		case <-ctx.Done():
		}
		t.Stop()
		if ctx.Err() != nil || !s.alive() {
			return
		}
	}
}

// OpenDocuments lists the files the running servers have open, relative
// to the root and sorted: the views that go stale when another process
// changes them.
func (m *Mux) OpenDocuments() []string {
	seen := map[string]bool{}
	for _, s := range m.running() {
		s.mu.Lock()
		for u := range s.docs {
			if rel := m.root.Rel(u.Filename()); rel != "" && rel != "." {
				seen[rel] = true
			}
		}
		s.mu.Unlock()
	}
	return pathsOf(seen)
}

// running is the servers running now.
func (m *Mux) running() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	var ss []*server
	for _, s := range m.servers {
		if s.alive() {
			ss = append(ss, s)
		}
	}
	return ss
}

// remember records the content the document u was given, so that the same
// content found on disk later is not sent again; s.mu is held.
func (s *server) remember(u uri.URI, text []byte) {
	if s.held == nil {
		s.held = map[uri.URI][sha256.Size]byte{}
	}
	s.held[u] = sha256.Sum256(text)
}

// covers says whether rel is under the owner's root.
func (o *owner) covers(rel string) bool {
	return o.dir == "" || rel == o.dir || strings.HasPrefix(rel, o.dir+"/")
}

// fileChangeType is LSP's FileChangeType of k.
func fileChangeType(k workspace.ChangeKind) int {
	switch k {
	case workspace.Created:
		return 1
	case workspace.Deleted:
		return 3
	}
	return 2
}

func pathsOf(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
