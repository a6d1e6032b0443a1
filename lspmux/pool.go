package lspmux

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/uri"

	"cchub/workspace"
)

// Pool lets the Muxes of one process (the shared hub's workspaces) share
// a language server between the git worktrees of one repository: the
// first worktree's Mux starts it, each other one adds its directory as a
// workspace folder, which the server serves as a view of its own, and
// the last one to let it go stops it. Only servers that keep one view
// per folder (Spec.Folders) are shared, and only when everything that
// shapes their answers is the same: the binary, its arguments,
// environment, initialization options and settings, and the server's
// place in the repository. Folders that nest are never shared (a file
// would belong to two). The zero value is not usable; call NewPool.
type Pool struct {
	mu      sync.Mutex
	entries map[string]*pooled
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{entries: map[string]*pooled{}} }

// pooled is one shared server and the Muxes using it.
type pooled struct {
	key   string
	ready chan struct{} // closed when the start has ended (s or err set)
	s     *server
	err   error
}

// poolKey names what a server of o in dir must share to be shared: ""
// when it is not to be (the server keeps one view for all folders, or
// dir is in no git repository).
func poolKey(o *owner, dir string) string {
	if !o.spec.Folders {
		return ""
	}
	family, top := gitFamily(dir)
	if family == "" {
		return ""
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return ""
	}
	id, err := json.Marshal(struct {
		Family, Place, Name, Command, Bin string
		Args                              []string
		Env                               map[string]string
		Languages                         map[string]string
		Markers                           []string
		Init, Settings                    map[string]any
	}{family, filepath.ToSlash(rel), o.spec.Name, o.spec.Command, o.bin, o.spec.Args, o.spec.Env, o.spec.Languages, o.spec.RootMarkers, o.init, o.spec.Settings})
	if err != nil {
		return "" // a setting that does not marshal: not shared
	}
	sum := sha256.Sum256(id)
	return hex.EncodeToString(sum[:])
}

// gitFamily finds the repository dir belongs to: its common git
// directory (the same for every worktree of it) and the top of dir's
// worktree; "" when dir is in none. It reads .git and commondir as data
// (no git runs).
func gitFamily(dir string) (family, top string) {
	for d := dir; ; {
		g := filepath.Join(d, ".git")
		if fi, err := os.Lstat(g); err == nil {
			switch {
			case fi.IsDir():
				return filepath.Clean(g), d
			case fi.Mode().IsRegular() && fi.Size() < 4096:
				gitdir := readGitdir(g)
				if gitdir == "" {
					return "", ""
				}
				if !filepath.IsAbs(gitdir) {
					gitdir = filepath.Join(d, gitdir)
				}
				common := gitdir
				if b, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
					c := strings.TrimSpace(string(b))
					if !filepath.IsAbs(c) {
						c = filepath.Join(gitdir, c)
					}
					common = c
				}
				if real, err := filepath.EvalSymlinks(common); err == nil {
					common = real
				}
				return filepath.Clean(common), d
			}
			return "", ""
		}
		up := filepath.Dir(d)
		if up == d {
			return "", ""
		}
		d = up
	}
}

// readGitdir reads the "gitdir: PATH" line of a worktree's .git file.
func readGitdir(name string) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return ""
	}
	return strings.TrimSpace(rest)
}

