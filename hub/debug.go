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

	"cchub/dapsession"
)

// DebugIn is one call of the debug tool.
type DebugIn struct {
	Op          string   `json:"op" jsonschema:"launch, breakpoints, continue, next, step_in, step_out, pause, inspect, evaluate, output or terminate"`
	Program     string   `json:"program,omitempty" jsonschema:"launch: the Go package directory or file (default the root), or a Python script, relative to the root"`
	Test        string   `json:"test,omitempty" jsonschema:"launch: debug this Go test of the package (its name, e.g. TestAddTwice)"`
	Args        []string `json:"args,omitempty" jsonschema:"launch: the program's arguments"`
	Env         []string `json:"env,omitempty" jsonschema:"launch: KEY=VALUE entries added to its environment"`
	Breakpoints []string `json:"breakpoints,omitempty" jsonschema:"launch or breakpoints: path:line, optionally followed by ' if CONDITION'; for breakpoints, each file named gets exactly these"`
	Path        string   `json:"path,omitempty" jsonschema:"breakpoints: a file whose breakpoints to clear, when breakpoints names none of it"`
	StopOnEntry bool     `json:"stop_on_entry,omitempty" jsonschema:"launch: stop before the program's first line"`
	TTLSeconds  int      `json:"ttl_seconds,omitempty" jsonschema:"launch: the session's hard time limit (default 600, at most 3600, unless .cchub.json says otherwise)"`
	Language    string   `json:"language,omitempty" jsonschema:"launch: go (default; .py programs are python)"`
	Expression  string   `json:"expression,omitempty" jsonschema:"evaluate: the expression, in the frame's own scope"`
	Frame       int      `json:"frame,omitempty" jsonschema:"inspect or evaluate: the frame, 0 the innermost (as inspect lists them)"`
	Depth       int      `json:"depth,omitempty" jsonschema:"inspect or evaluate: how deep to expand structured values (default 2)"`
}

// debugWait is how long a step waits for the next stop. The session's
// time limit is the workspace's (dapsession.LoadConfig).
const debugWait = 10 * time.Second

// name is what a launch debugs, as a model wrote it.
func name(h *Hub, abs string, in DebugIn) string {
	rel := h.Root.Rel(abs)
	if rel == "" || rel == "." {
		rel = "the root package"
	}
	return rel
}

// Debug runs one op of r's debug session.
func (h *Hub) Debug(ctx context.Context, r *Run, in DebugIn) (string, error) {
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
			return "", fmt.Errorf("%s; launch again to go on", gone)
		}
		return "", errors.New("no debug session in this conversation: launch one first (op launch, program, breakpoints)")
	}
	switch op {
	case "terminate":
		r.endDebug("it was terminated")
		r.mu.Lock()
		r.debugGone = ""
		r.mu.Unlock()
		return fmt.Sprintf("debug session ended: %s and its adapter were stopped\n", s.What), nil
	case "continue", "next", "step_in", "step_out", "pause":
		st, err := s.Step(ctx, op)
		if err != nil {
			return "", err
		}
		return h.stopText(s, st), nil
	case "breakpoints":
		return h.breakpoints(ctx, s, in)
	case "inspect":
		return h.inspect(ctx, s, in)
	case "evaluate":
		if in.Expression == "" {
			return "", errors.New("evaluate needs expression")
		}
		frame, err := h.frameID(ctx, s, in.Frame)
		if err != nil {
			return "", err
		}
		v, err := s.Evaluate(ctx, in.Expression, frame, bounds(in))
		if err != nil {
			return "", fmt.Errorf("evaluate %s: %w", in.Expression, err)
		}
		var b strings.Builder
		writeVar(&b, *v, "")
		return b.String(), nil
	case "output":
		out := s.Output()
		if out == "" {
			return "no output yet\n", nil
		}
		return out, nil
	}
	return "", fmt.Errorf("unknown op %q: one of launch, breakpoints, continue, next, step_in, step_out, pause, inspect, evaluate, output, terminate", op)
}

