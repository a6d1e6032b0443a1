package lspmux

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// What a change caused.
//
// A change's diagnostics are those it caused, in every file: the
// diagnostics the server had published for the whole workspace just
// before it was told the change (settled), against those it has
// published once it settled after it, compared as counts per key (file,
// severity, code, message). A problem that was there before is never
// new, whichever file it is in; a second copy of one is. A server started
// for the change is first told the files as they were (File.Old) and
// settles, so that what it finds on loading is not taken for news.
//
// Each change is a job of its own, run in the background and owned by
// the Mux; one server's jobs run in order, each measured from where the
// last one left the server. AfterWrite waits for the jobs up to the
// Mux's Timeout; a job that is not done by then goes on, and its Late
// reports what it caused once its server settles.

// jobLimit bounds one job: its server's start, the settling before and
// after the change.
const jobLimit = 2 * time.Minute

// coldQuiet is how long a server started for a change, which reports no
// progress, must have said nothing before what it says counts as the
// workspace as it was.
const coldQuiet = 2 * time.Second

// job is one change told to one server.
type job struct {
	own   *owner
	files []File
	prev  *job          // the server's job before this one: it runs first
	done  chan struct{} // closed once res is written
	res   jobResult
}

// jobResult is what a job found.
type jobResult struct {
	server  string
	new     map[string][]Diagnostic // caused, by file
	gone    map[string]int          // keys (counted) that went away, by file
	goneKey map[string][]Diagnostic // what gone counts: a copy each, its key alone
	current map[string][]Diagnostic // the files told, and those with news: all they have now
	before  *Settled                // what the server had published before the change
	settled bool                    // the server settled after the change within jobLimit
	notes   []string
	// unchecked: the server could not be had, or did not settle: the
	// job's files were not (fully) checked.
	unchecked bool
}

// Late is what a change caused on servers that had not settled within
// the Mux's Timeout: their jobs go on, and Ready reports once all have.
type Late struct {
	jobs    []*job
	Servers []string // the servers not yet settled
}

// Ready reports what the late jobs found, once they are all done.
func (l *Late) Ready() (*Report, bool) {
	for _, j := range l.jobs {
		select {
		case <-j.done:
		default:
			return nil, false
		}
	}
	rep := &Report{Files: map[string][]Diagnostic{}, New: map[string][]Diagnostic{}, Gone: map[string]int{}, GoneKeys: map[string][]Diagnostic{}}
	for _, j := range l.jobs {
		rep.add(j)
	}
	return rep, true
}

// Wait is Ready, waiting up to ctx's end.
func (l *Late) Wait(ctx context.Context) (*Report, bool) {
	for _, j := range l.jobs {
		select {
		case <-j.done:
		case <-ctx.Done():
			return nil, false
		}
	}
	return l.Ready()
}

// add puts a done job's findings into rep.
func (rep *Report) add(j *job) {
	for _, n := range j.res.notes {
		rep.note(n)
	}
	for p, ds := range j.res.current {
		rep.Files[p] = ds
	}
	for p, ds := range j.res.new {
		rep.New[p] = append(rep.New[p], ds...)
	}
	for p, n := range j.res.gone {
		rep.Gone[p] += n
	}
	for p, ds := range j.res.goneKey {
		rep.GoneKeys[p] = append(rep.GoneKeys[p], ds...)
	}
	if j.res.unchecked || !j.res.settled {
		for _, f := range j.files {
			rep.unchecked(f.Path)
		}
	}
	if j.res.server != "" && !slices.Contains(rep.Servers, j.res.server) {
		rep.Servers = append(rep.Servers, j.res.server)
		sort.Strings(rep.Servers)
	}
	if j.res.before != nil {
		rep.Before = append(rep.Before, *j.res.before)
	}
}

