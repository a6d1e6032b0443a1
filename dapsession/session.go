package dapsession

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/go-dap"

	"cchub/lang"
	"cchub/proc"
)

// Options of a launch.
type Options struct {
	Language    string            // go (default) or python, c
	Program     string            // absolute: a Go package directory or file, a Python script, a binary
	Test        string            // Go: debug this test of Program's package (go test -run ^Test$)
	Args        []string          // the program's arguments
	Cwd         string            // absolute; default the workspace root
	Env         map[string]string // added to the environment
	Breakpoints []Breakpoint      // set before it runs
	StopOnEntry bool
	TTL         time.Duration // the session's hard time limit
	Wait        time.Duration // how long a step, or a started launch, waits for a stop
	BuildWait   time.Duration // how long a launch may take to build and start the program
	Name        string        // what it debugs, for messages (default Program)
}

// Breakpoint is a line of a file (absolute path), or a function
// (Function, where the adapter resolves Path and Line), with an optional
// condition; Log makes it a logpoint, which prints Log ({expr} replaced
// by its value) instead of stopping.
type Breakpoint struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Function  string `json:"function,omitempty"`
	Condition string `json:"condition,omitempty"`
	Log       string `json:"log,omitempty"`
	// Set by the adapter: whether it took the breakpoint, at which line,
	// and why not.
	Verified bool   `json:"verified"`
	Actual   int    `json:"actual_line,omitempty"`
	Message  string `json:"message,omitempty"`
}

