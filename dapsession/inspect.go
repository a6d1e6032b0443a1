package dapsession

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/go-dap"
)

// setBreakpoints replaces the breakpoints of the file at path with bps
// and returns them as the adapter took them. A logpoint the adapter
// cannot take is not sent (it would stop instead of printing).
func (s *Session) setBreakpoints(ctx context.Context, path string, bps []Breakpoint) ([]Breakpoint, error) {
	out := append([]Breakpoint(nil), bps...)
	src := make([]map[string]any, 0, len(bps))
	var sent []int // indexes in out of what src sends
	for i, b := range bps {
		bp := map[string]any{"line": b.Line}
		if b.Condition != "" {
			bp["condition"] = b.Condition
		}
		if b.Log != "" {
			if !s.caps.SupportsLogPoints {
				out[i].Message = s.Adapter.Name + " has no logpoints: use a breakpoint and evaluate"
				continue
			}
			bp["logMessage"] = b.Log
		}
		src = append(src, bp)
		sent = append(sent, i)
	}
	raw, err := s.c.call(ctx, "setBreakpoints", map[string]any{"source": map[string]any{"path": path}, "breakpoints": src})
	if err != nil {
		return nil, fmt.Errorf("breakpoints in %s: %w", path, err)
	}
	var body dap.SetBreakpointsResponseBody
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, err
	}
	for j, i := range sent {
		if j < len(body.Breakpoints) {
			got := body.Breakpoints[j]
			out[i].Verified, out[i].Actual, out[i].Message = got.Verified, got.Line, got.Message
		}
	}
	s.mu.Lock()
	s.bps[path] = out
	if len(out) == 0 {
		delete(s.bps, path)
	}
	s.mu.Unlock()
	return out, nil
}

// setFunctionBreakpoints replaces the function breakpoints with bps and
// returns them as the adapter took them: Path and Line are where the
// adapter put them, when it says.
func (s *Session) setFunctionBreakpoints(ctx context.Context, bps []Breakpoint) ([]Breakpoint, error) {
	out := append([]Breakpoint(nil), bps...)
	if !s.caps.SupportsFunctionBreakpoints {
		for i := range out {
			out[i].Verified, out[i].Message = false, s.Adapter.Name+" has no function breakpoints: give path:line"
		}
	} else {
		fbs := make([]map[string]any, 0, len(bps))
		for _, b := range bps {
			fb := map[string]any{"name": b.Function}
			if b.Condition != "" {
				fb["condition"] = b.Condition
			}
			fbs = append(fbs, fb)
		}
		raw, err := s.c.call(ctx, "setFunctionBreakpoints", map[string]any{"breakpoints": fbs})
		if err != nil {
			return nil, fmt.Errorf("function breakpoints: %w", err)
		}
		var body dap.SetFunctionBreakpointsResponseBody
		if err := json.Unmarshal(raw, &body); err != nil {
			return nil, err
		}
		for i := range out {
			if i < len(body.Breakpoints) {
				got := body.Breakpoints[i]
				out[i].Verified, out[i].Message = got.Verified, got.Message
				if got.Source != nil && got.Source.Path != "" && got.Line > 0 {
					out[i].Path, out[i].Line, out[i].Actual = got.Source.Path, got.Line, got.Line
				}
			}
		}
	}
	s.mu.Lock()
	s.funcs = out
	s.mu.Unlock()
	return out, nil
}

// SetFunctionBreakpoints replaces the function breakpoints (none clears
// them). An adapter without them answers each unverified, saying so.
func (s *Session) SetFunctionBreakpoints(ctx context.Context, bps []Breakpoint) ([]Breakpoint, error) {
	s.req.Lock()
	defer s.req.Unlock()
	if why := s.Ended(); why != "" {
		return nil, fmt.Errorf("the session has ended: %s", why)
	}
	return s.setFunctionBreakpoints(ctx, bps)
}

// SetBreakpoints replaces the breakpoints of one file (none clears them).
func (s *Session) SetBreakpoints(ctx context.Context, path string, bps []Breakpoint) ([]Breakpoint, error) {
	s.req.Lock()
	defer s.req.Unlock()
	if why := s.Ended(); why != "" {
		return nil, fmt.Errorf("the session has ended: %s", why)
	}
	return s.setBreakpoints(ctx, path, bps)
}

// Frame is one frame of the stopped thread's stack.
type Frame struct {
	ID       int    `json:"id"`
	Function string `json:"function"`
	Path     string `json:"path,omitempty"`
	Line     int    `json:"line"`
}

// Stack is the stopped thread's stack, innermost first, at most levels.
func (s *Session) Stack(ctx context.Context, levels int) ([]Frame, error) {
	s.req.Lock()
	defer s.req.Unlock()
	thread, err := s.thread()
	if err != nil {
		return nil, err
	}
	fs, err := s.frames(ctx, thread, levels)
	if err != nil {
		return nil, err
	}
	out := make([]Frame, 0, len(fs))
	for _, f := range fs {
		fr := Frame{ID: f.Id, Function: f.Name, Line: f.Line}
		if f.Source != nil {
			fr.Path = f.Source.Path
		}
		out = append(out, fr)
	}
	return out, nil
}