// Merge adds what another report of the same change found (its Late
// jobs, once ready) to rep.
func (rep *Report) Merge(more *Report) {
	for _, n := range more.Notes {
		rep.note(n)
	}
	for p, ds := range more.Files {
		rep.Files[p] = ds
	}
	for p, ds := range more.New {
		rep.New[p] = append(rep.New[p], ds...)
	}
	for p, n := range more.Gone {
		rep.Gone[p] += n
	}
	if rep.GoneKeys == nil && len(more.GoneKeys) > 0 {
		rep.GoneKeys = map[string][]Diagnostic{}
	}
	for p, ds := range more.GoneKeys {
		rep.GoneKeys[p] = append(rep.GoneKeys[p], ds...)
	}
	for _, s := range more.Servers {
		if !slices.Contains(rep.Servers, s) {
			rep.Servers = append(rep.Servers, s)
		}
	}
	sort.Strings(rep.Servers)
	for _, u := range more.Unchecked {
		rep.unchecked(u)
	}
	rep.Before = append(rep.Before, more.Before...)
}

// AfterWrite tells each file's server of its new content and reports what
// the change caused (Report.New, Report.Gone) and what the files hold now
// (Report.Files). Files no server owns are skipped; files whose server is
// unavailable get a note. What is not settled within the Timeout comes in
// Report.Late.
func (m *Mux) AfterWrite(ctx context.Context, files []File) (*Report, error) {
	rep := m.newReport()
	rep.New, rep.Gone, rep.GoneKeys = map[string][]Diagnostic{}, map[string]int{}, map[string][]Diagnostic{}
	groups := map[string]*job{}
	var order []*job
	for _, f := range files {
		o, err := m.ownerOf(f.Path)
		var un *Unavailable
		switch {
		case errors.Is(err, ErrNoServer):
			continue
		case errors.As(err, &un):
			rep.note(un.Error())
			rep.unchecked(f.Path)
			continue
		case err != nil:
			return nil, err
		}
		j := groups[o.key()]
		if j == nil {
			j = &job{own: o, done: make(chan struct{})}
			groups[o.key()] = j
			order = append(order, j)
		}
		j.files = append(j.files, f)
	}
	if len(order) == 0 {
		return rep, nil
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errStopped
	}
	for _, j := range order {
		j.prev = m.lastJob[j.own.key()]
		m.lastJob[j.own.key()] = j
		m.jobs.Add(1)
		go m.runJob(j) // owned by the Mux: Close cancels and waits for it
	}
	m.mu.Unlock()
	rep.All = &Late{jobs: order}
	for _, j := range order {
		rep.All.Servers = append(rep.All.Servers, j.own.spec.Name)
	}

	bound := time.NewTimer(m.timeout)
	defer bound.Stop()
	expired := false
	var late []*job
	for _, j := range order {
		if !expired {
			select {
			case <-j.done:
				rep.add(j)
				continue
			case <-bound.C:
				expired = true
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		select {
		case <-j.done:
			rep.add(j)
		default:
			late = append(late, j)
		}
	}
	if len(late) > 0 {
		rep.Late = &Late{jobs: late}
		for _, j := range late {
			rep.Late.Servers = append(rep.Late.Servers, j.own.spec.Name)
			m.mu.Lock()
			call := m.starting[j.own.key()]
			m.mu.Unlock()
			if call != nil {
				rep.note((&startingError{server: j.own.spec.Name, since: time.Since(call.began)}).Error())
			}
			for _, f := range j.files {
				rep.unchecked(f.Path)
			}
		}
	}
	return rep, nil
}

// runJob tells j's server the change and measures what it caused.
func (m *Mux) runJob(j *job) {
	defer m.jobs.Done()
	defer close(j.done)
	ctx, cancel := context.WithTimeout(m.life, jobLimit)
	defer cancel()
	defer func() {
		m.mu.Lock()
		if m.lastJob[j.own.key()] == j {
			delete(m.lastJob, j.own.key())
		}
		m.mu.Unlock()
	}()
	if j.prev != nil {
		select {
		case <-j.prev.done:
		case <-ctx.Done():
			j.res.notes = append(j.res.notes, fmt.Sprintf("diagnostics: %s did not finish with the change before this one", j.own.spec.Name))
			return
		}
	}
	// The job waits for its server's start however long it takes (up to
	// its limit): the caller stopped waiting at the bound, and the news
	// of the change comes later.
	m.mu.Lock()
	cold := m.servers[j.own.key()] == nil
	m.mu.Unlock()
	s, note, err := m.serverWithin(ctx, j.own, 0)
	if note != "" {
		j.res.notes = append(j.res.notes, note)
	}
	if err != nil {
		j.res.notes = append(j.res.notes, err.Error())
		j.res.unchecked = true
		return
	}
	defer s.hold()()
	j.res.server = j.own.spec.Name

	// The files as they were, for a server that has not seen them: what
	// it finds in them is not this change's doing. A server whose project
	// was checked since it was last told anything saw them in that check.
	checkedBefore := s.own.spec.ChecksProject && m.stillSettled(j.own.key(), s)
	old := map[uri.URI]told{}
	for _, f := range j.files {
		u := m.docURI(f.Path)
		s.mu.Lock()
		_, open := s.docs[u]
		s.mu.Unlock()
		if open || f.Old == nil || checkedBefore {
			continue
		}
		t, err := s.tell(ctx, u, j.own.lang, f.Old)
		if err != nil {
			j.res.notes = append(j.res.notes, err.Error())
			return
		}
		old[u] = t
	}
	if s.own.spec.ChecksProject {
		// Its project is had through an open document: a server that
		// has none opens the workspace's anchors, as they are on disk,
		// save the files of the change.
		m.openAnchors(ctx, s, j.files)
	}
	if len(old) > 0 && s.settle(ctx, old) && !cold && !s.own.spec.ChecksProject {
		// A running server settled on the files as they were, by the
		// standard the change itself settles by below: no quiet spell
		// is waited for on top (gopls: 300 ms an edit of a file it did
		// not hold). A server just started keeps its longer wait.
		m.markSettled(j.own.key(), s)
	}
	switch {
	case s.own.spec.ChecksProject:
		if r := s.checkIfDue(ctx); !r.whole() {
			j.res.notes = append(j.res.notes, "before the change, "+r.short(j.own.spec.Name))
		}
	case cold && !s.own.spec.ProgressSettles:
		// A server that just started goes on analysing the workspace
		// after it has answered for the files opened; without progress
		// to say when it is done, a longer quiet does (pyright publishes
		// file after file, well within it). With no file opened yet, its
		// first publish, if it makes one unasked, starts the quiet.
		if len(old) == 0 {
			fctx, cancel := context.WithTimeout(ctx, coldQuiet)
			s.firstPublish(fctx)
			cancel()
		}
		s.settleAll(ctx, coldQuiet)
	case !m.stillSettled(j.own.key(), s):
		s.settleAll(ctx, s.own.spec.quiet())
	}
	before := s.snapshot(m)
	j.res.before = m.settled(s, before, old)

	told := map[uri.URI]told{}
	for _, f := range j.files {
		u := m.docURI(f.Path)
		if f.Deleted {
			if err := s.forget(ctx, u); err != nil {
				j.res.notes = append(j.res.notes, err.Error())
			}
			continue
		}
		t, err := s.tell(ctx, u, j.own.lang, f.Data)
		if err != nil {
			j.res.notes = append(j.res.notes, err.Error())
			continue
		}
		told[u] = t
	}
	if s.pulls {
		// Asked, not awaited: the answer is the document's diagnostics
		// now; pushes for other files still settle.
		for u, t := range told {
			if err := s.pull(ctx, u, t.version); err != nil {
				break // the wait below says why
			}
		}
	}
	var r checked
	if s.own.spec.ChecksProject {
		r = s.check(ctx)
		j.res.settled = r.whole()
	} else {
		j.res.settled = s.settle(ctx, told)
	}
	if !j.res.settled {
		switch {
		case !s.alive():
			j.res.notes = append(j.res.notes, s.failed("diagnostics", errStopped).Error())
		case s.own.spec.ChecksProject:
			j.res.notes = append(j.res.notes, "diagnostics: "+r.short(j.own.spec.Name))
		default:
			j.res.notes = append(j.res.notes, fmt.Sprintf("diagnostics: %s had not settled %v after the change; what it had said by then is shown, and may be incomplete", j.own.spec.Name, jobLimit))
		}
	}
	m.compare(j, before, s.snapshot(m), told)
	if j.res.settled {
		m.markSettled(j.own.key(), s)
	}
}

// markSettled notes that s (the server of the owner key), having settled
// by its own standard just now, has published the settled state: unless
// it says more, the next change on it needs no wait before it is told
// (stillSettled).
func (m *Mux) markSettled(key string, s *server) {
	s.mu.Lock()
	seq, idle := s.seq, len(s.active) == 0
	s.mu.Unlock()
	if idle {
		m.mu.Lock()
		m.settledAt[key] = settledMark{s, seq}
		m.mu.Unlock()
	}
}

// stillSettled says whether s has said nothing since the last change on
// it settled: then what it published is settled, with no wait.
func (m *Mux) stillSettled(key string, s *server) bool {
	if s.own.spec.ChecksProject {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.checked && !s.dirty
	}
	m.mu.Lock()
	at, ok := m.settledAt[key]
	m.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	return ok && at.s == s && s.seq == at.seq && len(s.active) == 0
}

// settledMark is a server and its publish count when a change on it
// settled (a restarted server is another server).
type settledMark struct {
	s   *server
	seq uint64
}

// turn takes a place in the line of changes of the server known by key,
// for work that changes what it publishes without being a change
// (overlays): it waits for the change before it, up to ctx's end, and
// holds the line until done is called. Given up, its place is released
// only once the change before it is done, so the line keeps its order.
func (m *Mux) turn(ctx context.Context, key string) (done func(), err error) {
	j := &job{done: make(chan struct{})}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errStopped
	}
	j.prev = m.lastJob[key]
	m.lastJob[key] = j
	m.jobs.Add(1)
	m.mu.Unlock()
	finish := func() {
		m.mu.Lock()
		if m.lastJob[key] == j {
			delete(m.lastJob, key)
		}
		m.mu.Unlock()
		close(j.done)
		m.jobs.Done()
	}
	if j.prev != nil {
		select {
		case <-j.prev.done:
		case <-ctx.Done():
			go func() { // owned by the Mux (m.jobs): ends with the change before
				<-j.prev.done
				finish()
			}()
			return nil, ctx.Err()
		}
	}
	return finish, nil
}

// snapshot is a copy of every diagnostic s has published, by document.
type snapshot map[uri.URI][]protocol.Diagnostic

func (s *server) snapshot(m *Mux) snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(snapshot, len(s.diags))
	for u, p := range s.diags {
		if !s.foreignLocked(u, m) { // another worktree's are not m's news
			out[u] = p.items
		}
	}
	return out
}

