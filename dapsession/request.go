package dapsession

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cchub/lang"
	"cchub/workspace"
)

// Request is one op of a debug session, as the debug tool takes it.
type Request struct {
	Op          string           // launch, breakpoints, continue, next, step_in, step_out, pause, inspect, evaluate, output or terminate
	Program     string           // launch: the Go package directory or file (default the root), or a Python script
	Test        string           // launch: debug this Go test of the package
	Args        []string         // launch: the program's arguments
	Env         []string         // launch: KEY=VALUE entries added to its environment
	Breakpoints []BreakpointSpec // launch or breakpoints
	Path        string           // breakpoints: a file or a function whose breakpoints to clear
	StopOnEntry bool             // launch: stop before the program's first line
	TTLSeconds  int              // launch: the session's hard time limit (0: the workspace's)
	Language    string           // launch: go (default; Python files are python)
	Expression  string           // evaluate: the expression
	Frame       int              // inspect or evaluate: the frame, 0 the innermost
	Depth       int              // inspect or evaluate: how deep to expand structured values (0: 2)
}

// answerWait is how long a launch or a step waits for the next stop
// before it answers that the program is still running.
const answerWait = 10 * time.Second

// Start launches what req asks for (op launch) in the workspace root: the
// adapter the workspace's configuration has for the program's language,
// its breakpoints checked first (a line that does not hold its expected
// text refuses the whole launch, saying where that text is now), within
// the workspace's time limits. The Result's Note says what of an
// untrusted configuration was skipped.
func Start(ctx context.Context, root *workspace.Root, req Request) (*Session, *Result, error) {
	cfg, err := LoadConfig(root)
	if err != nil {
		return nil, nil, err
	}
	adapter, bin, err := cfg.adapterFor(root, languageOf(req))
	if err != nil {
		return nil, nil, err
	}
	program := req.Program
	if program == "" {
		program = "."
	}
	abs, rel, err := root.Resolve(program)
	if err != nil {
		return nil, nil, err
	}
	ttl := cfg.TTL
	if req.TTLSeconds > 0 {
		ttl = min(time.Duration(req.TTLSeconds)*time.Second, cfg.MaxTTL)
	}
	bps, refused, err := parseBreakpoints(root, req.Breakpoints)
	if err != nil {
		return nil, nil, err
	}
	if len(refused) > 0 {
		var b strings.Builder
		writeBreakpoints(&b, showBreakpoints(root, refused))
		return nil, nil, fmt.Errorf("%snothing was launched: launch again with the breakpoints fixed", b.String())
	}
	env, err := parseEnv(req.Env)
	if err != nil {
		return nil, nil, err
	}
	if rel == "." {
		rel = "the root package"
	}
	s, st, err := Launch(ctx, adapter, bin, root.Dir(), Options{
		Language: adapter.Language, Program: abs, Test: req.Test, Args: req.Args, Env: env,
		Breakpoints: bps, StopOnEntry: req.StopOnEntry, TTL: ttl, Wait: answerWait, Name: rel,
	})
	if err != nil {
		return nil, nil, err
	}
	return s, &Result{Op: "launch", Session: s.What, Adapter: adapter.Name, TTL: ttl, Note: cfg.Note,
		Breakpoints: showBreakpoints(root, wrap(s.Breakpoints())), Stop: s.showStop(root, st)}, nil
}

// languageOf is the language req debugs: the one it names (an alias
// such as py taken), else Python for a Python file, else Go.
func languageOf(req Request) string {
	if req.Language != "" {
		if l := lang.ByName(req.Language); l != nil {
			return l.Name
		}
		return req.Language
	}
	if lang.NameOf(req.Program) == lang.Python {
		return lang.Python
	}
	return lang.Go
}

// adapterFor is c's adapter for language and its program, found as a
// person's machine has it: debugpy's python3 by FindPython, any other
// on PATH or beside cchub, never in the workspace.
func (c Config) adapterFor(root *workspace.Root, language string) (*Adapter, string, error) {
	var adapter *Adapter
	for i := range c.Adapters {
		if c.Adapters[i].Language == language {
			adapter = &c.Adapters[i]
			break
		}
	}
	if adapter == nil {
		return nil, "", fmt.Errorf("no debug adapter for %q: cchub debugs go, python (debugpy) and c (lldb-dap)", language)
	}
	if adapter.Language == lang.Python && adapter.Command == "python3" {
		bin, err := FindPython()
		return adapter, bin, err
	}
	bin, err := root.LookTool(adapter.Command)
	if err != nil {
		return nil, "", fmt.Errorf("%s was not found (looked in PATH and beside cchub; never in the workspace): install it: %s", adapter.Command, adapter.Install)
	}
	return adapter, bin, nil
}

// parseEnv reads KEY=VALUE entries.
func parseEnv(entries []string) (map[string]string, error) {
	env := map[string]string{}
	for _, kv := range entries {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("env entry %q is not KEY=VALUE", kv)
		}
		env[k] = v
	}
	return env, nil
}

// Do runs one op of a live session, any but launch and terminate (which
// start and end it: Start, End).
func (s *Session) Do(ctx context.Context, root *workspace.Root, req Request) (*Result, error) {
	op := strings.TrimSpace(req.Op)
	res := &Result{Op: op, Session: s.What}
	switch op {
	case "continue", "next", "step_in", "step_out", "pause":
		st, err := s.Step(ctx, op)
		if err != nil {
			return nil, err
		}
		res.Stop = s.showStop(root, st)
		return res, nil
	case "breakpoints":
		return s.changeBreakpoints(ctx, root, req, res)
	case "inspect":
		return s.inspect(ctx, root, req, res)
	case "evaluate":
		return s.evaluate(ctx, req, res)
	case "output":
		res.Output = s.Output()
		return res, nil
	}
	return nil, fmt.Errorf("unknown op %q: one of launch, breakpoints, continue, next, step_in, step_out, pause, inspect, evaluate, output, terminate", op)
}