// Var is a variable with its value and, for a structured value, its
// members to a bounded depth and width.
type Var struct {
	Name    string `json:"name"`
	Type    string `json:"type,omitempty"`
	Value   string `json:"value"`
	Members []Var  `json:"members,omitempty"`
	More    int    `json:"more,omitempty"` // members not listed
}

// Scope is one scope of a frame (locals, arguments, globals) and its
// variables.
type Scope struct {
	Name string `json:"name"`
	Vars []Var  `json:"vars"`
	More int    `json:"more,omitempty"`
}

// Bounds of an expansion.
type Bounds struct {
	Depth, Width int
}

// Scopes lists the variables of frame (the top frame when 0 is not a
// valid id: use Stack's ids), each expanded within b. Globals are left out
// unless asked: they are many and rarely the question.
func (s *Session) Scopes(ctx context.Context, frame int, b Bounds, globals bool) ([]Scope, error) {
	s.req.Lock()
	defer s.req.Unlock()
	frame, err := s.frameOrTop(ctx, frame)
	if err != nil {
		return nil, err
	}
	raw, err := s.c.call(ctx, "scopes", map[string]any{"frameId": frame})
	if err != nil {
		return nil, err
	}
	var body dap.ScopesResponseBody
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, err
	}
	var out []Scope
	for _, sc := range body.Scopes {
		if sc.Expensive && !globals {
			continue
		}
		vars, more, err := s.expand(ctx, sc.VariablesReference, b, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, Scope{Name: sc.Name, Vars: vars, More: more})
	}
	return out, nil
}

// expand lists the variables under ref, members to b.Depth levels, at most
// b.Width at each level.
func (s *Session) expand(ctx context.Context, ref int, b Bounds, depth int) ([]Var, int, error) {
	raw, err := s.c.call(ctx, "variables", map[string]any{"variablesReference": ref, "start": 0, "count": b.Width + 1})
	if err != nil {
		return nil, 0, err
	}
	var body dap.VariablesResponseBody
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, 0, err
	}
	more := 0
	vs := body.Variables
	if len(vs) > b.Width {
		more = len(vs) - b.Width
		vs = vs[:b.Width]
	}
	out := make([]Var, 0, len(vs))
	for _, v := range vs {
		x := Var{Name: v.Name, Type: v.Type, Value: v.Value}
		if v.VariablesReference > 0 && depth+1 < b.Depth {
			x.Members, x.More, err = s.expand(ctx, v.VariablesReference, b, depth+1)
			if err != nil {
				return nil, 0, err
			}
		}
		out = append(out, x)
	}
	return out, more, nil
}

// Evaluate evaluates expr in frame (0: the top frame), its result expanded
// within b; an expression the adapter cannot evaluate is its error.
func (s *Session) Evaluate(ctx context.Context, expr string, frame int, b Bounds) (*Var, error) {
	s.req.Lock()
	defer s.req.Unlock()
	frame, err := s.frameOrTop(ctx, frame)
	if err != nil {
		return nil, err
	}
	raw, err := s.c.call(ctx, "evaluate", map[string]any{"expression": expr, "frameId": frame, "context": "repl"})
	if err != nil {
		return nil, err
	}
	var body dap.EvaluateResponseBody
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, err
	}
	v := &Var{Name: expr, Type: body.Type, Value: body.Result}
	if body.VariablesReference > 0 && b.Depth > 1 {
		v.Members, v.More, err = s.expand(ctx, body.VariablesReference, b, 1)
		if err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Breakpoints are the session's breakpoints, by file and line, then its
// function breakpoints in the order set.
func (s *Session) Breakpoints() []Breakpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Breakpoint
	for _, bps := range s.bps {
		out = append(out, bps...)
	}
	sortBreakpoints(out)
	return append(out, s.funcs...)
}

func sortBreakpoints(bps []Breakpoint) {
	for i := 1; i < len(bps); i++ {
		for j := i; j > 0 && (bps[j].Path < bps[j-1].Path || bps[j].Path == bps[j-1].Path && bps[j].Line < bps[j-1].Line); j-- {
			bps[j], bps[j-1] = bps[j-1], bps[j]
		}
	}
}

// frameOrTop is frame, or the stopped thread's innermost frame for 0;
// s.req is held.
func (s *Session) frameOrTop(ctx context.Context, frame int) (int, error) {
	thread, err := s.thread()
	if err != nil || frame != 0 {
		return frame, err
	}
	fs, err := s.frames(ctx, thread, 1)
	if err != nil {
		return 0, fmt.Errorf("no frame to look at: %w", err)
	}
	if len(fs) == 0 {
		return 0, errors.New("no frame to look at: the stopped thread has none")
	}
	return fs[0].Id, nil
}
