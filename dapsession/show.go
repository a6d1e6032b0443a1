package dapsession

import (
	"context"
	"fmt"
	"strings"

	"cchub/textfmt"
	"cchub/workspace"
)

// What an answer shows of the session: paths relative to the workspace
// root, and the source around a place read through the root, so a file
// outside it (the Go runtime's, a module's, a symlink that leads out) is
// named but never read.

// shown is a path as results write it: relative to the root, or absolute
// when it is outside (the Go runtime's sources).
func shown(root *workspace.Root, abs string) string {
	if abs == "" {
		return "?"
	}
	rel := root.Rel(abs)
	if outside(rel) {
		return abs
	}
	return rel
}

func outside(rel string) bool { return rel == ".." || strings.HasPrefix(rel, "../") }

// sourceLines are the lines of the file at abs, read through root; nil
// when it is outside the root or cannot be read as text.
func sourceLines(root *workspace.Root, abs string) []string {
	rel := root.Rel(abs)
	if abs == "" || outside(rel) {
		return nil
	}
	data, err := root.ReadText(rel)
	if err != nil {
		return nil
	}
	return textfmt.SplitLines(string(data))
}

// wrap is bps as answers show them, before showBreakpoints fills them in.
func wrap(bps []Breakpoint) []ShownBreakpoint {
	out := make([]ShownBreakpoint, len(bps))
	for i, b := range bps {
		out[i].Breakpoint = b
	}
	return out
}

// showBreakpoints is bps with paths as shown and the text of the line
// each is at (the adapter's line when it moved one).
func showBreakpoints(root *workspace.Root, bps []ShownBreakpoint) []ShownBreakpoint {
	files := map[string][]string{}
	for i := range bps {
		b := &bps[i]
		line := b.Line
		if b.Actual != 0 {
			line = b.Actual
		}
		if b.Path == "" || line <= 0 {
			continue
		}
		lines, ok := files[b.Path]
		if !ok {
			lines = sourceLines(root, b.Path)
			files[b.Path] = lines
		}
		if line <= len(lines) {
			b.Source = clipEcho(lines[line-1])
		}
		b.Path = shown(root, b.Path)
	}
	return bps
}

// showStop is where the debuggee is, with the source around it, or, when
// it ended, what it printed.
func (s *Session) showStop(root *workspace.Root, st *Stop) *ShownStop {
	out := &ShownStop{Stop: *st, Logged: s.Logged()}
	if st.Path != "" {
		out.Path = shown(root, st.Path)
	}
	switch {
	case st.Ended:
		out.Output, out.Logged = s.Output(), "" // the output has what they printed
		return out
	case st.Running:
		return out
	}
	lines := sourceLines(root, st.Path)
	for n := max(1, st.Line-3); n <= min(len(lines), st.Line+3); n++ {
		out.Source = append(out.Source, SourceLine{Line: n, Text: lines[n-1]})
	}
	return out
}

// Status says where a live session's debuggee was last seen: running,
// ended, or stopped at a place (relative to root).
func (s *Session) Status(root *workspace.Root) string {
	last := s.Last()
	switch {
	case last.Ended:
		return "ended, not yet terminated"
	case last.Path != "":
		return fmt.Sprintf("stopped at %s:%d", root.Rel(last.Path), last.Line)
	}
	return "running"
}

// boundsFor is how far a value is expanded at depth (0: 2, at most 5).
func boundsFor(depth int) Bounds {
	if depth <= 0 {
		depth = 2
	}
	return Bounds{Depth: min(depth, 5), Width: 30}
}

// frameID is the adapter's id of the frame at index i of the stack.
func (s *Session) frameID(ctx context.Context, i int) (int, error) {
	frames, err := s.Stack(ctx, i+1)
	if err != nil {
		return 0, err
	}
	if i >= len(frames) {
		return 0, fmt.Errorf("frame %d: the stack has %d frames", i, len(frames))
	}
	return frames[i].ID, nil
}

// inspect lists the stack and the variables of one frame.
func (s *Session) inspect(ctx context.Context, root *workspace.Root, req Request, res *Result) (*Result, error) {
	frames, err := s.Stack(ctx, 30)
	if err != nil {
		return nil, err
	}
	if req.Frame >= len(frames) {
		return nil, fmt.Errorf("frame %d: the stack has %d frames", req.Frame, len(frames))
	}
	scopes, err := s.Scopes(ctx, frames[req.Frame].ID, boundsFor(req.Depth), false)
	if err != nil {
		return nil, err
	}
	for i := range frames {
		frames[i].Path = shown(root, frames[i].Path)
	}
	res.Frames, res.Frame, res.Scopes = frames, req.Frame, scopes
	return res, nil
}

// evaluate evaluates req's expression in its frame.
func (s *Session) evaluate(ctx context.Context, req Request, res *Result) (*Result, error) {
	if req.Expression == "" {
		return nil, fmt.Errorf("evaluate needs expression")
	}
	frame, err := s.frameID(ctx, req.Frame)
	if err != nil {
		return nil, err
	}
	if res.Value, err = s.Evaluate(ctx, req.Expression, frame, boundsFor(req.Depth)); err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", req.Expression, err)
	}
	return res, nil
}
