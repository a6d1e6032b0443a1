package lspmux

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Code actions: the server's organize-imports applied to content that is
// not on disk yet (a staged change), and the titles of the quick fixes it
// offers for diagnostics, as hints.

// organizes are, by language, the source actions that do only what a
// build needs, applied in turn: Go's organize-imports (goimports: add the
// missing imports, drop the unused ones, group and sort them as gofmt
// does); for TypeScript and JavaScript, tsserver's "add all missing
// imports" then "remove unused imports" (its organize-imports also sorts
// and merges every import, changes nobody asked for in a staged diff).
var organizes = map[string][]string{
	"go":              {"source.organizeImports"},
	"typescript":      tsOrganize,
	"typescriptreact": tsOrganize,
	"javascript":      tsOrganize,
	"javascriptreact": tsOrganize,
}

var tsOrganize = []string{"source.addMissingImports.ts", "source.removeUnusedImports.ts"}

// Organizes says whether cchub organizes the imports of rel's language
// (OrganizeImports) with its server.
func (m *Mux) Organizes(rel string) bool { return organizes[m.langOf(rel)] != nil }

// OrganizeImports applies the organize-imports action of each file's
// server (Go's) to the file's content in files, which need not be on disk:
// the server is told the content as an unsaved overlay, asked for the
// action over the whole document, and then told the file's content on
// disk again (or that it was closed, when it was not open before). All
// the files of one server are told together, so each is organized
// knowing the others' new content.
//
// The result has one File per file given, in order, with the organized
// content (the content given when the action changed nothing, when the
// file has no such action, or when it could not be had). err, when not
// nil, says which files were not organized and why (a missing server, one
// that did not answer within the Mux's timeout or ctx); the result is
// still usable. Deleted files are passed through.
func (m *Mux) OrganizeImports(ctx context.Context, files []File) ([]File, error) {
	out := append([]File(nil), files...)
	ctx, cancel := context.WithTimeout(ctx, m.organizeLim)
	defer cancel()
	type doc struct {
		i int
		u uri.URI
	}
	groups := map[string][]doc{}
	owners := map[string]*owner{}
	var order []string
	var why reasons
	for i, f := range files {
		if f.Deleted {
			continue
		}
		if organizes[m.langOf(f.Path)] == nil {
			continue
		}
		o, err := m.ownerOf(f.Path)
		if err != nil {
			why.add(err.Error(), f.Path)
			continue
		}
		k := o.key()
		if groups[k] == nil {
			order = append(order, k)
			owners[k] = o
		}
		groups[k] = append(groups[k], doc{i: i, u: m.docURI(f.Path)})
	}
	for _, k := range order {
		o := owners[k]
		s, note, err := m.server(ctx, o)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("%s was not ready within %v", o.spec.Name, m.organizeLim)
			}
			if note != "" {
				err = fmt.Errorf("%s; %w", note, err)
			}
			for _, d := range groups[k] {
				why.add(err.Error(), files[d.i].Path)
			}
			continue
		}
		// The overlays change what the server publishes: a change's
		// job must not measure across them, so they take their turn in
		// the server's line of changes.
		endTurn, err := m.turn(ctx, k)
		if err != nil {
			for _, d := range groups[k] {
				why.add(fmt.Sprintf("%s was busy with an earlier change for %v", o.spec.Name, m.organizeLim), files[d.i].Path)
			}
			continue
		}
		release := s.hold()
		var ovs []docOverlay
		for _, d := range groups[k] {
			ovs = append(ovs, docOverlay{u: d.u, rel: files[d.i].Path, text: files[d.i].Data})
		}
		done, err := s.organize(ctx, o.lang, ovs)
		m.restore(o.key(), s, o.lang, ovs)
		release()
		endTurn()
		for j, d := range groups[k] {
			if done[j] != nil {
				out[d.i].Data = done[j]
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("%s did not answer within %v", o.spec.Name, m.organizeLim)
			}
			for j, d := range groups[k] {
				if done[j] == nil {
					why.add(err.Error(), files[d.i].Path)
				}
			}
		}
	}
	return out, why.err()
}