// launch starts r's debug session, refusing a second one.
func (h *Hub) launch(ctx context.Context, r *Run, in DebugIn) (string, error) {
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
		return "", fmt.Errorf("a debug session is live in this conversation: %s, %s, %v left; terminate it first (op terminate)",
			live.What, where, time.Until(live.Deadline).Round(time.Second))
	}
	cfg, err := dapsession.LoadConfig(h.Root)
	if err != nil {
		return "", err
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
		return "", fmt.Errorf("no debug adapter for %q: cchub debugs go, python (debugpy) and c (lldb-dap)", lang)
	}
	var bin string
	if adapter.Language == "python" && adapter.Command == "python3" {
		if bin, err = dapsession.FindPython(); err != nil {
			return "", err
		}
	} else if bin, err = h.Root.LookTool(adapter.Command); err != nil {
		return "", fmt.Errorf("%s was not found (looked in PATH, beside cchub and in .tools/bin): install it: %s", adapter.Command, adapter.Install)
	}
	program := in.Program
	if program == "" {
		program = "."
	}
	abs, _, err := h.Root.Resolve(program)
	if err != nil {
		return "", err
	}
	ttl := cfg.TTL
	if in.TTLSeconds > 0 {
		ttl = min(time.Duration(in.TTLSeconds)*time.Second, cfg.MaxTTL)
	}
	bps, err := h.parseBreakpoints(in.Breakpoints)
	if err != nil {
		return "", err
	}
	env := map[string]string{}
	for _, kv := range in.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return "", fmt.Errorf("env entry %q is not KEY=VALUE", kv)
		}
		env[k] = v
	}
	s, st, err := dapsession.Launch(ctx, adapter, bin, h.Root.Dir(), dapsession.Options{
		Language: lang, Program: abs, Test: in.Test, Args: in.Args, Env: env,
		Breakpoints: bps, StopOnEntry: in.StopOnEntry, TTL: ttl, Wait: debugWait,
		Name: name(h, abs, in),
	})
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	if r.debug != nil { // a concurrent launch won
		r.mu.Unlock()
		s.End("a second launch raced it")
		return "", errors.New("a debug session was launched meanwhile in this conversation; terminate it first")
	}
	r.debug = s
	r.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "debugging %s with %s (ends by itself in %v)\n", s.What, adapter.Name, ttl)
	b.WriteString(bpText(h, s.Breakpoints()))
	b.WriteString(h.stopText(s, st))
	return b.String(), nil
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

// parseBreakpoints reads "path:line" and "path:line if COND".
func (h *Hub) parseBreakpoints(specs []string) ([]dapsession.Breakpoint, error) {
	var out []dapsession.Breakpoint
	for _, spec := range specs {
		place, cond, _ := strings.Cut(spec, " if ")
		i := strings.LastIndexByte(place, ':')
		line, err := strconv.Atoi(strings.TrimSpace(place[i+1:]))
		if i < 0 || err != nil || line < 1 {
			return nil, fmt.Errorf("breakpoint %q: write it as path:line, optionally followed by ' if CONDITION' (e.g. main.go:20 if i > 3)", spec)
		}
		abs, _, err := h.Root.Resolve(strings.TrimSpace(place[:i]))
		if err != nil {
			return nil, err
		}
		out = append(out, dapsession.Breakpoint{Path: abs, Line: line, Condition: strings.TrimSpace(cond)})
	}
	return out, nil
}

func (h *Hub) breakpoints(ctx context.Context, s *dapsession.Session, in DebugIn) (string, error) {
	bps, err := h.parseBreakpoints(in.Breakpoints)
	if err != nil {
		return "", err
	}
	byFile := map[string][]dapsession.Breakpoint{}
	var order []string
	for _, b := range bps {
		if _, ok := byFile[b.Path]; !ok {
			order = append(order, b.Path)
		}
		byFile[b.Path] = append(byFile[b.Path], b)
	}
	if in.Path != "" {
		abs, _, err := h.Root.Resolve(in.Path)
		if err != nil {
			return "", err
		}
		if _, ok := byFile[abs]; !ok {
			byFile[abs] = nil
			order = append(order, abs)
		}
	}
	if len(order) == 0 {
		return "", errors.New("breakpoints needs breakpoints (path:line ...) or a path to clear")
	}
	var b strings.Builder
	for _, file := range order {
		got, err := s.SetBreakpoints(ctx, file, byFile[file])
		if err != nil {
			return "", err
		}
		if len(got) == 0 {
			fmt.Fprintf(&b, "breakpoints of %s cleared\n", h.Root.Rel(file))
		}
	}
	b.WriteString(bpText(h, s.Breakpoints()))
	return b.String(), nil
}