// diagKey is what a diagnostic is counted by: the same key at another
// place is the same problem, moved.
type diagKey struct {
	severity, code, message string
}

func keyOf(d protocol.Diagnostic) diagKey {
	return diagKey{severityName(d.Severity), codeText(d.Code), strings.TrimSpace(d.Message)}
}

// compare writes into j what the change caused: per document, each key's
// count after less its count before is new (the copies at places the key
// did not have before, else the last ones), each key's count before less
// its count after is gone. Documents told, and those with news, are
// listed whole in current.
func (m *Mux) compare(j *job, before, after snapshot, told map[uri.URI]told) {
	j.res.new, j.res.gone, j.res.current = map[string][]Diagnostic{}, map[string]int{}, map[string][]Diagnostic{}
	j.res.goneKey = map[string][]Diagnostic{}
	docs := map[uri.URI]bool{}
	for u := range before {
		docs[u] = true
	}
	for u := range after {
		docs[u] = true
	}
	for u := range told {
		docs[u] = true
	}
	for u := range docs {
		rel := m.root.Rel(u.Filename())
		if rel == "" || rel == "." || strings.HasPrefix(rel, "../") {
			continue
		}
		was := map[diagKey][]protocol.Range{}
		for _, d := range before[u] {
			k := keyOf(d)
			was[k] = append(was[k], d.Range)
		}
		now := map[diagKey]int{}
		for _, d := range after[u] {
			now[keyOf(d)]++
		}
		gone := 0
		var goneKeys []Diagnostic
		for k, rs := range was {
			if n := len(rs) - now[k]; n > 0 {
				gone += n
				for range n {
					goneKeys = append(goneKeys, Diagnostic{Path: rel, Severity: k.severity, Code: k.code, Message: k.message})
				}
			}
		}
		var caused []protocol.Diagnostic
		extra := map[diagKey]int{}
		for k, n := range now {
			if d := n - len(was[k]); d > 0 {
				extra[k] = d
			}
		}
		if len(extra) > 0 {
			// Of a key's copies, the new ones are those at places it did
			// not have; if the places all moved, the last ones.
			var rest []protocol.Diagnostic
			for _, d := range after[u] {
				k := keyOf(d)
				if extra[k] == 0 {
					continue
				}
				if !hasRange(was[k], d.Range) {
					caused = append(caused, d)
					extra[k]--
				} else {
					rest = append(rest, d)
				}
			}
			for i := len(rest) - 1; i >= 0; i-- {
				if k := keyOf(rest[i]); extra[k] > 0 {
					caused = append(caused, rest[i])
					extra[k]--
				}
			}
		}
		if gone > 0 {
			j.res.gone[rel] = gone
			sort.Slice(goneKeys, func(a, b int) bool {
				x, y := goneKeys[a], goneKeys[b]
				if x.Severity != y.Severity {
					return SeverityRank(x.Severity) < SeverityRank(y.Severity)
				}
				if x.Code != y.Code {
					return x.Code < y.Code
				}
				return x.Message < y.Message
			})
			j.res.goneKey[rel] = goneKeys
		}
		_, isTold := told[u]
		if len(caused) == 0 && !isTold && gone == 0 {
			continue
		}
		text, _ := m.root.ReadText(rel) // positions need the text; a file gone has none
		if len(caused) > 0 {
			j.res.new[rel] = convert(rel, text, caused)
		}
		j.res.current[rel] = convert(rel, text, after[u])
	}
}

