package lspmux

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// Batch is a run of queries at places in one file, on the file's server:
// the file is told once (not at all when the server already holds what
// is on disk, or reads it from disk itself: Spec.QueriesOnDisk), then
// any number of queries go out, concurrently if the
// caller likes. Many questions about one file cost one document sync,
// not one each.
type Batch struct {
	m       *Mux
	s       *server
	u       uri.URI
	lang    string
	text    []byte
	release func()
	once    sync.Once
	// unopened: the server was not told the file (Spec.QueriesOnDisk);
	// it is told once a query needs it (opened, openErr).
	unopened bool
	opened   sync.Once
	openErr  error
}

// Batch finds the server of path and tells it the file. Unlike Query, it
// waits for a server still starting until ctx ends, not only the Mux's
// Timeout: a caller with a budget of its own bounds ctx. The errors are
// Query's (ErrNoServer wrapped, *Unavailable, a failed start). Close the
// Batch when done.
func (m *Mux) Batch(ctx context.Context, path string) (*Batch, error) {
	o, err := m.ownerOf(path)
	if err != nil {
		return nil, err
	}
	s, note, err := m.serverWithin(ctx, o, 0)
	if err != nil {
		if note != "" {
			return nil, fmt.Errorf("%s; %w", note, err)
		}
		return nil, err
	}
	release := s.hold()
	text, err := m.root.ReadText(path)
	if err != nil {
		release()
		return nil, err
	}
	u := m.docURI(path)
	s.mu.Lock()
	_, open := s.docs[u]
	held, ok := s.held[u]
	s.mu.Unlock()
	b := &Batch{m: m, s: s, u: u, lang: o.lang, text: text, release: release}
	switch {
	case !open && s.own.spec.QueriesOnDisk:
		// Asked as the file is on disk, where the server reads it.
		b.unopened = true
	case !open || !ok || held != sha256.Sum256(text):
		if _, err := s.tell(ctx, u, o.lang, text); err != nil {
			release()
			return nil, err
		}
	}
	return b, nil
}

// Text is the file's content the server was told, or reads from disk:
// the positions of the Batch's queries are in it.
func (b *Batch) Text() []byte { return b.text }

// Query asks one question at a place in the Batch's file (q.Path is
// ignored); it is safe for concurrent use.
func (b *Batch) Query(ctx context.Context, q Query) (*Answer, error) {
	a, err := b.m.ask(ctx, b.s, b.u, b.text, q)
	if err != nil && b.unopened && NotLoaded(err) && ctx.Err() == nil {
		// gopls loads a file no package of its view holds (another
		// platform's, behind a build constraint) only once it is
		// open: the file is told, and the question asked again.
		b.opened.Do(func() { _, b.openErr = b.s.tell(ctx, b.u, b.lang, b.text) })
		if b.openErr != nil {
			return nil, err
		}
		return b.m.ask(ctx, b.s, b.u, b.text, q)
	}
	return a, err
}

// NotLoaded says err is gopls's answer about a file in no package it has
// loaded (a build constraint, another platform, an ignored directory).
func NotLoaded(err error) bool {
	return strings.Contains(err.Error(), "no package metadata")
}

// Close ends the Batch: the server may go idle again.
func (b *Batch) Close() { b.once.Do(b.release) }

// cancel tells s that the request id, whose caller gave up (ctx ended),
// needs no answer: a server works through its requests in turn, and one
// nobody waits for delays the next.
func (s *server) cancel(ctx context.Context, id jsonrpc2.ID) {
	ctx, stop := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer stop()
	_ = s.conn.Notify(ctx, "$/cancelRequest", map[string]any{"id": id})
}
