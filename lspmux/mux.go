package lspmux

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/uri"

	"cchub/workspace"
)

// Options tune a Mux; the zero value takes the defaults.
type Options struct {
	// Idle is how long a server may go unused before it is stopped
	// (default 10 minutes); the next need starts it again.
	Idle time.Duration
	// Timeout bounds the wait for diagnostics after a write (default 5 s),
	// and every request's wait for its server to start: the start goes
	// on, for the next request.
	Timeout time.Duration
	// TimeoutOverride, when set, is Timeout as the user set it for this
	// process (cchub mcp --diagnostics-timeout): it wins over ConfigFile.
	TimeoutOverride time.Duration
	// OnCrash, when set, is told once of each crash of a server, in the
	// words a request's note says it (the hub tells every conversation).
	OnCrash func(note string)
	// OrganizeTimeout bounds organizing the imports of a staged change
	// (default 20 s, at least Timeout): a person reads the staged diff,
	// and a cold TypeScript server loads its whole project and diagnoses
	// the documents before it offers their import fixes.
	OrganizeTimeout time.Duration
	// StartLimit bounds a server's start (default 60 s): one that has
	// not answered initialize by then is killed, and counted as a failed
	// start.
	StartLimit time.Duration
	// Specs replaces the built-in servers (tests); ConfigFile still
	// applies over them.
	Specs []Spec
	// LookPath finds a server's binary (tests); the default looks on
	// PATH and beside cchub (never in the workspace).
	LookPath func(string) (string, error)
	// Pool, when set, is shared by the Muxes of the other workspaces of
	// this process: a git worktree of a repository another one serves
	// shares its server's process, as a workspace folder (pool.go).
	Pool *Pool
}

// defaultOrganizeLimit is Options.OrganizeTimeout's default.
const defaultOrganizeLimit = 20 * time.Second

// Mux runs the language servers of one workspace. The zero value is not
// usable; call New. Its methods are safe for concurrent use.
type Mux struct {
	root     *workspace.Root
	specs    []Spec
	idle     time.Duration
	timeout  time.Duration
	startLim time.Duration
	// organizeLim bounds OrganizeImports (Options.OrganizeTimeout).
	organizeLim time.Duration
	onCrash     func(note string)
	lookPath    func(string) (string, error)
	skipped     string // what an untrusted ConfigFile named to run, in words
	trusted     bool   // a person trusted the workspace's ConfigFile
	pool        *Pool  // Options.Pool

	mu       sync.Mutex
	servers  map[string]*server
	starting map[string]*startCall
	crashes  map[string]*crash
	failures map[string]*failure // failed starts since the last good one
	closed   bool
	starts   sync.WaitGroup     // startFor goroutines
	abort    context.CancelFunc // ends the starts going on: Close
	startCtx context.Context    // the starts' context: ended by abort
	sweeping bool
	stop     chan struct{} // closed by Close: ends the idle sweep
	swept    sync.WaitGroup

	life    context.Context // ends with Close: the jobs' own context
	endLife context.CancelFunc
	jobs    sync.WaitGroup  // the change jobs running (change.go)
	lastJob map[string]*job // each server's latest job, while it runs
	// settledAt is each server's publish count when its last change
	// settled: unchanged since, it needs no wait before the next.
	settledAt map[string]settledMark
}

// startCall is one start that concurrent first requests share.
type startCall struct {
	done  chan struct{}
	began time.Time
	s     *server
	err   error
}

// failure is what is known of a server's failed starts since its last
// good one.
type failure struct {
	count int
	at    time.Time
	what  string // why the last failed, as a clause
}

// crash is what is known of a server that died on its own.
type crash struct {
	count    int
	at       time.Time
	what     string // how it died, in words
	reported bool
}

