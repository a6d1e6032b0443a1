package lspmux

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"cchub/lang"
	"cchub/workspace"
)

// A project's every file, checked (Spec.ChecksProject).
//
// typescript-language-server publishes diagnostics only for the
// documents open in it: it asks tsserver's geterr for those alone, some
// 300 to 800 ms after a change. A signature changed in one file would
// report none of its broken callers in the files not open, and a file
// whose diagnostics stay empty is not published again, so nothing says
// when it is done. For such a server the Mux asks tsserver itself,
// through the server's typescript.tsserverRequest command, for the
// diagnostics of every file of the project (projectInfo's file list),
// with the synchronous requests tsserver answers in order after the
// change it was told: a file's semantic diagnostics every time (another
// file's change can break it), its syntactic and suggestion ones when
// its own text changed or it was never checked (they depend on its text
// alone; suggestions, such as an unused name, nearly so). The answers,
// in the server's published form, are the server's diagnostics of those
// files; what it publishes itself is not used. The last answer is the
// settled state: no quiet spell is waited for.

// maxCheckedFiles bounds the files of one check; past it, the check says
// how many it left out.
const maxCheckedFiles = 5000

// checkInFlight is how many requests of a check are sent ahead of their
// answers: the server passes them to tsserver one at a time, so sending
// ahead saves only the round trips.
const checkInFlight = 32

// tsKinds is what tsserver last answered for one file, by kind.
type tsKinds struct {
	syntactic, semantic, suggestion []protocol.Diagnostic
}

// checked is what a project check did.
type checked struct {
	files, total int    // files checked, of the project's files
	left         string // why it stopped short, as a clause ("" when it did not)
}

// whole says the check covered every file of the project.
func (c checked) whole() bool { return c.left == "" && c.files == c.total }

// short says, as a sentence, how far a check that was not whole got.
func (c checked) short(server string) string {
	if c.total == 0 {
		return fmt.Sprintf("%s had not listed the project's files (%s); what it had found before is shown, and may be out of date: ask diagnostics again", server, c.left)
	}
	return fmt.Sprintf("%s checked %d of the project's %d files (%s); what the others hold is not known: ask diagnostics again, or for their paths", server, c.files, c.total, c.left)
}

// checkIfDue checks the project if anything was told to the server since
// its last check, or it never was.
func (s *server) checkIfDue(ctx context.Context) checked {
	s.mu.Lock()
	due := s.dirty || !s.checked
	s.mu.Unlock()
	if !due {
		return checked{}
	}
	return s.check(ctx)
}

// check checks the project (checkProject), one check at a time, with the
// documents whose text the server was told since the last check as the
// fresh ones. What it could not check stays due for the next.
func (s *server) check(ctx context.Context) checked {
	s.checking.Lock()
	defer s.checking.Unlock()
	s.mu.Lock()
	var fresh []uri.URI
	for u := range s.fresh {
		fresh = append(fresh, u)
	}
	sort.Slice(fresh, func(i, j int) bool { return fresh[i] < fresh[j] })
	s.fresh, s.dirty = map[uri.URI]bool{}, false
	s.mu.Unlock()
	res := s.checkProject(ctx, fresh)
	s.mu.Lock()
	if res.whole() {
		s.checked = true
	} else {
		s.dirty = true
		for _, u := range fresh {
			if _, open := s.docs[u]; open {
				s.fresh[u] = true
			}
		}
	}
	s.mu.Unlock()
	if res.left == "" && res.files < res.total {
		res.left = "tsserver did not answer for every file"
	}
	return res
}

