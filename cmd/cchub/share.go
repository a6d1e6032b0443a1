package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"cchub/hub"
	"cchub/lspmux"
	"cchub/mcpserver"
	"cchub/proc"
	"cchub/sharedhub"
)

// mcpSettings are what shapes an MCP session's hub: sessions with the
// same root and settings share one hub.Hub in the user's shared hub.
type mcpSettings struct {
	approval  string
	diagWait  time.Duration
	cacheMB   int
	store     string
	storeKey  string // a key file, absolute
	storeMode string
}

// args are the settings as the hello carries them.
func (s mcpSettings) args() []string {
	a := []string{"approval=" + s.approval, "diagnostics-timeout=" + s.diagWait.String(), "parse-cache-mb=" + strconv.Itoa(s.cacheMB)}
	if s.store != "" {
		a = append(a, "store="+s.store)
	}
	if s.storeKey != "" {
		a = append(a, "store-key-file="+s.storeKey)
	}
	if s.storeMode != "" {
		a = append(a, "store-mode="+s.storeMode)
	}
	return a
}

// parseSettings reads args back.
func parseSettings(args []string) (mcpSettings, error) {
	var s mcpSettings
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return s, fmt.Errorf("setting %q is not name=value", a)
		}
		var err error
		switch k {
		case "approval":
			s.approval = v
		case "diagnostics-timeout":
			s.diagWait, err = time.ParseDuration(v)
		case "parse-cache-mb":
			s.cacheMB, err = strconv.Atoi(v)
		case "store":
			s.store = v
		case "store-key-file":
			s.storeKey = v
		case "store-mode":
			s.storeMode = v
		default:
			return s, fmt.Errorf("unknown setting %q (a cchub of another build?)", k)
		}
		if err != nil {
			return s, fmt.Errorf("setting %s: %w", k, err)
		}
	}
	return s, nil
}

// hubOptions are the hub.Options of an MCP session with settings s, as
// `cchub mcp` opens them in its own process.
func (s mcpSettings) hubOptions() (hub.Options, error) {
	policy, err := hub.ParseApproval(s.approval)
	if err != nil {
		return hub.Options{}, err
	}
	g := &globals{store: s.store, storeKey: s.storeKey, storeMode: s.storeMode}
	o := hub.Options{ParseCacheBytes: s.cacheMB << 20, Approval: policy, Store: g.storeSpec(), DiagnosticsTimeout: s.diagWait, Warn: mcpserver.Warn}
	if err := g.storeOptions(&o); err != nil {
		return hub.Options{}, err
	}
	return o, nil
}

// sharing says whether `cchub mcp` joins the user's shared hub, and the
// front that does; why says why not when it cannot.
func sharing(noShare bool) (f *sharedhub.Front, why string) {
	if noShare || os.Getenv(sharedhub.EnvNoShare) == "1" {
		return nil, ""
	}
	dir, err := sharedhub.Dir()
	if err != nil {
		return nil, "the shared hub's directory: " + err.Error()
	}
	id, err := sharedhub.Identity()
	if err != nil {
		return nil, "the shared hub's name: " + err.Error()
	}
	return &sharedhub.Front{Dir: dir, ID: id, Start: func() (<-chan struct{}, error) { return startHub(dir, id) }, Warn: mcpserver.Warn}, ""
}

// serveShared serves the session through the shared hub: ok is false
// (with why) when it cannot be joined, and the session is then this
// process's own.
func serveShared(ctx context.Context, f *sharedhub.Front, root string, s mcpSettings) (ok bool, why string, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return false, err.Error(), nil
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if s.storeKey != "" {
		if s.storeKey, err = filepath.Abs(s.storeKey); err != nil {
			return false, err.Error(), nil
		}
	}
	hello := sharedhub.Hello{Op: sharedhub.OpMCP, Root: abs, Args: s.args()}
	c, r, err := f.Join(ctx, hello)
	if err != nil {
		return false, err.Error(), nil
	}
	return true, "", f.Carry(ctx, hello, c, r, os.Stdin, os.Stdout)
}