// New returns the Mux of root's servers. It reads ConfigFile; nothing is
// started.
func New(root *workspace.Root, opts Options) (*Mux, error) {
	if opts.Specs == nil {
		opts.Specs = Builtin()
	}
	opts.Specs = append([]Spec(nil), opts.Specs...)
	if opts.Idle <= 0 {
		opts.Idle = 10 * time.Minute
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.StartLimit <= 0 {
		opts.StartLimit = defaultStartLimit
	}
	skipped, trusted, err := loadConfig(root, &opts)
	if err != nil {
		return nil, err
	}
	if opts.TimeoutOverride > 0 {
		opts.Timeout = opts.TimeoutOverride
	}
	if opts.OrganizeTimeout <= 0 {
		opts.OrganizeTimeout = defaultOrganizeLimit
	}
	opts.OrganizeTimeout = max(opts.OrganizeTimeout, opts.Timeout)
	if opts.LookPath == nil {
		opts.LookPath = root.LookTool
	}
	life, endLife := context.WithCancel(context.Background())
	startCtx, abort := context.WithCancel(context.Background())
	return &Mux{
		life: life, endLife: endLife, lastJob: map[string]*job{}, settledAt: map[string]settledMark{},
		root: root, specs: opts.Specs, idle: opts.Idle, timeout: opts.Timeout, startLim: opts.StartLimit, organizeLim: opts.OrganizeTimeout, onCrash: opts.OnCrash, lookPath: opts.LookPath, skipped: skipped, trusted: trusted, pool: opts.Pool,
		servers: map[string]*server{}, starting: map[string]*startCall{}, crashes: map[string]*crash{}, failures: map[string]*failure{},
		stop: make(chan struct{}), startCtx: startCtx, abort: abort,
	}, nil
}

// Report is what the servers say after a write, or when asked.
type Report struct {
	// Files holds the current diagnostics of every file the servers
	// published for: the files written, and others their change touched
	// (a caller broken in another file). A file with none is present
	// with an empty list.
	Files map[string][]Diagnostic
	// Notes say what could not be checked and why, once each: a missing
	// server or marker, a server that crashed, diagnostics not ready in
	// time. The caller decides whether a run has heard them.
	Notes []string
	// Servers names the servers that answered.
	Servers []string
	// New is, after a write, what the change caused, by file: keys
	// (severity, code, message) whose count grew, the new copies.
	New map[string][]Diagnostic
	// Gone counts, after a write, the diagnostics (counted per key) that
	// the change made go away, by file.
	Gone map[string]int
	// GoneKeys names what Gone counts, by file: one entry per copy gone,
	// with its key (severity, code, message). Its place was in the file
	// as it was before the change, so Line and Col are 0.
	GoneKeys map[string][]Diagnostic
	// Late holds what servers that had not settled within the Timeout
	// will say of the change; nil when all did.
	Late *Late
	// All is every job of an AfterWrite, settled or not: what the change
	// caused, for whoever did not make it (another session of a shared
	// hub), when its servers have settled.
	All *Late
	// Unchecked names what could not be checked, each with a note
	// saying why: the files (AfterWrite, Diagnostics) or the servers
	// (Workspace) whose server was missing, failed to start, was still
	// starting, crashed or had not settled.
	Unchecked []string
	// Before is, after a write, what each server had published, settled,
	// just before it was told the change: a caller keeps the first it
	// sees as its starting point, so that a problem present then, hidden
	// for a while and back again is not taken for new.
	Before []Settled
}

// Settled is the diagnostics one server had published, settled, before a
// change: one entry per copy of a key (Line and Col are 0), by file.
// Opened are the files the server was first told of for the change, as
// they were before it: their diagnostics in Files are its first look at
// them.
type Settled struct {
	Server string
	Files  map[string][]Diagnostic
	Opened []string
}

// unchecked records that what could not be checked, once.
func (r *Report) unchecked(what string) {
	for _, have := range r.Unchecked {
		if have == what {
			return
		}
	}
	r.Unchecked = append(r.Unchecked, what)
}

// File is a file the hub has written (Data) or deleted (Deleted). Old is
// what it held before (nil: it did not exist, or is not known): a server
// started for the change is told it first, so that what was wrong before
// is not taken for news.
type File struct {
	Path    string
	Data    []byte
	Deleted bool
	Old     []byte
}

// collect puts into rep the diagnostics of the documents told and of every
// document s published for since the first of them was told.
func (m *Mux) collect(s *server, docs map[uri.URI]told, rep *Report) {
	first := ^uint64(0)
	for _, t := range docs {
		first = min(first, t.seq)
	}
	if docs == nil {
		first = 0 // everything
	}
	s.mu.Lock()
	type found struct {
		rel string
		raw published
	}
	var all []found
	for u, p := range s.diags {
		_, isTold := docs[u]
		if !isTold && p.seq <= first || s.foreignLocked(u, m) {
			continue
		}
		rel := m.root.Rel(u.Filename())
		if rel == "" || rel == "." {
			continue
		}
		all = append(all, found{rel: rel, raw: p})
	}
	for u := range docs {
		if _, ok := s.diags[u]; !ok {
			all = append(all, found{rel: m.root.Rel(u.Filename())})
		}
	}
	s.mu.Unlock()
	for _, d := range all {
		text, _ := m.root.ReadText(d.rel) // positions need the text; a file gone has none
		rep.Files[d.rel] = convert(d.rel, text, d.raw.items)
	}
}

// newReport starts a report with what every answer of this workspace's
// servers must say (the caller's run hears it once).
func (m *Mux) newReport() *Report {
	rep := &Report{Files: map[string][]Diagnostic{}}
	if m.skipped != "" {
		rep.note(m.skipped)
	}
	return rep
}

// ConfigNote says what an untrusted ConfigFile named to run and was
// ignored ("" when nothing was), for answers that are not a Report.
func (m *Mux) ConfigNote() string { return m.skipped }

func (r *Report) note(n string) {
	for _, have := range r.Notes {
		if have == n {
			return
		}
	}
	r.Notes = append(r.Notes, n)
}

// Diagnostics returns the current diagnostics of the files at rels, each
// opened with its content on disk (a file already open is re-sent), as
// AfterWrite does.
func (m *Mux) Diagnostics(ctx context.Context, rels []string) (*Report, error) {
	var files []File
	for _, rel := range rels {
		data, err := m.root.ReadText(rel)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: rel, Data: data})
	}
	rep, err := m.AfterWrite(ctx, files)
	if err != nil || rep.Late == nil {
		return rep, err
	}
	// Not settled in time: say so, and show what was said so far.
	for _, name := range rep.Late.Servers {
		rep.note(fmt.Sprintf("diagnostics not ready after %v: %s had not settled; what it had said so far is shown, and may be incomplete: call diagnostics again in a few seconds", m.timeout, name))
	}
	m.published(rels, rep)
	rep.Late = nil
	return rep, nil
}

