package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"cchub/dapsession"
	"cchub/textfmt"
)

// DebugRequest is one op of a run's debug session.
type DebugRequest struct {
	Op          string           // launch, breakpoints, continue, next, step_in, step_out, pause, inspect, evaluate, output or terminate
	Program     string           // launch: the Go package directory or file (default the root), or a Python script
	Test        string           // launch: debug this Go test of the package
	Args        []string         // launch: the program's arguments
	Env         []string         // launch: KEY=VALUE entries added to its environment
	Breakpoints []BreakpointSpec // launch or breakpoints
	Path        string           // breakpoints: a file or a function whose breakpoints to clear
	StopOnEntry bool             // launch: stop before the program's first line
	TTLSeconds  int              // launch: the session's hard time limit (0: the workspace's)
	Language    string           // launch: go (default; .py programs are python)
	Expression  string           // evaluate: the expression
	Frame       int              // inspect or evaluate: the frame, 0 the innermost
	Depth       int              // inspect or evaluate: how deep to expand structured values (0: 2)
}

// BreakpointSpec is one breakpoint as a model asks for it.
type BreakpointSpec struct {
	// At is path:line, or a function (Name, Type.Method, pkg.Func);
	// either may be followed by " if CONDITION".
	At string
	// Text is the line's expected text: a line breakpoint whose line
	// holds other text (compared trimmed, spaces collapsed) is refused,
	// saying where that text is now.
	Text string
	If   string // stop only when this condition holds
	Log  string // a logpoint: print this, {expr} replaced by its value, instead of stopping
}

// debugWait is how long a step waits for the next stop. The session's
// time limit is the workspace's (dapsession.LoadConfig).
const debugWait = 10 * time.Second

// name is what a launch debugs, as a model wrote it.
func name(h *Hub, abs string, in DebugRequest) string {
	rel := h.Root.Rel(abs)
	if rel == "" || rel == "." {
		rel = "the root package"
	}
	return rel
}

// Debug runs one op of r's debug session.
func (h *Hub) Debug(ctx context.Context, r *Run, in DebugRequest) (*DebugResult, error) {
	op := strings.TrimSpace(in.Op)
	if op == "launch" {
		return h.launch(ctx, r, in)
	}
	r.mu.Lock()
	s, gone := r.debug, r.debugGone
	if s != nil && s.Ended() != "" && s.Ended() != "the program ended" {
		r.debug, r.debugGone, gone = nil, "", describeEnd(s)
		s = nil
	}
	r.mu.Unlock()
	if s == nil {
		if gone != "" {
			r.mu.Lock()
			r.debugGone = ""
			r.mu.Unlock()
			return nil, fmt.Errorf("%s; launch again to go on", gone)
		}
		return nil, errors.New("no debug session in this conversation: launch one first (op launch, program, breakpoints)")
	}
	res := &DebugResult{Op: op, Session: s.What}
	switch op {
	case "terminate":
		r.endDebug("it was terminated")
		r.mu.Lock()
		r.debugGone = ""
		r.mu.Unlock()
		return res, nil
	case "continue", "next", "step_in", "step_out", "pause":
		st, err := s.Step(ctx, op)
		if err != nil {
			return nil, err
		}
		res.Stop = h.stop(s, st)
		return res, nil
	case "breakpoints":
		return h.breakpoints(ctx, s, in, res)
	case "inspect":
		return h.inspect(ctx, s, in, res)
	case "evaluate":
		if in.Expression == "" {
			return nil, errors.New("evaluate needs expression")
		}
		frame, err := h.frameID(ctx, s, in.Frame)
		if err != nil {
			return nil, err
		}
		v, err := s.Evaluate(ctx, in.Expression, frame, bounds(in))
		if err != nil {
			return nil, fmt.Errorf("evaluate %s: %w", in.Expression, err)
		}
		res.Value = v
		return res, nil
	case "output":
		res.Output = s.Output()
		return res, nil
	}
	return nil, fmt.Errorf("unknown op %q: one of launch, breakpoints, continue, next, step_in, step_out, pause, inspect, evaluate, output, terminate", op)
}

