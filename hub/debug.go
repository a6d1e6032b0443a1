package hub

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"cchub/dapsession"
)

// A run has at most one debug session; dapsession decides everything
// else (the adapter, the breakpoints, what an answer shows).

// Debug runs one op of r's debug session: launch starts the run's one
// session, terminate ends it, and any other op goes to the live session.
func (h *Hub) Debug(ctx context.Context, r *Run, in dapsession.Request) (*dapsession.Result, error) {
	op := strings.TrimSpace(in.Op)
	if op == "launch" {
		return h.launch(ctx, r, in)
	}
	s, err := r.liveDebug()
	if err != nil {
		return nil, err
	}
	if op == "terminate" {
		r.endDebug("it was terminated")
		r.mu.Lock()
		r.debugGone = ""
		r.mu.Unlock()
		return &dapsession.Result{Op: op, Session: s.What}, nil
	}
	return s.Do(ctx, h.Root, in)
}

// over says s ended otherwise than by its program's end (which leaves it
// answering until terminated).
func over(s *dapsession.Session) bool {
	why := s.Ended()
	return why != "" && why != "the program ended"
}

// liveDebug is r's debug session, or why there is none: how the last one
// ended, said once, or that none was launched.
func (r *Run) liveDebug() (*dapsession.Session, error) {
	r.mu.Lock()
	s, gone := r.debug, r.debugGone
	if s != nil && over(s) {
		r.debug, r.debugGone, gone = nil, "", describeEnd(s)
		s = nil
	}
	if s == nil {
		r.debugGone = ""
	}
	r.mu.Unlock()
	switch {
	case s != nil:
		return s, nil
	case gone != "":
		return nil, fmt.Errorf("%s; launch again to go on", gone)
	}
	return nil, errors.New("no debug session in this conversation: launch one first (op launch, program, breakpoints)")
}

// launch starts r's debug session, refusing a second one.
func (h *Hub) launch(ctx context.Context, r *Run, in dapsession.Request) (*dapsession.Result, error) {
	r.mu.Lock()
	live := r.debug
	if live != nil && over(live) {
		live, r.debug = nil, nil
	}
	r.mu.Unlock()
	if live != nil {
		return nil, fmt.Errorf("a debug session is live in this conversation: %s, %s, %v left; terminate it first (op terminate)",
			live.What, live.Status(h.Root), time.Until(live.Deadline).Round(time.Second))
	}
	s, res, err := dapsession.Start(ctx, h.Root, in)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.debug != nil { // a concurrent launch won
		r.mu.Unlock()
		s.End("a second launch raced it")
		return nil, errors.New("a debug session was launched meanwhile in this conversation; terminate it first")
	}
	r.debug = s
	r.mu.Unlock()
	if res.Note != "" && r.told(res.Note) {
		res.Note = ""
	}
	return res, nil
}

// endDebug ends r's debug session, if any, saying why to its next call.
func (r *Run) endDebug(why string) {
	r.mu.Lock()
	s := r.debug
	r.debug = nil
	r.mu.Unlock()
	if s == nil {
		return
	}
	s.End(why)
	r.mu.Lock()
	r.debugGone = describeEnd(s)
	r.mu.Unlock()
}

func describeEnd(s *dapsession.Session) string {
	last := s.Last()
	where := ""
	if last.Path != "" {
		where = fmt.Sprintf(", last stopped at %s:%d", filepath.Base(last.Path), last.Line)
	}
	return fmt.Sprintf("the debug session of %s ended: %s%s", s.What, s.Ended(), where)
}