// settled is snap, the settled diagnostics of s before a change, by key:
// one entry per copy, without places. opened are the documents s was
// first told of for the change.
func (m *Mux) settled(s *server, snap snapshot, opened map[uri.URI]told) *Settled {
	out := &Settled{Server: s.own.spec.Name, Files: map[string][]Diagnostic{}}
	for u, items := range snap {
		rel := m.root.Rel(u.Filename())
		if rel == "" || rel == "." || strings.HasPrefix(rel, "../") || len(items) == 0 {
			continue
		}
		ds := make([]Diagnostic, 0, len(items))
		for _, d := range items {
			k := keyOf(d)
			ds = append(ds, Diagnostic{Path: rel, Severity: k.severity, Code: k.code, Message: k.message})
		}
		out.Files[rel] = ds
	}
	for u := range opened {
		if rel := m.root.Rel(u.Filename()); rel != "" && rel != "." && !strings.HasPrefix(rel, "../") {
			out.Opened = append(out.Opened, rel)
		}
	}
	sort.Strings(out.Opened)
	return out
}

func hasRange(rs []protocol.Range, r protocol.Range) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// Timeout is how long AfterWrite and Diagnostics wait for servers to
// settle.
func (m *Mux) Timeout() time.Duration { return m.timeout }

// published puts into rep, for each of rels it has no entry for, what the
// file's running server has published of it so far.
func (m *Mux) published(rels []string, rep *Report) {
	for _, rel := range rels {
		if _, ok := rep.Files[rel]; ok {
			continue
		}
		o, err := m.ownerOf(rel)
		if err != nil {
			continue
		}
		m.mu.Lock()
		s := m.servers[o.key()]
		m.mu.Unlock()
		if s == nil {
			continue
		}
		s.mu.Lock()
		p, ok := s.diags[m.docURI(rel)]
		s.mu.Unlock()
		if !ok {
			continue
		}
		text, _ := m.root.ReadText(rel)
		rep.Files[rel] = convert(rel, text, p.items)
	}
}

// firstPublish waits until s has published anything at all, up to ctx's
// end, and says whether it has.
func (s *server) firstPublish(ctx context.Context) bool {
	for {
		s.mu.Lock()
		seq, wake := s.seq, s.wake
		s.mu.Unlock()
		if seq > 0 {
			return true
		}
		select {
		case <-wake:
		case <-s.exited:
			return false
		case <-ctx.Done():
			return false
		}
	}
}