// checkProject asks tsserver for the diagnostics of every file of the
// projects of the documents fresh (their text changed: told, opened or
// changed on disk) and of the documents open, fresh ones first, and
// records them as published. A file never checked before counts as
// fresh. It stops at ctx's end, saying how far it got.
func (s *server) checkProject(ctx context.Context, fresh []uri.URI) checked {
	s.mu.Lock()
	anchors := append([]uri.URI(nil), fresh...)
	for u := range s.docs {
		if !containsURI(anchors, u) {
			anchors = append(anchors, u)
		}
	}
	s.mu.Unlock()
	files, err := s.projectFiles(ctx, anchors)
	if err != nil {
		if ctx.Err() != nil {
			return checked{left: "its time ran out"}
		}
		return checked{left: err.Error()}
	}
	// The files whose text changed come first: the edit's own news is
	// the first to be needed.
	order := append([]uri.URI(nil), fresh...)
	for _, u := range files {
		if !containsURI(order, u) {
			order = append(order, u)
		}
	}
	res := checked{total: len(order)}
	if len(order) > maxCheckedFiles {
		order = order[:maxCheckedFiles]
		res.left = fmt.Sprintf("the project has %d files; at most %d are checked after a change", res.total, maxCheckedFiles)
	}
	s.mu.Lock()
	if s.kinds == nil {
		s.kinds = map[uri.URI]*tsKinds{}
	}
	var asks []tsAsk
	for _, u := range order {
		k := s.kinds[u]
		whole := k == nil || containsURI(fresh, u)
		asks = append(asks, tsAsk{u, "semanticDiagnosticsSync"})
		if whole {
			asks = append(asks, tsAsk{u, "syntacticDiagnosticsSync"}, tsAsk{u, "suggestionDiagnosticsSync"})
		}
	}
	s.mu.Unlock()
	answers, errs := s.askAll(ctx, asks)

	// A file is recorded only when each of its kinds was answered.
	got := map[uri.URI]*tsKinds{}
	failed := map[uri.URI]bool{}
	for i, a := range asks {
		if errs[i] != nil {
			failed[a.file] = true
			continue
		}
		k := got[a.file]
		if k == nil {
			k = &tsKinds{}
			s.mu.Lock()
			if old := s.kinds[a.file]; old != nil {
				*k = *old
			}
			s.mu.Unlock()
			got[a.file] = k
		}
		switch a.command {
		case "semanticDiagnosticsSync":
			k.semantic = answers[i]
		case "syntacticDiagnosticsSync":
			k.syntactic = answers[i]
		case "suggestionDiagnosticsSync":
			k.suggestion = answers[i]
		}
	}
	inProject := map[uri.URI]bool{}
	for _, u := range order {
		inProject[u] = true
	}
	s.mu.Lock()
	for _, u := range order {
		k := got[u]
		if k == nil || failed[u] {
			continue
		}
		res.files++
		s.kinds[u] = k
		items := make([]protocol.Diagnostic, 0, len(k.syntactic)+len(k.semantic)+len(k.suggestion))
		items = append(append(append(items, k.syntactic...), k.semantic...), k.suggestion...)
		s.record(u, items)
	}
	if res.left == "" {
		// A file the project no longer has (deleted, or left out of its
		// configuration) has no diagnostics.
		for u := range s.kinds {
			if !inProject[u] {
				delete(s.kinds, u)
				s.record(u, nil)
			}
		}
	}
	s.event()
	s.mu.Unlock()
	if res.left == "" && res.files < len(order) {
		switch {
		case ctx.Err() != nil:
			res.left = "its time ran out"
		default:
			for i := range asks {
				if errs[i] != nil {
					res.left = "tsserver failed: " + errs[i].Error()
					break
				}
			}
		}
	}
	return res
}

// record sets what u's diagnostics are, as a publish would; s.mu is held.
func (s *server) record(u uri.URI, items []protocol.Diagnostic) {
	s.seq++
	s.diags[u] = published{seq: s.seq, items: items}
}

// tsAsk is one request of a check: command about file.
type tsAsk struct {
	file    uri.URI
	command string
}