// reasons are why files were not organized, each with its files, in the
// order first met.
type reasons struct {
	order []string
	files map[string][]string
}

func (r *reasons) add(why, rel string) {
	if r.files == nil {
		r.files = map[string][]string{}
	}
	if r.files[why] == nil {
		r.order = append(r.order, why)
	}
	r.files[why] = append(r.files[why], rel)
}

// err says it in one sentence: "a.go, b.go: why; 40 files (c.go, d.go,
// …): why".
func (r *reasons) err() error {
	if len(r.order) == 0 {
		return nil
	}
	var parts []string
	for _, why := range r.order {
		fs := r.files[why]
		which := strings.Join(fs, ", ")
		if len(fs) > 3 {
			which = fmt.Sprintf("%s (%s, …)", count(len(fs), "file"), strings.Join(fs[:2], ", "))
		}
		parts = append(parts, which+": "+why)
	}
	return errors.New(strings.Join(parts, "; "))
}

// langOf is the language id of rel as the server that would own it
// names it ("" when none does).
func (m *Mux) langOf(rel string) string {
	for i := range m.specs {
		if l := m.specs[i].languageOf(rel); l != "" && !m.specs[i].Disabled {
			return l
		}
	}
	return ""
}

// count is n things: "1 file", "3 files".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// docOverlay is content told to a server that is not on disk.
type docOverlay struct {
	u       uri.URI
	rel     string
	text    []byte
	version int32 // the version it was told as
	since   told  // where the server stood when it was told
	wasOpen bool  // the server had the document open before
	told    bool
}

// organize tells s the overlays and asks for each one's organizing
// actions, one kind at a time over all of them: done[i] is ovs[i]'s
// organized content, nil when it was not had (err says why for the first
// such file).
//
// TypeScript's actions are fixes of the document's diagnostics: the
// server answers nothing while the diagnostics of the content it was told
// are pending, so before each kind cchub waits until they are published
// and settled, once for all the documents a kind is asked of.
func (s *server) organize(ctx context.Context, lang string, ovs []docOverlay) ([][]byte, error) {
	done := make([][]byte, len(ovs))
	text := make([][]byte, len(ovs))
	failed := make([]bool, len(ovs))
	for i := range ovs {
		if err := s.overlay(ctx, lang, &ovs[i]); err != nil {
			return done, err
		}
		text[i] = ovs[i].text
	}
	var first error
	fail := func(i int, err error) {
		failed[i] = true
		if first == nil {
			first = fmt.Errorf("%s: %w", ovs[i].rel, err)
		}
	}
	for k, kind := range organizes[lang] {
		docs := map[uri.URI]told{}
		for i := range ovs {
			if failed[i] {
				continue
			}
			if k > 0 && !bytes.Equal(text[i], ovs[i].text) {
				// The server is told the previous kind's result first.
				ovs[i].text = text[i]
				wasOpen := ovs[i].wasOpen
				err := s.overlay(ctx, lang, &ovs[i])
				ovs[i].wasOpen = wasOpen // as before the first overlay, for restore
				if err != nil {
					return done, err
				}
			}
			docs[ovs[i].u] = ovs[i].since
		}
		if fixesDiagnostics[lang] && len(docs) > 0 && !s.waitPublished(ctx, docs) {
			if ctx.Err() != nil {
				return done, ctx.Err()
			}
			return done, fmt.Errorf("%s stopped before it published the diagnostics %s fixes", s.own.spec.Name, kind)
		}
		for i := range ovs {
			if failed[i] {
				continue
			}
			edits, err := s.sourceAction(ctx, ovs[i], kind)
			if err == nil && edits != nil {
				var out string
				out, err = applyEdits(text[i], edits)
				text[i] = []byte(out)
			}
			if err != nil {
				fail(i, err)
				if ctx.Err() != nil {
					return done, first
				}
			}
		}
	}
	for i := range ovs {
		if !failed[i] {
			done[i] = text[i]
		}
	}
	return done, first
}

// fixesDiagnostics names the languages whose organizing actions fix the
// document's published diagnostics (typescript-language-server's
// add-missing and remove-unused imports), so that they are asked only
// once those are in.
var fixesDiagnostics = map[string]bool{"typescript": true, "typescriptreact": true, "javascript": true, "javascriptreact": true}