// launch starts r's debug session, refusing a second one.
func (h *Hub) launch(ctx context.Context, r *Run, in DebugRequest) (*DebugResult, error) {
	r.mu.Lock()
	live := r.debug
	if live != nil && live.Ended() != "" && live.Ended() != "the program ended" {
		live, r.debug = nil, nil
	}
	r.mu.Unlock()
	if live != nil {
		last := live.Last()
		where := "running"
		switch {
		case last.Ended:
			where = "ended, not yet terminated"
		case last.Path != "":
			where = fmt.Sprintf("stopped at %s:%d", h.Root.Rel(last.Path), last.Line)
		}
		return nil, fmt.Errorf("a debug session is live in this conversation: %s, %s, %v left; terminate it first (op terminate)",
			live.What, where, time.Until(live.Deadline).Round(time.Second))
	}
	cfg, err := dapsession.LoadConfig(h.Root)
	if err != nil {
		return nil, err
	}
	lang := in.Language
	if lang == "" {
		lang = "go"
		if strings.HasSuffix(in.Program, ".py") {
			lang = "python"
		}
	}
	var adapter *dapsession.Adapter
	for _, a := range cfg.Adapters {
		if a.Language == lang {
			adapter = &a
			break
		}
	}
	if adapter == nil {
		return nil, fmt.Errorf("no debug adapter for %q: cchub debugs go, python (debugpy) and c (lldb-dap)", lang)
	}
	var bin string
	if adapter.Language == "python" && adapter.Command == "python3" {
		if bin, err = dapsession.FindPython(); err != nil {
			return nil, err
		}
	} else if bin, err = h.Root.LookTool(adapter.Command); err != nil {
		return nil, fmt.Errorf("%s was not found (looked in PATH and beside cchub; never in the workspace): install it: %s", adapter.Command, adapter.Install)
	}
	program := in.Program
	if program == "" {
		program = "."
	}
	abs, _, err := h.Root.Resolve(program)
	if err != nil {
		return nil, err
	}
	ttl := cfg.TTL
	if in.TTLSeconds > 0 {
		ttl = min(time.Duration(in.TTLSeconds)*time.Second, cfg.MaxTTL)
	}
	bps, refused, err := h.parseBreakpoints(in.Breakpoints)
	if err != nil {
		return nil, err
	}
	if len(refused) > 0 {
		var b strings.Builder
		writeBreakpoints(&b, h.withSource(refused))
		return nil, fmt.Errorf("%snothing was launched: launch again with the breakpoints fixed", b.String())
	}
	env := map[string]string{}
	for _, kv := range in.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("env entry %q is not KEY=VALUE", kv)
		}
		env[k] = v
	}
	s, st, err := dapsession.Launch(ctx, adapter, bin, h.Root.Dir(), dapsession.Options{
		Language: lang, Program: abs, Test: in.Test, Args: in.Args, Env: env,
		Breakpoints: bps, StopOnEntry: in.StopOnEntry, TTL: ttl, Wait: debugWait,
		Name: name(h, abs, in),
	})
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
	res := &DebugResult{Op: "launch", Session: s.What, Adapter: adapter.Name, TTL: ttl,
		Breakpoints: h.shownBreakpoints(s.Breakpoints()), Stop: h.stop(s, st)}
	if cfg.Note != "" && !r.told(cfg.Note) {
		res.Note = cfg.Note
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

// parseBreakpoints reads breakpoints as a model wrote them. A line
// breakpoint whose line does not hold its expected text is refused: it
// comes back in refused, saying where that text is now, and not in bps.
func (h *Hub) parseBreakpoints(specs []BreakpointSpec) (bps []dapsession.Breakpoint, refused []DebugBreakpoint, err error) {
	for _, spec := range specs {
		at, cond, _ := strings.Cut(strings.TrimSpace(spec.At), " if ")
		at = strings.TrimSpace(at)
		if c := strings.TrimSpace(spec.If); c != "" {
			cond = c
		}
		b := dapsession.Breakpoint{Condition: strings.TrimSpace(cond), Log: spec.Log}
		i := strings.LastIndexByte(at, ':')
		line, lerr := strconv.Atoi(strings.TrimSpace(at[i+1:]))
		switch {
		case i > 0 && lerr == nil && line >= 1:
			abs, _, err := h.Root.Resolve(strings.TrimSpace(at[:i]))
			if err != nil {
				return nil, nil, err
			}
			b.Path, b.Line = abs, line
			if why := h.staleLine(abs, line, spec.Text); why != "" {
				refused = append(refused, DebugBreakpoint{Breakpoint: b, Refused: why})
				continue
			}
		case isFunctionName(at):
			if spec.Log != "" {
				return nil, nil, fmt.Errorf("breakpoint %q: a logpoint goes on a line: give at as path:line", at)
			}
			b.Function = at
		default:
			return nil, nil, fmt.Errorf("breakpoint %q: write it as path:line or a function name (Name, Type.Method, pkg.Func), optionally followed by ' if CONDITION' (e.g. main.go:20 if i > 3)", spec.At)
		}
		bps = append(bps, b)
	}
	return bps, refused, nil
}

// isFunctionName says at names a function, not a file without a line:
// one word, dots, a receiver's parentheses and star, C++'s "::", but no
// source file's extension.
func isFunctionName(at string) bool {
	if at == "" || strings.ContainsAny(at, " \t\\") || strings.Contains(at, ":") && !strings.Contains(at, "::") {
		return false
	}
	if c := rune(at[0]); c != '_' && c != '(' && c != '*' && !unicode.IsLetter(c) {
		return false
	}
	switch strings.ToLower(filepath.Ext(at)) {
	case ".go", ".py", ".c", ".h", ".cc", ".cpp", ".hpp", ".rs", ".js", ".ts", ".java", ".rb":
		return false
	}
	return !strings.Contains(at, "/") || strings.Contains(at[strings.LastIndexByte(at, '/'):], ".")
}

// staleLine says why a breakpoint at line of abs is refused, or "" when
// text (if given) is on that line: where the text is now, the nearest
// line holding it, or that the file lacks it.
func (h *Hub) staleLine(abs string, line int, text string) string {
	want := collapse(text)
	if want == "" {
		return ""
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return fmt.Sprintf("%s cannot be read (%v); give an existing file", h.Root.Rel(abs), err)
	}
	lines := strings.Split(string(data), "\n")
	if line <= len(lines) && holds(lines[line-1], want) {
		return ""
	}
	rel := h.Root.Rel(abs)
	what := fmt.Sprintf("%s has %d lines", rel, strings.Count(strings.TrimSuffix(string(data), "\n"), "\n")+1)
	if line <= len(lines) {
		what = fmt.Sprintf("line %d is %s", line, clipEcho(lines[line-1]))
	}
	best := 0
	for n := range lines {
		if holds(lines[n], want) && (best == 0 || abs64(n+1-line) < abs64(best-line)) {
			best = n + 1
		}
	}
	if best == 0 {
		return fmt.Sprintf("%s; the expected text is not in %s: read it (read path=%s) and give the line again", what, rel, rel)
	}
	return fmt.Sprintf("%s; the expected text is at %s:%d now; use %s:%d", what, rel, best, rel, best)
}

// holds says a line holds the expected text: the same, whitespace aside,
// or, for a text long enough not to be anywhere, a part of it.
func holds(line, want string) bool {
	got := collapse(line)
	return got == want || len(want) >= 8 && strings.Contains(got, want)
}

// collapse is s trimmed, its runs of white space made one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func abs64(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// clipEcho is a line's text as answers quote it: trimmed, at most 100
// characters.
func clipEcho(s string) string { return textfmt.Clip(strings.TrimSpace(s), 100) }

func (h *Hub) breakpoints(ctx context.Context, s *dapsession.Session, in DebugRequest, res *DebugResult) (*DebugResult, error) {
	bps, refused, err := h.parseBreakpoints(in.Breakpoints)
	if err != nil {
		return nil, err
	}
	byFile := map[string][]dapsession.Breakpoint{}
	var order []string
	var fbps []dapsession.Breakpoint
	for _, b := range bps {
		if b.Function != "" {
			fbps = append(fbps, b)
			continue
		}
		if _, ok := byFile[b.Path]; !ok {
			order = append(order, b.Path)
		}
		byFile[b.Path] = append(byFile[b.Path], b)
	}
	// A refused breakpoint changes nothing: one the session has at its
	// place stays; a file all of whose breakpoints were refused is left
	// as it is.
	for _, r := range refused {
		if _, ok := byFile[r.Path]; !ok {
			continue
		}
		for _, old := range s.Breakpoints() {
			if old.Function == "" && old.Path == r.Path && old.Line == r.Line {
				byFile[r.Path] = append(byFile[r.Path], old)
			}
		}
	}
	clearFunc := false
	if in.Path != "" {
		abs, _, err := h.Root.Resolve(in.Path)
		if _, serr := os.Stat(abs); (err != nil || serr != nil) && isFunctionName(strings.TrimSpace(in.Path)) {
			// A function's breakpoint to clear: the others stay, unless
			// breakpoints gives functions, which replace them all.
			clearFunc = true
			if len(fbps) == 0 {
				found := false
				for _, old := range s.Breakpoints() {
					if old.Function == "" {
						continue
					}
					if old.Function == strings.TrimSpace(in.Path) {
						found = true
					} else {
						fbps = append(fbps, old)
					}
				}
				if !found {
					return nil, fmt.Errorf("no breakpoint on function %s to clear: name it as the answer that set it does", in.Path)
				}
				res.Cleared = append(res.Cleared, strings.TrimSpace(in.Path))
			}
		} else if err != nil {
			return nil, err
		} else if _, ok := byFile[abs]; !ok {
			byFile[abs] = nil
			order = append(order, abs)
		}
	}
	if len(order) == 0 && len(fbps) == 0 && len(refused) == 0 && !clearFunc {
		return nil, errors.New("breakpoints needs breakpoints (path:line or a function ...) or a path to clear (a file or a function)")
	}
	for _, file := range order {
		got, err := s.SetBreakpoints(ctx, file, byFile[file])
		if err != nil {
			return nil, err
		}
		if len(got) == 0 {
			res.Cleared = append(res.Cleared, h.Root.Rel(file))
		}
	}
	if len(fbps) > 0 || clearFunc {
		if _, err := s.SetFunctionBreakpoints(ctx, fbps); err != nil {
			return nil, err
		}
	}
	res.Breakpoints = append(h.withSource(refused), h.shownBreakpoints(s.Breakpoints())...)
	return res, nil
}

// shownBreakpoints is the session's breakpoints as answers write them.
func (h *Hub) shownBreakpoints(bps []dapsession.Breakpoint) []DebugBreakpoint {
	out := make([]DebugBreakpoint, len(bps))
	for i, b := range bps {
		out[i].Breakpoint = b
	}
	return h.withSource(out)
}

// withSource is bps with paths relative to the root and the text of the
// line each is at (the adapter's line when it moved one).
func (h *Hub) withSource(bps []DebugBreakpoint) []DebugBreakpoint {
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
			if data, err := os.ReadFile(b.Path); err == nil {
				lines = strings.Split(string(data), "\n")
			}
			files[b.Path] = lines
		}
		if line <= len(lines) {
			b.Source = clipEcho(lines[line-1])
		}
		b.Path = h.shown(b.Path)
	}
	return bps
}