// askAll sends asks to tsserver, checkInFlight ahead, and returns each
// answer (or error) at its index. It stops sending at ctx's end.
func (s *server) askAll(ctx context.Context, asks []tsAsk) ([][]protocol.Diagnostic, []error) {
	answers := make([][]protocol.Diagnostic, len(asks))
	errs := make([]error, len(asks))
	slots := make(chan struct{}, checkInFlight)
	var wg sync.WaitGroup
	for i, a := range asks {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			for j := i; j < len(asks); j++ {
				errs[j] = ctx.Err()
			}
			wg.Wait()
			return answers, errs
		}
		wg.Add(1)
		go func() { // owned by askAll: it waits for every one
			defer wg.Done()
			defer func() { <-slots }()
			answers[i], errs[i] = s.diagnosticsOf(ctx, a)
		}()
	}
	wg.Wait()
	return answers, errs
}

// tsDiagnostic is a diagnostic as tsserver answers it: 1-based lines and
// offsets (UTF-16 code units, as LSP's characters).
type tsDiagnostic struct {
	Start, End         struct{ Line, Offset uint32 }
	Text               string `json:"text"`
	Code               int    `json:"code"`
	Category           string `json:"category"`
	Source             string `json:"source"`
	ReportsUnnecessary bool   `json:"reportsUnnecessary"`
	ReportsDeprecated  bool   `json:"reportsDeprecated"`
}

// diagnosticsOf asks tsserver a's command and returns its answer as the
// server would publish it.
func (s *server) diagnosticsOf(ctx context.Context, a tsAsk) ([]protocol.Diagnostic, error) {
	var resp struct {
		Success bool           `json:"success"`
		Message string         `json:"message"`
		Body    []tsDiagnostic `json:"body"`
	}
	if err := s.tsserver(ctx, a.command, map[string]any{"file": a.file.Filename()}, &resp); err != nil {
		return nil, err
	}
	if !resp.Success {
		return nil, fmt.Errorf("%s of %s: %s", a.command, a.file.Filename(), resp.Message)
	}
	out := make([]protocol.Diagnostic, 0, len(resp.Body))
	for _, d := range resp.Body {
		out = append(out, d.protocol())
	}
	return out, nil
}

// protocol is d as typescript-language-server publishes it.
func (d tsDiagnostic) protocol() protocol.Diagnostic {
	pos := func(l, o uint32) protocol.Position {
		return protocol.Position{Line: max(l, 1) - 1, Character: max(o, 1) - 1}
	}
	sev := protocol.DiagnosticSeverityError
	switch d.Category {
	case "warning":
		sev = protocol.DiagnosticSeverityWarning
	case "suggestion":
		sev = protocol.DiagnosticSeverityHint
	case "message":
		sev = protocol.DiagnosticSeverityInformation
	}
	src := d.Source
	if src == "" {
		src = "typescript"
	}
	out := protocol.Diagnostic{
		Range:    protocol.Range{Start: pos(d.Start.Line, d.Start.Offset), End: pos(d.End.Line, d.End.Offset)},
		Severity: sev, Code: d.Code, Source: src, Message: d.Text,
	}
	if d.ReportsUnnecessary {
		out.Tags = append(out.Tags, protocol.DiagnosticTagUnnecessary)
	}
	if d.ReportsDeprecated {
		out.Tags = append(out.Tags, protocol.DiagnosticTagDeprecated)
	}
	return out
}

// tsserver sends command with args to tsserver through the server's
// typescript.tsserverRequest command and decodes its response into out.
func (s *server) tsserver(ctx context.Context, command string, args any, out any) error {
	var raw json.RawMessage
	params := map[string]any{"command": "typescript.tsserverRequest", "arguments": []any{command, args}}
	if _, err := s.conn.Call(ctx, "workspace/executeCommand", params, &raw); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.failed(command, err)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("tsserver answered %s with nothing", command)
	}
	return json.Unmarshal(raw, out)
}