// overlay tells s that ov.u holds ov.text, unsaved.
func (s *server) overlay(ctx context.Context, lang string, ov *docOverlay) error {
	s.mu.Lock()
	since := told{seq: s.seq, begun: s.begun}
	v, open := s.docs[ov.u]
	v++
	s.docs[ov.u] = v
	s.used = time.Now()
	s.mu.Unlock()
	since.version = v
	ov.version, ov.since, ov.wasOpen, ov.told = v, since, open, true
	var err error
	if !open {
		err = s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
			"textDocument": map[string]any{"uri": ov.u, "languageId": lang, "version": v, "text": string(ov.text)},
		})
	} else {
		err = s.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": ov.u, "version": v},
			"contentChanges": []map[string]any{{"text": string(ov.text)}},
		})
	}
	if err != nil {
		return s.failed("overlay", err)
	}
	return nil
}

// restore tells s the disk content of the overlaid documents again: a
// document open before gets its content on disk as a new version, one
// that was not is closed (the server reads the disk again). It runs
// whatever ctx did (a server must not keep content that is not on disk),
// and waits, up to restoreTime, until the server has published the
// documents' diagnostics anew, so that what it says of them after is of
// the disk, not of the overlay.
func (m *Mux) restore(key string, s *server, lang string, ovs []docOverlay) {
	ctx, cancel := context.WithTimeout(context.Background(), restoreTime)
	defer cancel()
	docs := map[uri.URI]told{}
	for _, ov := range ovs {
		if !ov.told {
			continue
		}
		if ov.wasOpen {
			if text, err := m.root.ReadText(ov.rel); err == nil {
				if since, err := s.tell(ctx, ov.u, lang, text); err == nil {
					docs[ov.u] = since
				}
				continue
			}
		}
		s.mu.Lock()
		since := told{seq: s.seq, begun: s.begun}
		delete(s.docs, ov.u)
		s.mu.Unlock()
		if s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": ov.u}}) == nil {
			docs[ov.u] = since
		}
	}
	if len(docs) > 0 && s.waitPublished(ctx, docs) && !s.own.spec.ChecksProject {
		// Settled on the disk's content, by the standard a change's
		// job settles by: the change that follows (organizing imports
		// comes before an edit's write) starts from here without
		// waiting for a quiet spell (gopls: 300 ms an edit).
		m.markSettled(key, s)
	}
}

// restoreTime bounds restore.
const restoreTime = 2 * time.Second

// textEdit is an LSP TextEdit.
type textEdit struct {
	Range   lspRange `json:"range"`
	NewText string   `json:"newText"`
}

// workspaceEdit is an LSP WorkspaceEdit, as far as cchub reads one.
type workspaceEdit struct {
	Changes         map[string][]textEdit `json:"changes"`
	DocumentChanges []struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version *int32 `json:"version"`
		} `json:"textDocument"`
		Edits []textEdit `json:"edits"`
		Kind  string     `json:"kind"`
	} `json:"documentChanges"`
}