// startHub starts `cchub hub-serve` detached: its own session (no
// terminal, no signal of this one), the working directory /, its output
// to its log in dir. This process reaps it if it ends first.
func startHub(dir, id string) (<-chan struct{}, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	log, err := os.OpenFile(filepath.Join(dir, "hub-"+id+".log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(exe, "hub-serve", "--id", id)
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { // owned by this process: reaps the hub should it end first
		cmd.Wait()
		close(exited)
	}()
	return exited, nil
}

func hubServeCmd(g *globals) *cobra.Command {
	var id string
	c := &cobra.Command{
		Use:    "hub-serve",
		Short:  "serve the user's shared hub (started by cchub mcp; not for people)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			dir, err := sharedhub.Dir()
			if err != nil {
				return err
			}
			want, err := sharedhub.Identity()
			if err != nil {
				return err
			}
			if id != want {
				return fmt.Errorf("asked to serve hub %s, but this build and environment are hub %s", id, want)
			}
			idle, err := sharedhub.Idle()
			if err != nil {
				return badInput(err)
			}
			// What a killed hub or session left in its run directory goes
			// first, as at an in-process cchub mcp's start.
			proc.Sweep()
			ws := &workspaces{idle: idle, pool: lspmux.NewPool(), m: map[string]*sharedWorkspace{}}
			defer ws.closeAll()
			h, err := sharedhub.Listen(dir, id, idle, ws, mcpserver.Warn)
			if errors.Is(err, sharedhub.ErrRunning) {
				return nil // another start won
			}
			if err != nil {
				return err
			}
			ctx, cancel := context.WithCancel(c.Context())
			defer cancel()
			go ws.reap(ctx, idle) // owned: ends with ctx
			mcpserver.Warn(fmt.Sprintf("hub %s serving (pid %d, idle limit %v)", id, os.Getpid(), idle))
			return h.Run(ctx)
		},
	}
	c.Flags().StringVar(&id, "id", "", "the hub's name (sharedhub.Identity)")
	return c
}

// workspaces are the shared hub's workspaces: one hub.Hub and MCP server
// per root and settings, opened for its first session and closed when it
// has had none for the idle time.
type workspaces struct {
	idle time.Duration
	pool *lspmux.Pool // the language servers the worktrees of a repository share
	mu   sync.Mutex
	m    map[string]*sharedWorkspace
}

type sharedWorkspace struct {
	root     string
	args     []string
	h        *hub.Hub
	srv      *mcpserver.Sessions
	sessions int
	commands int // one-shot commands it ran
	idleAt   time.Time
}

// Open opens (or finds) the session's workspace.
func (ws *workspaces) Open(ctx context.Context, hello sharedhub.Hello) (sharedhub.Session, error) {
	if !filepath.IsAbs(hello.Root) {
		return nil, fmt.Errorf("the root %q is not absolute", hello.Root)
	}
	s, err := parseSettings(hello.Args)
	if err != nil {
		return nil, err
	}
	key := hello.Root + "\x00" + strings.Join(hello.Args, "\x00")
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w := ws.m[key]
	if w == nil {
		o, err := s.hubOptions()
		if err != nil {
			return nil, err
		}
		o.Servers = ws.pool
		h, err := hub.Open(hello.Root, o)
		if err != nil {
			return nil, err
		}
		w = &sharedWorkspace{root: hello.Root, args: hello.Args, h: h, srv: mcpserver.NewSessions(h)}
		ws.m[key] = w
	}
	w.sessions++
	return &session{ws: ws, w: w}, nil
}

// Status says each workspace.
func (ws *workspaces) Status() []sharedhub.Workspace {
	ws.mu.Lock()
	var list []*sharedWorkspace
	for _, w := range ws.m {
		list = append(list, w)
	}
	ws.mu.Unlock()
	var out []sharedhub.Workspace
	for _, w := range list {
		ws.mu.Lock()
		st := sharedhub.Workspace{Root: w.root, Args: w.args, Sessions: w.sessions, Commands: w.commands}
		if w.sessions == 0 {
			st.IdleFor = time.Since(w.idleAt).Round(time.Second).String()
		}
		ws.mu.Unlock()
		for _, p := range w.h.ServerProcesses() {
			st.Servers = append(st.Servers, sharedhub.Server{Name: p.Name, PID: p.PID, RSSBytes: sharedhub.RSS(p.PID)})
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out
}

// reap closes the workspaces that have had no session for idle.
func (ws *workspaces) reap(ctx context.Context, idle time.Duration) {
	tick := time.NewTicker(min(idle/4+time.Second, time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var gone []*sharedWorkspace
		ws.mu.Lock()
		for k, w := range ws.m {
			if w.sessions == 0 && time.Since(w.idleAt) >= idle {
				gone = append(gone, w)
				delete(ws.m, k)
			}
		}
		ws.mu.Unlock()
		for _, w := range gone {
			w.h.Close()
		}
	}
}

func (ws *workspaces) closeAll() {
	ws.mu.Lock()
	m := ws.m
	ws.m = map[string]*sharedWorkspace{}
	ws.mu.Unlock()
	for _, w := range m {
		w.h.Close()
	}
}

// session is one front's MCP session on a workspace.
type session struct {
	ws *workspaces
	w  *sharedWorkspace
}

func (s *session) Serve(ctx context.Context, r *bufio.Reader, c net.Conn) error {
	return s.w.srv.Serve(ctx, r, c)
}

func (s *session) Close() {
	s.ws.mu.Lock()
	defer s.ws.mu.Unlock()
	s.w.sessions--
	if s.w.sessions == 0 {
		s.w.idleAt = time.Now()
	}
}

func statusCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "status",
		Short: "the user's shared hubs: their workspaces, language servers (with memory), sessions and idle times",
		Long: `The user's shared hubs: for each, its workspaces, their language servers
with their memory, the sessions and how long each has been idle. A cchub of
another build, or started with another environment, has a hub of its own: all
are listed, and the one this cchub would join is marked.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			dir, _, err := sharedhub.ExistingDir()
			if err != nil {
				return fmt.Errorf("the shared hubs' directory: %w", err)
			}
			mine, _ := sharedhub.Identity()
			type hubStatus struct {
				sharedhub.Status
				Yours bool `json:"yours"`
			}
			var all []hubStatus
			var b strings.Builder
			for _, id := range sharedhub.Hubs(dir) {
				st, ok, err := (&sharedhub.Front{Dir: dir, ID: id}).Status()
				if !ok {
					continue // a dead hub's socket: the next start replaces it
				}
				if err != nil {
					fmt.Fprintf(&b, "shared hub %s: %v\n", id, err)
					continue
				}
				all = append(all, hubStatus{st, id == mine})
				b.WriteString(statusText(st, id == mine))
			}
			if len(all) == 0 {
				b.WriteString("no shared hub is running (cchub mcp starts one)\n")
			}
			if os.Getenv(sharedhub.EnvNoShare) == "1" {
				b.WriteString("sharing is off here ($" + sharedhub.EnvNoShare + "=1): cchub mcp serves each session in its own process\n")
			}
			return emit(c, g, all, b.String())
		},
	}
	jsonFlag(c, g)
	return c
}

// statusText is a hub's status for a person.
func statusText(st sharedhub.Status, yours bool) string {
	var b strings.Builder
	mark := ""
	if yours {
		mark = " (this build and environment's)"
	}
	fmt.Fprintf(&b, "shared hub %s%s: pid %d, up %v, %s, %d session%s", st.ID, mark, st.PID, time.Since(st.Started).Round(time.Second), mb(st.RSSBytes), st.Sessions, plural(st.Sessions))
	if st.IdleFor != "" {
		fmt.Fprintf(&b, ", idle %s of %s", st.IdleFor, st.IdleLimit)
	}
	b.WriteString("\n")
	total := st.RSSBytes
	// A server the worktrees of a repository share is listed under each,
	// counted once.
	uses := map[int]int{}
	for _, w := range st.Workspaces {
		for _, s := range w.Servers {
			uses[s.PID]++
		}
	}
	counted := map[int]bool{}
	for _, w := range st.Workspaces {
		fmt.Fprintf(&b, "  %s: %d session%s", w.Root, w.Sessions, plural(w.Sessions))
		if w.Commands > 0 {
			fmt.Fprintf(&b, ", %d one-shot command%s answered", w.Commands, plural(w.Commands))
		}
		if w.IdleFor != "" {
			fmt.Fprintf(&b, ", idle %s", w.IdleFor)
		}
		b.WriteString("\n")
		for _, s := range w.Servers {
			shared := ""
			if n := uses[s.PID]; n > 1 {
				shared = fmt.Sprintf(" (one process for %d workspaces)", n)
			}
			fmt.Fprintf(&b, "    %s: pid %d, %s%s\n", s.Name, s.PID, mb(s.RSSBytes), shared)
			if !counted[s.PID] {
				counted[s.PID] = true
				total += s.RSSBytes
			}
		}
	}
	fmt.Fprintf(&b, "  memory in all: %s\n", mb(total))
	return b.String()
}

func mb(n int64) string { return fmt.Sprintf("%d MB", n>>20) }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// sharedCommands are the one-shot commands a running shared hub answers
// from its warm state (listing, token index, code graph, language
// servers) when it serves their workspace: they read, and answer as they
// would on their own (diag waits for the servers as on its own).
var sharedCommands = map[string]bool{"grep": true, "search": true, "glob": true, "graph": true, "diag": true}

// viaSharedHub runs the command line args in the user's running shared
// hub when the hub serves its workspace with the same store settings:
// served is false when it does not (no hub, sharing off, another command,
// flags of its own), and the command runs here.
func viaSharedHub(ctx context.Context, args []string, stdout, stderr io.Writer) (code int, served bool) {
	if os.Getenv(sharedhub.EnvNoShare) == "1" || len(args) == 0 {
		return 0, false
	}
	root := newRootCmd(io.Discard, io.Discard)
	c, rest, err := root.Find(args)
	if err != nil || c == root || !sharedCommands[topCommand(c, root).Name()] {
		return 0, false
	}
	if err := c.ParseFlags(rest); err != nil {
		return 0, false
	}
	for _, own := range []string{"store", "store-key-file", "store-mode", "run", "help"} {
		if f := c.Flags().Lookup(own); f != nil && f.Changed {
			return 0, false
		}
	}
	dir := "."
	if f := c.Flags().Lookup("root"); f != nil {
		dir = f.Value.String()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return 0, false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	hubDir, ok, _ := sharedhub.ExistingDir()
	if !ok {
		return 0, false // no hub has run here: nothing to ask, nothing made
	}
	id, err := sharedhub.Identity()
	if err != nil {
		return 0, false
	}
	f := &sharedhub.Front{Dir: hubDir, ID: id}
	code, served, err = f.Call(ctx, sharedhub.Hello{Op: sharedhub.OpCLI, Root: abs, Argv: args}, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "cchub:", err)
	}
	return code, served
}

// topCommand is c's ancestor just below root (graph for graph callers).
func topCommand(c, root *cobra.Command) *cobra.Command {
	for c.Parent() != nil && c.Parent() != root {
		c = c.Parent()
	}
	return c
}

// OpenCLI runs a one-shot command on the warm hub of its workspace, if
// one serves it with the default store settings (a command with store
// flags of its own runs on its own: viaSharedHub does not send it).
func (ws *workspaces) OpenCLI(hello sharedhub.Hello) (func(ctx context.Context, stdout, stderr io.Writer) int, error) {
	if len(hello.Argv) == 0 {
		return nil, errors.New("no command")
	}
	ws.mu.Lock()
	var w *sharedWorkspace
	for _, cand := range ws.m {
		if cand.root != hello.Root {
			continue
		}
		s, err := parseSettings(cand.args)
		if err == nil && s.store == "" && s.storeKey == "" && s.storeMode == "" {
			w = cand
			break
		}
	}
	if w != nil {
		w.sessions++ // held open while the command runs
		w.commands++
	}
	ws.mu.Unlock()
	if w == nil {
		return nil, fmt.Errorf("no session serves %s here", hello.Root)
	}
	return func(ctx context.Context, stdout, stderr io.Writer) int {
		defer (&session{ws: ws, w: w}).Close()
		// Output goes in frames of up to 64 KiB, not a frame a line.
		bufOut := bufio.NewWriterSize(stdout, 64<<10)
		out, errw := newTextWriter(bufOut), newTextWriter(stderr)
		root := newRootCmdOn(out, errw, w.h)
		root.SetArgs(hello.Argv)
		code := exitCode(root.ExecuteContext(ctx), errw)
		out.Flush()
		bufOut.Flush()
		errw.Flush()
		return code
	}, nil
}