// projectFiles is the files of the projects of anchors (open documents)
// that the server owns under its root, outside node_modules: each
// anchor's project as tsserver has it (projectInfo), sorted; an anchor
// of a project already listed is not asked again.
func (s *server) projectFiles(ctx context.Context, anchors []uri.URI) ([]uri.URI, error) {
	seen := map[uri.URI]bool{}
	var files []uri.URI
	asked := 0
	for _, a := range anchors {
		if seen[a] {
			continue
		}
		var resp struct {
			Success bool   `json:"success"`
			Message string `json:"message"`
			Body    struct {
				ConfigFileName string   `json:"configFileName"`
				FileNames      []string `json:"fileNames"`
			} `json:"body"`
		}
		err := s.tsserver(ctx, "projectInfo", map[string]any{"file": a.Filename(), "needFileNameList": true}, &resp)
		if err != nil || !resp.Success {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue // not in a project (gone since): its own check says so
		}
		asked++
		var mine []uri.URI
		for _, f := range resp.Body.FileNames {
			u := uri.File(f)
			if seen[u] {
				continue
			}
			seen[u] = true
			if s.ownsFile(f) {
				mine = append(mine, u)
			}
		}
		if !seen[a] { // the anchor is its project's, listed or not
			seen[a] = true
			if s.ownsFile(a.Filename()) {
				mine = append(mine, a)
			}
		}
		sort.Slice(mine, func(i, j int) bool { return mine[i] < mine[j] })
		files = append(files, mine...)
	}
	if asked == 0 && len(anchors) > 0 {
		return nil, fmt.Errorf("tsserver has no project for %s", anchors[0].Filename())
	}
	return files, nil
}

// ownsFile says whether the file at abs is one of the server's: under its
// root, not in node_modules, of a language it serves.
func (s *server) ownsFile(abs string) bool {
	rel, err := filepath.Rel(s.dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if part == "node_modules" {
			return false
		}
	}
	return s.own.spec.languageOf(rel) != ""
}

func containsURI(us []uri.URI, u uri.URI) bool {
	for _, x := range us {
		if x == u {
			return true
		}
	}
	return false
}

// maxAnchors bounds the files opened for tsserver to load the projects.
const maxAnchors = 20

// openAnchors opens in s, when it has no document open, the anchors of
// the projects under its root (projectAnchors) as they are on disk, save
// the files of skip: tsserver loads a project, and answers for its files,
// only once it was told of one of them.
func (m *Mux) openAnchors(ctx context.Context, s *server, skip []File) {
	s.mu.Lock()
	n := len(s.docs)
	s.mu.Unlock()
	if n > 0 {
		return
	}
	for _, rel := range m.projectAnchors(ctx, s.own) {
		if slices.ContainsFunc(skip, func(f File) bool { return f.Path == rel }) {
			continue
		}
		text, err := m.root.ReadText(rel)
		if err != nil {
			continue
		}
		if _, err := s.tell(ctx, m.docURI(rel), s.own.spec.languageOf(rel), text); err != nil {
			return // the check says the server failed
		}
	}
}

// projectAnchors picks, under o's root, a file of each project: for the
// root and each directory holding a tsconfig.json or jsconfig.json, the
// first file under it of its own language (TypeScript, not a declaration
// file, for a tsconfig; else any the server serves), outside
// node_modules and hidden directories; at most maxAnchors.
func (m *Mux) projectAnchors(ctx context.Context, o *owner) []string {
	start := o.dir
	if start == "" {
		start = "."
	}
	type project struct {
		dir, first, firstTS string
		ts                  bool
	}
	projects := []*project{{dir: start}}
	_ = m.root.Walk(ctx, start, func(rel string, d fs.DirEntry) error {
		name := d.Name()
		if d.IsDir() {
			if rel != start && (name == "node_modules" || strings.HasPrefix(name, ".")) {
				return workspace.SkipDir
			}
			return nil
		}
		switch name {
		case "tsconfig.json", "jsconfig.json":
			dir := path.Dir(rel)
			if dir == start {
				projects[0].ts = projects[0].ts || name == "tsconfig.json"
			} else if len(projects) < maxAnchors {
				projects = append(projects, &project{dir: dir, ts: name == "tsconfig.json"})
			}
			return nil
		}
		if o.spec.languageOf(rel) == "" {
			return nil
		}
		for _, p := range projects {
			if p.dir != "." && !strings.HasPrefix(rel, p.dir+"/") {
				continue
			}
			if p.first == "" {
				p.first = rel
			}
			if p.firstTS == "" && isTypeScript(name) {
				p.firstTS = rel
			}
		}
		return nil
	})
	var out []string
	for _, p := range projects {
		pick := p.first
		if p.ts && p.firstTS != "" {
			pick = p.firstTS
		}
		if pick != "" && !slices.Contains(out, pick) {
			out = append(out, pick)
		}
	}
	return out
}