// bpText lists breakpoints as the adapter took them.
func bpText(h *Hub, bps []dapsession.Breakpoint) string {
	var b strings.Builder
	for _, bp := range bps {
		place := fmt.Sprintf("%s:%d", h.Root.Rel(bp.Path), bp.Line)
		cond := ""
		if bp.Condition != "" {
			cond = " if " + bp.Condition
		}
		switch {
		case !bp.Verified:
			msg := bp.Message
			if msg == "" {
				msg = "no code there"
			}
			fmt.Fprintf(&b, "breakpoint %s%s rejected: %s\n", place, cond, msg)
		case bp.Actual != 0 && bp.Actual != bp.Line:
			fmt.Fprintf(&b, "breakpoint %s%s moved to line %d (the nearest with code)\n", place, cond, bp.Actual)
		default:
			fmt.Fprintf(&b, "breakpoint %s%s set\n", place, cond)
		}
	}
	return b.String()
}

// stopText says where the debuggee is, with the source around it.
func (h *Hub) stopText(s *dapsession.Session, st *dapsession.Stop) string {
	var b strings.Builder
	switch {
	case st.Ended:
		code := "unknown"
		if st.ExitCode != nil {
			code = strconv.Itoa(*st.ExitCode)
		}
		fmt.Fprintf(&b, "the program ended (exit code %s); its output:\n", code)
		out := s.Output()
		if len(out) > 4000 {
			out = "…" + out[len(out)-4000:]
		}
		b.WriteString(out)
		if !strings.HasSuffix(out, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("terminate the session, or launch again after terminating it\n")
		return b.String()
	case st.Running:
		return fmt.Sprintf("still running after %v: pause to see where it is, or wait with continue\n", debugWait)
	}
	fmt.Fprintf(&b, "stopped (%s) at %s:%d in %s\n", st.Reason, h.shown(st.Path), st.Line, st.Function)
	if st.Text != "" {
		fmt.Fprintf(&b, "%s\n", st.Text)
	}
	if data, err := os.ReadFile(st.Path); err == nil {
		lines := strings.Split(string(data), "\n")
		for n := max(1, st.Line-3); n <= min(len(lines), st.Line+3); n++ {
			mark := " "
			if n == st.Line {
				mark = ">"
			}
			fmt.Fprintf(&b, "%s%d\t%s\n", mark, n, lines[n-1])
		}
	}
	return b.String()
}

func bounds(in DebugIn) dapsession.Bounds {
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
func (h *Hub) inspect(ctx context.Context, s *dapsession.Session, in DebugIn) (string, error) {
	frames, err := s.Stack(ctx, 30)
	if err != nil {
		return "", err
	}
	if in.Frame >= len(frames) {
		return "", fmt.Errorf("frame %d: the stack has %d frames", in.Frame, len(frames))
	}
	var b strings.Builder
	b.WriteString("stack:\n")
	for i, f := range frames {
		mark := " "
		if i == in.Frame {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s%d %s %s:%d\n", mark, i, f.Function, h.shown(f.Path), f.Line)
	}
	scopes, err := s.Scopes(ctx, frames[in.Frame].ID, bounds(in), false)
	if err != nil {
		return "", err
	}
	for _, sc := range scopes {
		fmt.Fprintf(&b, "%s:\n", strings.ToLower(sc.Name))
		for _, v := range sc.Vars {
			writeVar(&b, v, "  ")
		}
		if sc.More > 0 {
			fmt.Fprintf(&b, "  (and %d more)\n", sc.More)
		}
	}
	return b.String(), nil
}

// writeVar writes a variable and its members, indented.
func writeVar(b *strings.Builder, v dapsession.Var, indent string) {
	value := v.Value
	if len(value) > 200 {
		value = value[:197] + "..."
	}
	typ := ""
	if v.Type != "" {
		typ = " " + v.Type
	}
	fmt.Fprintf(b, "%s%s%s = %s\n", indent, v.Name, typ, value)
	for _, m := range v.Members {
		writeVar(b, m, indent+"  ")
	}
	if v.More > 0 {
		fmt.Fprintf(b, "%s  (and %d more)\n", indent, v.More)
	}
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