// Stop is where the debuggee is after a launch or a step: paused (Reason
// breakpoint, step, exception, entry, pause), still running when the wait
// ended, or ended (Ended, with its exit code when known).
type Stop struct {
	Reason   string `json:"reason,omitempty"`
	Text     string `json:"text,omitempty"` // an exception's message
	Path     string `json:"path,omitempty"` // absolute
	Line     int    `json:"line,omitempty"`
	Function string `json:"function,omitempty"`
	Running  bool   `json:"running,omitempty"`
	Ended    bool   `json:"ended,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
}

// Session is one debug session: an adapter, its debuggee, and what they
// said. Its methods are safe for concurrent use, one request at a time.
type Session struct {
	Adapter  *Adapter
	What     string    // what it debugs, in words
	Started  time.Time // when it was launched
	Deadline time.Time // when its time limit ends it

	proc    *started
	built   string // the binary built for the session, to remove
	c       *client
	opts    Options
	req     sync.Mutex // one request at a time
	timer   *time.Timer
	output  *proc.Tail
	console *proc.Tail // the adapter\'s own output events

	mu       sync.Mutex
	wake     chan struct{}
	inited   bool
	stopped  *dap.StoppedEventBody
	running  bool
	ended    string // why the session ended, once it has
	exitCode *int
	pid      int // the debuggee's, when the adapter says
	last     Stop
	bps      map[string][]Breakpoint
	funcs    []Breakpoint     // the function breakpoints
	caps     dap.Capabilities // what the adapter said it supports
	logged   []byte           // what logpoints printed since Logged was last called
}

// maxLogged is how much of what logpoints printed between two stops is
// kept: the end.
const maxLogged = 2048

// Logged is what logpoints printed since it was last called, its last
// 2 KB (the whole is in Output).
func (s *Session) Logged() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := string(s.logged)
	s.logged = nil
	return out
}

// Launch starts the adapter for o.Language in dir (the workspace root),
// launches the program with its breakpoints set, and waits (o.Wait) for
// the first stop or its end. bin is the adapter's resolved program.
func Launch(ctx context.Context, a *Adapter, bin, dir string, o Options) (*Session, *Stop, error) {
	if o.TTL <= 0 {
		o.TTL = 10 * time.Minute
	}
	if o.Wait <= 0 {
		o.Wait = 10 * time.Second
	}
	if o.BuildWait <= 0 {
		o.BuildWait = 2 * time.Minute
	}
	if o.Cwd == "" {
		o.Cwd = dir
	}
	adapter, err := startAdapter(ctx, a, bin, dir)
	if err != nil {
		return nil, nil, err
	}
	s := &Session{
		Adapter: a, proc: adapter, opts: o, output: proc.NewTail(64 << 10), console: proc.NewTail(16 << 10),
		Started: time.Now(), Deadline: time.Now().Add(o.TTL),
		wake: make(chan struct{}), bps: map[string][]Breakpoint{},
	}
	s.What = describe(o)
	s.c = newClient(adapter.conn, s.event)
	s.timer = time.AfterFunc(o.TTL, func() { s.End(fmt.Sprintf("its time limit (%v) ran out", o.TTL)) })
	stop, err := s.launch(ctx)
	if err != nil {
		s.End("its launch failed")
		return nil, nil, err
	}
	return s, stop, nil
}

func describe(o Options) string {
	what := o.Program
	if o.Name != "" {
		what = o.Name
	}
	if o.Test != "" {
		what = "test " + o.Test + " in " + what
	}
	if len(o.Args) > 0 {
		what += " " + strings.Join(o.Args, " ")
	}
	return what
}

// launch runs DAP's start: initialize, launch, then (once the adapter is
// initialized, which some adapters say only after the launch request)
// breakpoints and configurationDone, then the first stop.
func (s *Session) launch(ctx context.Context) (*Stop, error) {
	s.req.Lock()
	defer s.req.Unlock()
	wctx, cancel := context.WithTimeout(ctx, s.opts.BuildWait)
	defer cancel()
	caps, err := s.c.call(wctx, "initialize", map[string]any{
		"clientID": "cchub", "clientName": "cchub", "adapterID": s.Adapter.Name,
		"linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path",
		"supportsVariableType": true, "supportsRunInTerminalRequest": false, "supportsStartDebuggingRequest": false,
	})
	if err != nil {
		return nil, s.gone("initialize", err)
	}
	if len(caps) > 0 {
		json.Unmarshal(caps, &s.caps) // a capability it did not say is one it lacks
	}
	args := map[string]any{"stopOnEntry": s.opts.StopOnEntry, "cwd": s.opts.Cwd}
	if len(s.opts.Env) > 0 {
		args["env"] = s.opts.Env
	}
	switch s.Adapter.Language {
	case lang.Go:
		args["mode"], args["program"] = "debug", s.opts.Program
		args["outputMode"] = "remote" // the debuggee's output as output events
		// Built into this process's run directory, which a later cchub
		// sweeps if both this one and the supervisor are killed.
		run, err := proc.RunDir()
		if err != nil {
			return nil, fmt.Errorf("dapsession: no place to build %s: %w", s.opts.Program, err)
		}
		bin := filepath.Join(run, fmt.Sprintf("debug-%d", time.Now().UnixNano()))
		args["output"] = bin
		s.proc.remove(bin)
		s.built = bin
		if s.opts.Test != "" {
			args["mode"] = "test"
			args["args"] = append([]string{"-test.run", "^" + s.opts.Test + "$", "-test.v"}, s.opts.Args...)
		} else if len(s.opts.Args) > 0 {
			args["args"] = s.opts.Args
		}
	case lang.Python:
		args["program"], args["args"] = s.opts.Program, append([]string{}, s.opts.Args...)
		args["console"], args["redirectOutput"], args["justMyCode"] = "internalConsole", true, true
	default:
		args["program"] = s.opts.Program
		args["args"] = append([]string{}, s.opts.Args...) // [] not null
	}
	launched, err := s.c.start(wctx, "launch", args)
	if err != nil {
		return nil, s.gone("launch", err)
	}
	// Either the adapter says it is initialized, or the launch fails
	// first (a program that does not build).
	for {
		s.mu.Lock()
		inited, wake := s.inited, s.wake
		s.mu.Unlock()
		if inited {
			break
		}
		select {
		case <-wake:
			continue
		case msg, ok := <-launched:
			if !ok {
				return nil, s.gone("launch", errors.New("the adapter closed the connection"))
			}
			launched <- msg // its result is read below
			if !msg.(dap.ResponseMessage).GetResponse().Success {
				_, err := s.c.await(wctx, "launch", launched)
				return nil, s.launchFailed(err)
			}
			select {
			case <-wake:
			case <-wctx.Done():
				return nil, s.gone("launch", wctx.Err())
			}
		case <-wctx.Done():
			return nil, s.gone("launch", wctx.Err())
		}
	}
	var funcs []Breakpoint
	for _, file := range groupByFile(s.opts.Breakpoints) {
		if file[0].Function != "" {
			funcs = append(funcs, file...)
			continue
		}
		if _, err := s.setBreakpoints(wctx, file[0].Path, file); err != nil {
			return nil, err
		}
	}
	if len(funcs) > 0 {
		if _, err := s.setFunctionBreakpoints(wctx, funcs); err != nil {
			return nil, err
		}
	}
	if _, err := s.c.call(wctx, "configurationDone", map[string]any{}); err != nil {
		return nil, s.gone("configurationDone", err)
	}
	if _, err := s.c.await(wctx, "launch", launched); err != nil {
		return nil, s.launchFailed(err)
	}
	return s.waitStop(ctx, s.opts.Wait)
}

// groupByFile groups bps by file, the function breakpoints together.
func groupByFile(bps []Breakpoint) [][]Breakpoint {
	var files [][]Breakpoint
	at := map[string]int{}
	for _, b := range bps {
		key := b.Path
		if b.Function != "" {
			key = "\x00functions"
		}
		i, ok := at[key]
		if !ok {
			i = len(files)
			at[key] = i
			files = append(files, nil)
		}
		files[i] = append(files[i], b)
	}
	return files
}

// launchFailed is a failed launch's error with what the adapter printed
// about it (the build errors of a program that does not build), the
// last 4 KB of it.
func (s *Session) launchFailed(err error) error {
	time.Sleep(100 * time.Millisecond) // its output events may trail the response
	out := strings.TrimSpace(s.console.String() + s.output.String())
	if len(out) > 4096 {
		out = "…" + out[len(out)-4096:]
	}
	if out == "" {
		return fmt.Errorf("launch failed: %w", err)
	}
	return fmt.Errorf("launch failed: %w\n%s", err, out)
}

// gone explains a failed request: the adapter's exit and last words when
// it has gone, or the error.
func (s *Session) gone(what string, err error) error {
	select {
	case <-s.proc.gone:
		return fmt.Errorf("%s: the debug adapter %s exited: %s", what, s.Adapter.Name, strings.TrimSpace(s.output.String()))
	default:
	}
	return fmt.Errorf("%s: %w", what, err)
}

// event keeps what the adapter says.
func (s *Session) event(msg dap.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e := msg.(type) {
	case *dap.InitializedEvent:
		s.inited = true
	case *dap.StoppedEvent:
		body := e.Body
		s.stopped, s.running = &body, false
	case *dap.ContinuedEvent:
		s.stopped, s.running = nil, true
	case *dap.OutputEvent:
		switch e.Body.Category {
		case "telemetry":
		case "console", "important":
			// The adapter's own words (building, its prompt): kept apart
			// from what the program printed, for a failed launch.
			s.console.Write([]byte(e.Body.Output))
		default:
			s.output.Write([]byte(e.Body.Output))
			if e.Body.Source != nil { // a logpoint's message
				s.logged = append(s.logged, e.Body.Output...)
				if len(s.logged) > maxLogged {
					cut := len(s.logged) - maxLogged
					for cut < len(s.logged) && !utf8.RuneStart(s.logged[cut]) {
						cut++
					}
					s.logged = append([]byte("…"), s.logged[cut:]...)
				}
			}
		}
	case *dap.ExitedEvent:
		code := e.Body.ExitCode
		s.exitCode = &code
	case *dap.TerminatedEvent:
		if s.ended == "" {
			s.ended = "the program ended"
		}
	case *dap.ProcessEvent:
		s.pid = e.Body.SystemProcessId
	default:
		return
	}
	close(s.wake)
	s.wake = make(chan struct{})
}

// waitStop waits up to wait for the debuggee to stop or end.
func (s *Session) waitStop(ctx context.Context, wait time.Duration) (*Stop, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		stopped, ended, wake, code := s.stopped, s.ended, s.wake, s.exitCode
		s.mu.Unlock()
		switch {
		case ended != "" && ended != "the program ended":
			// Ended by its caller or its time limit: a stop the
			// adapter reported on the way out is no answer.
			return nil, fmt.Errorf("the session has ended: %s", ended)
		case stopped != nil:
			return s.where(ctx, stopped)
		case ended != "":
			st := &Stop{Ended: true, ExitCode: code, Reason: ended}
			s.setLast(st)
			return st, nil
		}
		select {
		case <-wake:
		case <-timer.C:
			st := &Stop{Running: true}
			s.setLast(st)
			return st, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (s *Session) setLast(st *Stop) {
	s.mu.Lock()
	s.last = *st
	s.mu.Unlock()
}

// where fills a stop with the top frame of the stopped thread.
func (s *Session) where(ctx context.Context, ev *dap.StoppedEventBody) (*Stop, error) {
	st := &Stop{Reason: ev.Reason, Text: ev.Text}
	if ev.Description != "" && st.Text == "" && ev.Reason == "exception" {
		st.Text = ev.Description
	}
	frames, err := s.frames(ctx, ev.ThreadId, 1)
	if err == nil && len(frames) > 0 {
		f := frames[0]
		st.Function, st.Line = f.Name, f.Line
		if f.Source != nil {
			st.Path = f.Source.Path
		}
	}
	s.setLast(st)
	return st, nil
}

// thread is the thread the debuggee last stopped in.
func (s *Session) thread() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended != "" {
		return 0, fmt.Errorf("the session has ended: %s", s.ended)
	}
	if s.stopped == nil {
		return 0, errors.New("the program is running, not paused: pause it first")
	}
	return s.stopped.ThreadId, nil
}

func (s *Session) frames(ctx context.Context, thread, levels int) ([]dap.StackFrame, error) {
	raw, err := s.c.call(ctx, "stackTrace", map[string]any{"threadId": thread, "startFrame": 0, "levels": levels})
	if err != nil {
		return nil, err
	}
	var body dap.StackTraceResponseBody
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, err
	}
	return body.StackFrames, nil
}

// Step resumes the debuggee (op: continue, next, step_in, step_out) and
// waits for its next stop, or pauses it (pause).
func (s *Session) Step(ctx context.Context, op string) (*Stop, error) {
	s.req.Lock()
	defer s.req.Unlock()
	commands := map[string]string{"continue": "continue", "next": "next", "step_in": "stepIn", "step_out": "stepOut", "pause": "pause"}
	command, ok := commands[op]
	if !ok {
		return nil, fmt.Errorf("unknown op %q", op)
	}
	var thread int
	if op == "pause" {
		s.mu.Lock()
		ended, stopped := s.ended, s.stopped
		s.mu.Unlock()
		if ended != "" {
			return nil, fmt.Errorf("the session has ended: %s", ended)
		}
		if stopped != nil {
			return s.where(ctx, stopped)
		}
	} else {
		var err error
		if thread, err = s.thread(); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.stopped, s.running = nil, true
		s.mu.Unlock()
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// The response comes before the stop; waiting for it first would
	// only add its round trip to every step.
	resp, err := s.c.start(wctx, command, map[string]any{"threadId": thread})
	if err != nil {
		return nil, s.gone(op, err)
	}
	st, stopErr := s.waitStop(ctx, s.opts.Wait)
	if _, err := s.c.await(wctx, command, resp); err != nil {
		return nil, s.gone(op, err)
	}
	return st, stopErr
}

// Output is what the debuggee (and the adapter, about it) printed so far,
// its last 64 KB.
func (s *Session) Output() string { return s.output.String() }

// Containment says how the session's processes are held: "cgroup DIR"
// or "subreaper" (with why there is no cgroup, when one was tried), or
// "group" off Linux.
func (s *Session) Containment() string { return s.proc.how }

// Last is where the debuggee was when last seen.
func (s *Session) Last() Stop {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Ended says why the session ended, or "" while it is live.
func (s *Session) Ended() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended == "the program ended" {
		select {
		case <-s.proc.gone:
		default:
			return "" // the debuggee ended; the session still answers
		}
	}
	return s.ended
}

// End ends the session: the adapter is asked to terminate the debuggee
// and disconnect, then after a short grace the supervisor kills the
// adapter and every process descended from it (the debuggee, and what
// that started, in a session of its own or not). Only the first reason
// is kept.
func (s *Session) End(why string) {
	s.mu.Lock()
	if s.ended == "" || s.ended == "the program ended" {
		s.ended = why
	}
	s.mu.Unlock()
	s.timer.Stop()
	select {
	case <-s.proc.gone:
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s.c.call(ctx, "disconnect", map[string]any{"terminateDebuggee": true})
		cancel()
		select {
		case <-s.proc.gone:
		case <-time.After(time.Second):
		}
	}
	s.proc.kill()
	s.c.close()
	if s.built != "" {
		os.Remove(s.built) // Delve removes it on a clean exit; not when killed
	}
	s.mu.Lock()
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}