// isTypeScript says whether name is a TypeScript source file, not a
// declaration file.
func isTypeScript(name string) bool {
	switch lang.NameOf(name) {
	case lang.TypeScript, lang.TSX:
		return !strings.Contains(strings.ToLower(name), ".d.")
	}
	return false
}

// reread makes s's tsserver read the files at rels, which it does not
// hold open, from disk now (it watches the disk itself, but in its own
// time): each is opened with its content on disk and closed again. The
// next check is due.
func (m *Mux) reread(ctx context.Context, s *server, rels []string) error {
	s.mu.Lock()
	s.dirty = true
	s.mu.Unlock()
	for _, rel := range rels {
		text, err := m.root.ReadText(rel)
		if err != nil {
			continue // gone since, or not text: the server's watch sees to it
		}
		u := m.docURI(rel)
		err = s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
			"textDocument": map[string]any{"uri": u, "languageId": s.own.spec.languageOf(rel), "version": 1, "text": string(text)},
		})
		if err == nil {
			err = s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
		}
		if err != nil {
			return s.failed("reread", err)
		}
	}
	return nil
}

// tsQuickFix is the title of the first fix tsserver offers for d in u
// ("" when none): asked of tsserver itself, since the server's own code
// actions fix only what it published, which for a server that checks the
// project may still be pending.
func (s *server) tsQuickFix(ctx context.Context, u uri.URI, d protocol.Diagnostic) string {
	code, ok := d.Code.(int)
	if !ok {
		if f, isFloat := d.Code.(float64); isFloat {
			code, ok = int(f), true
		}
	}
	if !ok {
		return ""
	}
	var resp struct {
		Success bool `json:"success"`
		Body    []struct {
			Description string `json:"description"`
		} `json:"body"`
	}
	args := map[string]any{
		"file":      u.Filename(),
		"startLine": d.Range.Start.Line + 1, "startOffset": d.Range.Start.Character + 1,
		"endLine": d.Range.End.Line + 1, "endOffset": d.Range.End.Character + 1,
		"errorCodes": []int{code},
	}
	if err := s.tsserver(ctx, "getCodeFixes", args, &resp); err != nil || !resp.Success {
		return ""
	}
	for _, f := range resp.Body {
		if f.Description != "" {
			return clip(f.Description)
		}
	}
	return ""
}

// warm checks s's project in the background, once, when s checks the
// project and has never been checked: a server started for a query is
// then warm for the first change, which needs no check of the project
// as it was. The check is owned by the Mux (Close waits for it).
func (m *Mux) warm(s *server) {
	if !s.own.spec.ChecksProject {
		return
	}
	s.mu.Lock()
	if s.checked || s.warming {
		s.mu.Unlock()
		return
	}
	s.warming = true
	s.mu.Unlock()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.jobs.Add(1)
	m.mu.Unlock()
	release := s.hold()
	go func() { // owned by the Mux (m.jobs); ends at jobLimit or Close
		defer m.jobs.Done()
		defer release()
		ctx, cancel := context.WithTimeout(m.life, jobLimit)
		defer cancel()
		s.checkIfDue(ctx)
	}()
}