// stop is where the debuggee is, with the source around it, or, when it
// ended, what it printed.
func (h *Hub) stop(s *dapsession.Session, st *dapsession.Stop) *DebugStop {
	out := &DebugStop{Stop: *st, Logged: s.Logged()}
	if st.Path != "" {
		out.Path = h.shown(st.Path)
	}
	switch {
	case st.Ended:
		out.Output, out.Logged = s.Output(), "" // the output has what they printed
		return out
	case st.Running:
		return out
	}
	if data, err := os.ReadFile(st.Path); err == nil {
		lines := strings.Split(string(data), "\n")
		for n := max(1, st.Line-3); n <= min(len(lines), st.Line+3); n++ {
			out.Source = append(out.Source, SourceLine{Line: n, Text: lines[n-1]})
		}
	}
	return out
}

func bounds(in DebugRequest) dapsession.Bounds {
	d := in.Depth
	if d <= 0 {
		d = 2
	}
	return dapsession.Bounds{Depth: min(d, 5), Width: 30}
}

// frameID is the adapter's id of the frame at index i of the stack.
func (h *Hub) frameID(ctx context.Context, s *dapsession.Session, i int) (int, error) {
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
func (h *Hub) inspect(ctx context.Context, s *dapsession.Session, in DebugRequest, res *DebugResult) (*DebugResult, error) {
	frames, err := s.Stack(ctx, 30)
	if err != nil {
		return nil, err
	}
	if in.Frame >= len(frames) {
		return nil, fmt.Errorf("frame %d: the stack has %d frames", in.Frame, len(frames))
	}
	scopes, err := s.Scopes(ctx, frames[in.Frame].ID, bounds(in), false)
	if err != nil {
		return nil, err
	}
	for i := range frames {
		frames[i].Path = h.shown(frames[i].Path)
	}
	res.Frames, res.Frame, res.Scopes = frames, in.Frame, scopes
	return res, nil
}

// shown is a path as results write it: relative to the root, or absolute
// when it is outside (the Go runtime's sources).
func (h *Hub) shown(abs string) string {
	if abs == "" {
		return "?"
	}
	rel := h.Root.Rel(abs)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return abs
	}
	return rel
}
