package lspmux

import (
	"context"
	"crypto/sha256"
	"sort"
	"strings"

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
func (m *Mux) DiskChanged(ctx context.Context, changes []workspace.Change) (*DiskReport, error) {
	rep := &DiskReport{}
	changed, closed := map[string]bool{}, map[string]bool{}
	for _, s := range m.running() {
		// What another process did must not be measured as a change's
		// doing: it takes its turn in the server's line of changes.
		endTurn, err := m.turn(ctx, s.own.key())
		if err != nil {
			return rep, err
		}
		release := s.hold()
		n, err := m.diskChanged(ctx, s, changes, rep, changed, closed)
		release()
		endTurn()
		if n > 0 {
			rep.Servers++
		}
		if err != nil {
			return rep, err
		}
	}
	rep.Changed, rep.Closed = pathsOf(changed), pathsOf(closed)
	return rep, nil
}

// diskChanged tells s of changes; it returns how many it was told of.
func (m *Mux) diskChanged(ctx context.Context, s *server, changes []workspace.Change, rep *DiskReport, changed, closed map[string]bool) (int, error) {
	s.mu.Lock()
	open := make(map[uri.URI][sha256.Size]byte, len(s.docs))
	for u := range s.docs {
		open[u] = s.held[u]
	}
	s.mu.Unlock()
	told := 0
	var watched []map[string]any
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
						return told, err
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
			continue
		}
		data, err := m.root.ReadText(c.Path)
		if err != nil {
			// Gone since, or no longer text: not a document any more.
			if err := s.forget(ctx, u); err != nil {
				return told, err
			}
			closed[c.Path] = true
			told++
			continue
		}
		if sha256.Sum256(data) == held {
			rep.Same++
			continue
		}
		if _, err := s.tell(ctx, u, s.own.lang, data); err != nil {
			return told, err
		}
		changed[c.Path] = true
		told++
	}
	if len(watched) > 0 {
		if err := s.conn.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": watched}); err != nil {
			return told, s.failed("didChangeWatchedFiles", err)
		}
		rep.Watched += len(watched)
		told += len(watched)
	}
	return told, nil
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