// codeAction is an LSP CodeAction, or a Command (then Command is a
// string and Arguments are set).
type codeAction struct {
	Title       string                `json:"title"`
	Kind        string                `json:"kind"`
	IsPreferred bool                  `json:"isPreferred"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
	Edit        *workspaceEdit        `json:"edit"`
	Command     json.RawMessage       `json:"command"`
	Data        json.RawMessage       `json:"data"`
}

// editsFor are we's edits of the document u, which must be at version v
// when the edit names one. A WorkspaceEdit that creates, renames or
// deletes files is refused.
func (we *workspaceEdit) editsFor(u uri.URI, v int32) ([]textEdit, error) {
	var out []textEdit
	for k, es := range we.Changes {
		if sameURI(k, u) {
			out = append(out, es...)
		}
	}
	for _, dc := range we.DocumentChanges {
		if dc.Kind != "" {
			return nil, fmt.Errorf("the action would %s files", dc.Kind)
		}
		if !sameURI(dc.TextDocument.URI, u) {
			continue
		}
		if dc.TextDocument.Version != nil && *dc.TextDocument.Version != 0 && *dc.TextDocument.Version != v {
			return nil, errors.New("the document changed while the server was asked; ask again")
		}
		out = append(out, dc.Edits...)
	}
	return out, nil
}

func sameURI(a string, u uri.URI) bool {
	return a == string(u) || uri.URI(a).Filename() == u.Filename()
}

// sourceAction asks s for the action of kind over the whole document ov
// and returns its edits of the document: nil when the server offers no
// such action, empty when it offers one that changes nothing.
func (s *server) sourceAction(ctx context.Context, ov docOverlay, kind string) ([]textEdit, error) {
	starts := lineStarts(ov.text)
	last := len(starts) - 1
	end := map[string]any{"line": last, "character": utf16Len(ov.text[starts[last]:])}
	params := map[string]any{
		"textDocument": map[string]any{"uri": ov.u},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": end},
		"context":      map[string]any{"diagnostics": []any{}, "only": []string{kind}},
	}
	var raw json.RawMessage
	if _, err := s.conn.Call(ctx, "textDocument/codeAction", params, &raw); err != nil {
		return nil, s.failed("codeAction", err)
	}
	var actions []codeAction
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil // no actions
	}
	if err := json.Unmarshal(raw, &actions); err != nil {
		return nil, fmt.Errorf("the server's code actions do not read: %v", err)
	}
	for _, a := range actions {
		if a.Kind != kind && !strings.HasPrefix(a.Kind, kind+".") {
			continue
		}
		if a.Edit == nil && len(a.Data) > 0 {
			// The edit is computed on request (codeAction/resolve).
			var resolved codeAction
			if _, err := s.conn.Call(ctx, "codeAction/resolve", a, &resolved); err != nil {
				return nil, s.failed("codeAction/resolve", err)
			}
			a = resolved
		}
		if a.Edit == nil {
			return nil, fmt.Errorf("the server offers %q as a command, which cchub does not run", a.Title)
		}
		edits, err := a.Edit.editsFor(ov.u, ov.version)
		if err != nil {
			return nil, err
		}
		if edits == nil {
			edits = []textEdit{}
		}
		return edits, nil
	}
	return nil, nil
}

// applyEdits applies LSP edits (0-based lines, UTF-16 characters) to text.
func applyEdits(text []byte, es []textEdit) (string, error) {
	starts := lineStarts(text)
	edits := make([]udiff.Edit, 0, len(es))
	for _, e := range es {
		edits = append(edits, udiff.Edit{
			Start: byteOff(text, starts, e.Range.Start.Line, e.Range.Start.Character),
			End:   byteOff(text, starts, e.Range.End.Line, e.Range.End.Character),
			New:   e.NewText,
		})
	}
	return udiff.Apply(string(text), edits)
}

// utf16Len is the length of b in UTF-16 code units.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		n++
		if r >= 0x10000 {
			n++
		}
		b = b[size:]
	}
	return n
}

// quickFixTime bounds QuickFixes: hints must never hold an answer up.
const quickFixTime = 300 * time.Millisecond

// maxFixAsks is how many diagnostics QuickFixes asks about at most.
const maxFixAsks = 20

// maxFixTitle is the longest quick fix title QuickFixes gives whole.
const maxFixTitle = 80

// QuickFixes returns, for diagnostics of path as a Report gives them, the
// title of a quick fix its server offers for each one that has one, by
// index in diags: the server's preferred fix, else its first; titles
// longer than 80 characters are cut with "…". Only code actions of kind
// quickfix count. It asks only a server that is running (it starts
// none), for the content the server has of the file, and takes at most
// 300 ms whatever the server does: what had no answer by then has no
// hint. Only the first 20 diagnostics are asked about (put the ones that
// matter first). Nothing is applied.
func (m *Mux) QuickFixes(ctx context.Context, path string, diags []Diagnostic) map[int]string {
	if len(diags) == 0 {
		return nil
	}
	o, err := m.ownerOf(path)
	if err != nil {
		return nil
	}
	m.mu.Lock()
	s := m.servers[o.key()]
	m.mu.Unlock()
	if s == nil || !s.alive() {
		return nil
	}
	defer s.hold()()
	ctx, cancel := context.WithTimeout(ctx, quickFixTime)
	defer cancel()
	text, err := m.root.ReadText(path)
	if err != nil {
		return nil
	}
	u := m.docURI(path)
	s.mu.Lock()
	items := s.diags[u].items
	s.mu.Unlock()
	fixes := map[int]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, d := range diags[:min(len(diags), maxFixAsks)] {
		if d.Path != "" && d.Path != path {
			continue
		}
		raw := rawDiagnostic(path, text, items, d)
		wg.Add(1)
		go func() { // owned: waited for below, ended by ctx
			defer wg.Done()
			if title := s.quickFix(ctx, u, raw); title != "" {
				mu.Lock()
				fixes[i] = title
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(fixes) == 0 {
		return nil
	}
	return fixes
}

// rawDiagnostic is the server's own diagnostic that d was converted from
// (servers match what a code action is asked for against what they
// published, data included), or one made from d when there is none.
func rawDiagnostic(path string, text []byte, items []protocol.Diagnostic, d Diagnostic) protocol.Diagnostic {
	for _, it := range items {
		c := convert(path, text, []protocol.Diagnostic{it})[0]
		if c.Line == d.Line && c.Col == d.Col && c.EndLine == d.EndLine && c.EndCol == d.EndCol && c.Message == d.Message && c.Code == d.Code && c.Severity == d.Severity {
			return it
		}
	}
	pos := func(line, col int) protocol.Position {
		p := lspPos(text, line, col)
		return protocol.Position{Line: uint32(p["line"].(int)), Character: uint32(p["character"].(int))}
	}
	sev := map[string]protocol.DiagnosticSeverity{"error": protocol.DiagnosticSeverityError, "warning": protocol.DiagnosticSeverityWarning, "info": protocol.DiagnosticSeverityInformation, "hint": protocol.DiagnosticSeverityHint}[d.Severity]
	raw := protocol.Diagnostic{
		Range:    protocol.Range{Start: pos(d.Line, d.Col), End: pos(d.EndLine, d.EndCol)},
		Severity: sev, Source: d.Source, Message: d.Message,
	}
	if d.Code != "" {
		raw.Code = d.Code
	}
	return raw
}

// quickFix is the title of the quick fix s offers for d in u ("" when
// none, or no answer in time).
func (s *server) quickFix(ctx context.Context, u uri.URI, d protocol.Diagnostic) string {
	if s.own.spec.ChecksProject {
		return s.tsQuickFix(ctx, u, d)
	}
	params := map[string]any{
		"textDocument": map[string]any{"uri": u},
		"range":        d.Range,
		"context":      map[string]any{"diagnostics": []protocol.Diagnostic{d}, "only": []string{"quickfix"}},
	}
	var raw json.RawMessage
	if _, err := s.conn.Call(ctx, "textDocument/codeAction", params, &raw); err != nil || len(raw) == 0 {
		return ""
	}
	var actions []codeAction
	if json.Unmarshal(raw, &actions) != nil {
		return ""
	}
	best := ""
	for _, a := range actions {
		if a.Kind != "quickfix" && !strings.HasPrefix(a.Kind, "quickfix.") || a.Title == "" {
			continue
		}
		if len(a.Diagnostics) > 0 && !namesDiag(a.Diagnostics, d) {
			continue // a fix of another diagnostic in the range
		}
		if a.IsPreferred {
			return clip(a.Title)
		}
		if best == "" {
			best = clip(a.Title)
		}
	}
	return best
}

// namesDiag says whether ds names d.
func namesDiag(ds []protocol.Diagnostic, d protocol.Diagnostic) bool {
	for _, x := range ds {
		if strings.TrimSpace(x.Message) == strings.TrimSpace(d.Message) && x.Range.Start == d.Range.Start {
			return true
		}
	}
	return false
}

// clip is a title on one line, at most maxFixTitle characters.
func clip(title string) string {
	title = strings.Join(strings.Fields(title), " ")
	if utf8.RuneCountInString(title) <= maxFixTitle {
		return title
	}
	r := []rune(title)
	return strings.TrimSpace(string(r[:maxFixTitle-1])) + "…"
}