// Workspace returns every diagnostic the servers of the workspace know:
// each server whose root marker is at the workspace root is started (if
// it is not running), given the timeout to load and diagnose its
// workspace, and asked for all it has published.
func (m *Mux) Workspace(ctx context.Context) (*Report, error) {
	return m.WorkspaceWithin(ctx, m.timeout)
}

// WorkspaceWithin is Workspace with bound, not the Mux's Timeout, for the
// servers to load and diagnose the workspace (a one-shot command, which
// has no later answer, waits longer).
func (m *Mux) WorkspaceWithin(ctx context.Context, bound time.Duration) (*Report, error) {
	rep := m.newReport()
	var servers []*server
	for i := range m.specs {
		spec := &m.specs[i]
		if spec.Disabled {
			continue
		}
		if _, ok := m.markerDir(".", spec.RootMarkers); !ok {
			continue
		}
		bin, init, un := m.binFor(spec)
		if un != nil {
			rep.note(un.Error())
			rep.unchecked(spec.Name)
			continue
		}
		lang := ""
		for _, l := range spec.Languages {
			lang = l
		}
		s, note, err := m.server(ctx, &owner{spec: spec, dir: "", lang: lang, bin: bin, init: init})
		if note != "" {
			rep.note(note)
		}
		if err != nil {
			rep.note(err.Error())
			rep.unchecked(spec.Name)
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			continue
		}
		defer s.hold()()
		servers = append(servers, s)
		rep.Servers = append(rep.Servers, spec.Name)
	}
	wctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for _, s := range servers {
		if s.own.spec.ChecksProject {
			// Its project, every file, as its checker has it.
			m.openAnchors(wctx, s, nil)
			if r := s.checkIfDue(wctx); !r.whole() {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if r.left == "its time ran out" {
					r.left = fmt.Sprintf("not done after %v", bound)
				}
				rep.note("diagnostics: " + r.short(s.own.spec.Name))
				rep.unchecked(s.own.spec.Name)
			}
			m.collect(s, nil, rep)
			continue
		}
		// A server that has published nothing yet has not looked at the
		// workspace: quiet is not settled (pyright's first publish comes
		// over a second after it is initialized).
		// gopls reports its load as progress, which settleAll waits for.
		ready := (s.own.spec.ProgressSettles || s.firstPublish(wctx)) && s.settleAll(wctx, 500*time.Millisecond)
		if ready && s.own.spec.AnalyzesOpen {
			ready = s.settle(wctx, m.openPackages(wctx, s, rep)) && s.settleAll(wctx, 500*time.Millisecond)
		}
		if !ready {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			rep.note(fmt.Sprintf("diagnostics not ready after %v: %s was still loading the workspace; what it had said so far is shown, and may be incomplete: call diagnostics again in a few seconds", bound, s.own.spec.Name))
			rep.unchecked(s.own.spec.Name)
		}
		m.collect(s, nil, rep)
	}
	return rep, nil
}