// acquire returns the pool's server for key with dir added as m's
// folder, or starts it with start (which runs o's server in dir) when
// there is none; when the one there has a folder that nests with dir,
// start's server is m's alone. A start another Mux began is waited for,
// within ctx.
func (p *Pool) acquire(ctx context.Context, m *Mux, key, dir string, start func() (*server, error)) (*server, error) {
	for {
		p.mu.Lock()
		e := p.entries[key]
		if e == nil {
			e = &pooled{key: key, ready: make(chan struct{})}
			p.entries[key] = e
			p.mu.Unlock()
			s, err := start()
			p.mu.Lock()
			e.s, e.err = s, err
			if err != nil {
				delete(p.entries, key)
			} else {
				s.mu.Lock()
				s.pool, s.users = e, map[*Mux]string{m: dir}
				s.mu.Unlock()
			}
			close(e.ready)
			p.mu.Unlock()
			return s, err
		}
		p.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		p.mu.Lock()
		if p.entries[key] != e {
			p.mu.Unlock()
			continue // it failed or was let go meanwhile: look again
		}
		s := e.s
		if !s.alive() {
			delete(p.entries, key) // it crashed: this Mux starts the next
			p.mu.Unlock()
			continue
		}
		s.mu.Lock()
		added, nested := true, false
		for _, f := range s.users {
			if f == dir {
				added = false
			} else if workspace.Within(f, dir) || workspace.Within(dir, f) {
				nested = true
			}
		}
		if !nested {
			s.users[m] = dir
		}
		s.mu.Unlock()
		p.mu.Unlock()
		if nested {
			return start() // its own, outside the pool
		}
		if added {
			if err := s.changeFolders(ctx, dir, true); err != nil {
				p.release(m, s, time.Second)
				return nil, s.failed("adding a workspace folder", err)
			}
		}
		return s, nil
	}
}

// release lets m's use of s go: the last user stops it (within grace),
// another one removes m's folder from it (unless a Mux of the same
// folder still uses it) and closes m's documents.
func (p *Pool) release(m *Mux, s *server, grace time.Duration) {
	p.mu.Lock()
	s.mu.Lock()
	e := s.pool
	if e == nil {
		s.mu.Unlock()
		p.mu.Unlock()
		s.stop(grace)
		return
	}
	dir, ok := s.users[m]
	delete(s.users, m)
	last := len(s.users) == 0
	if last && p.entries[e.key] == e {
		delete(p.entries, e.key)
	}
	gone := ok && !last
	for _, f := range s.users {
		if f == dir {
			gone = false
		}
	}
	var docs []uri.URI
	if gone {
		for u := range s.docs {
			if workspace.Within(dir, u.Filename()) {
				docs = append(docs, u)
				delete(s.docs, u)
				delete(s.held, u)
				delete(s.fresh, u)
			}
		}
	}
	s.mu.Unlock()
	p.mu.Unlock()
	if last {
		s.stop(grace)
		return
	}
	if !gone || !s.alive() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), max(grace, time.Second))
	defer cancel()
	for _, u := range docs {
		_ = s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
	}
	_ = s.changeFolders(ctx, dir, false)
}

// changeFolders tells s that dir was added to, or removed from, its
// workspace folders.
func (s *server) changeFolders(ctx context.Context, dir string, add bool) error {
	f := []map[string]any{{"uri": uri.File(dir), "name": filepath.Base(dir)}}
	event := map[string]any{"added": []any{}, "removed": []any{}}
	if add {
		event["added"] = f
	} else {
		event["removed"] = f
	}
	return s.conn.Notify(ctx, "workspace/didChangeWorkspaceFolders", map[string]any{"event": event})
}

// foreignLocked says whether u is a file of another worktree than m's
// that s serves (never, for a server of one Mux): its diagnostics and
// places are that worktree's, never m's. s.mu is held.
func (s *server) foreignLocked(u uri.URI, m *Mux) bool {
	if len(s.users) < 2 {
		return false
	}
	mine := s.users[m]
	name := u.Filename()
	for _, f := range s.users {
		if f != mine && workspace.Within(f, name) {
			return true
		}
	}
	return false
}

// folderList is s's workspace folders, for a workspace/workspaceFolders
// request.
func (s *server) folderList() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	var out []map[string]any
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			out = append(out, map[string]any{"uri": uri.File(d), "name": filepath.Base(d)})
		}
	}
	if s.users == nil {
		add(s.dir)
	}
	for _, d := range s.users {
		add(d)
	}
	return out
}