// server returns the running server of o, starting it when there is none
// (concurrent callers share one start). It waits for the start until ctx
// ends or the Mux's timeout passes, whichever is first; then it answers
// that the server is still starting (ErrStarting), and the start goes on
// for the next request, up to the start limit. A server that crashed is
// started again, after a backoff that grows with its crashes; note then
// says how it died, once. A server whose start failed is not started
// again within a backoff that grows with its failed starts: the error
// says so at once.
func (m *Mux) server(ctx context.Context, o *owner) (*server, string, error) {
	return m.serverWithin(ctx, o, m.timeout)
}

// serverWithin is server with the wait for a start bounded by bound as
// well as ctx (0: by ctx alone, for a change's job, which goes on in the
// background).
func (m *Mux) serverWithin(ctx context.Context, o *owner, bound time.Duration) (*server, string, error) {
	key := o.key()
	var crashNote string
	defer func() { // after m.mu is released
		if crashNote != "" && m.onCrash != nil {
			m.onCrash(crashNote)
		}
	}()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, "", errStopped
	}
	if s := m.servers[key]; s != nil {
		if s.alive() {
			s.mu.Lock()
			s.used = time.Now()
			s.mu.Unlock()
			m.mu.Unlock()
			return s, "", nil
		}
		delete(m.servers, key)
		m.crashed(key, s)
	}
	note := ""
	if c := m.crashes[key]; c != nil {
		if !c.reported {
			c.reported = true
			note = fmt.Sprintf("%s %s; it is started again", o.spec.Name, c.what)
			crashNote = note
		}
		if wait := backoff(c.count) - time.Since(c.at); wait > 0 {
			m.mu.Unlock()
			return nil, note, fmt.Errorf("%s crashed %d times; it is started again in %v", o.spec.Name, c.count, wait.Round(time.Second))
		}
	}
	call := m.starting[key]
	if call == nil {
		if f := m.failures[key]; f != nil {
			if wait := startBackoff(f.count) - time.Since(f.at); wait > 0 {
				m.mu.Unlock()
				return nil, note, failedStart(o, f, wait)
			}
		}
		call = &startCall{done: make(chan struct{}), began: time.Now()}
		m.starting[key] = call
		m.starts.Add(1)
		go m.startFor(call, key, o) // owned by the Mux: it ends with the start, at the latest at Close
	}
	m.mu.Unlock()
	var expired <-chan time.Time
	if bound > 0 {
		t := time.NewTimer(bound)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-call.done:
		return call.s, note, call.err
	case <-ctx.Done():
		return nil, note, ctx.Err()
	case <-expired:
		return nil, note, &startingError{server: o.spec.Name, since: time.Since(call.began)}
	}
}

// ErrStarting is wrapped by the answer of a request whose server was
// still starting when the request's bound ended: the start goes on, and a
// later request finds the server ready.
var ErrStarting = errors.New("lspmux: the server is still starting")

type startingError struct {
	server string
	since  time.Duration
}

func (e *startingError) Error() string {
	return fmt.Sprintf("%s is still starting (no answer to initialize after %v: it is loading itself or the workspace); it goes on starting, so ask again in a few seconds: its diagnostics will come with a later answer (if every answer says this, raise diagnostics_timeout in %s)",
		e.server, e.since.Round(100*time.Millisecond), ConfigFile)
}

func (e *startingError) Is(target error) bool { return target == ErrStarting }

// failedStart is the answer of a request for o's server while it is not
// started again, wait after its fth failed start.
func failedStart(o *owner, f *failure, wait time.Duration) error {
	return fmt.Errorf("%s failed to start %s (last: %s); it is tried again in %v; fix: %s",
		o.spec.Name, times(f.count), f.what, wait.Round(time.Second), startFix(o))
}

// startFix says how to find why o's server does not start, and mend it.
func startFix(o *owner) string {
	fix := fmt.Sprintf("run %s by hand to see why", strings.Join(append([]string{o.bin}, o.spec.Args...), " "))
	if o.spec.Install != "" {
		fix += ", then reinstall it (" + o.spec.Install + ")"
	}
	return fix + fmt.Sprintf(" or correct servers[%s] in %s", o.spec.Name, ConfigFile)
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// startFor starts o's server for call, independent of the context of the
// request that asked (others share the start) but within the start limit
// and Close, and records it, or its failure.
func (m *Mux) startFor(call *startCall, key string, o *owner) {
	defer m.starts.Done()
	defer close(call.done)
	dir := m.root.Dir()
	if o.dir != "" {
		dir = path.Join(dir, o.dir)
	}
	ctx, cancel := context.WithTimeout(m.startCtx, m.startLim)
	run := func() (*server, error) { return start(ctx, o, dir) }
	var s *server
	var err error
	if pk := poolKey(o, dir); m.pool != nil && pk != "" {
		s, err = m.pool.acquire(ctx, m, pk, dir, run)
	} else {
		s, err = run()
	}
	cancel()
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.starting, key)
	if m.closed || errors.Is(err, errStopped) {
		if s != nil {
			// Close has begun and waits for this start: it is reaped
			// here, outside the lock.
			m.mu.Unlock()
			m.let(s, time.Second)
			m.mu.Lock()
		}
		call.err = errStopped
		return
	}
	if err != nil {
		f := m.failures[key]
		if f == nil {
			f = &failure{}
			m.failures[key] = f
		}
		f.count++
		f.at = time.Now()
		f.what = err.Error()
		call.err = failedStart(o, f, startBackoff(f.count))
		return
	}
	delete(m.failures, key)
	m.servers[key] = s
	call.s = s
	if !m.sweeping {
		m.sweeping = true
		m.swept.Add(1)
		go m.sweep()
	}
}

// crashed records that s died without being asked to; m.mu is held.
func (m *Mux) crashed(key string, s *server) {
	s.mu.Lock()
	stopping := s.stopping
	s.mu.Unlock()
	if stopping {
		return
	}
	c := m.crashes[key]
	if c == nil {
		c = &crash{}
		m.crashes[key] = c
	}
	c.count++
	c.at = time.Now()
	c.reported = false
	c.what = fmt.Sprintf("exited unexpectedly (%v)%s", s.proc.Wait(), lastWords(s.stderr))
}

// backoff is how long after its nth crash a server waits to start again.
func backoff(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	return min(time.Second<<(n-2), 30*time.Second)
}

// startBackoff is how long after its nth failed start in a row a server
// waits to be started again: 4 s, then doubling to 30 s. A start that
// fails is a broken install or configuration, which a restart at once
// does not mend; a person who mends it is not kept waiting long.
func startBackoff(n int) time.Duration {
	return backoff(n + 3)
}

// sweep stops servers unused for m.idle, until Close.
func (m *Mux) sweep() {
	defer m.swept.Done()
	t := time.NewTicker(max(m.idle/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		m.mu.Lock()
		var idle []*server
		for key, s := range m.servers {
			s.mu.Lock()
			unused := s.busy == 0 && time.Since(s.used) >= m.idle
			s.mu.Unlock()
			if unused {
				idle = append(idle, s)
				delete(m.servers, key)
			}
		}
		m.mu.Unlock()
		for _, s := range idle {
			m.let(s, 2*time.Second)
		}
	}
}

// let stops s, or, when the worktrees of a repository share it, lets
// this Mux's use of it go (the last one stops it).
func (m *Mux) let(s *server, grace time.Duration) {
	if m.pool != nil {
		m.pool.release(m, s, grace)
		return
	}
	s.stop(grace)
}

// Running names the servers running now ("gopls@" and their root), sorted.
func (m *Mux) Running() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for key, s := range m.servers {
		if s.alive() {
			names = append(names, key)
		}
	}
	sort.Strings(names)
	return names
}

// Process is a running language server's process.
type Process struct {
	Name string // as Running names it
	PID  int
}

// Processes are the servers running now, sorted by name.
func (m *Mux) Processes() []Process {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Process
	for key, s := range m.servers {
		if s.alive() && s.proc != nil {
			out = append(out, Process{Name: key, PID: s.proc.Pid()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Close stops every server and waits for them to be reaped.
func (m *Mux) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	close(m.stop)
	m.endLife()
	m.abort() // the starts going on end, and reap their servers
	servers := m.servers
	m.servers = map[string]*server{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.let(s, 2*time.Second)
		}()
	}
	wg.Wait()
	m.starts.Wait()
	m.swept.Wait()
	m.jobs.Wait()
	return nil
}
