// Command diagtruth measures whether the diagnostics an edit's answer
// calls new tell the truth (issue 23's "Figures to report"). It is a
// benchmark, run by `make bench`; it asserts nothing.
//
// For each language it copies a real project (cobra from the module
// cache, PyJWT as Debian ships it, immer's TypeScript sources and qs's
// JavaScript, checked with checkJs, from npm)
// and makes a fixed run of edits the way agents err: a comment-only edit
// in a file with problems that were there before, a signature change
// that breaks callers in other files, a fix of one caller, a second copy
// of an error already present, an import removed that is still used, and
// the undo of each. The ground truth of each edit is the language's own
// checker (go build/test/vet, the pyright CLI, tsc) run on the whole
// project before and after it, on a separate copy, compared as counts
// per (file, normalized message): see truth.go.
//
// Then the same edits are made through `cchub mcp`, as an agent's
// client makes them (newline-delimited JSON-RPC on stdio, the edit tool),
// in four conditions:
//
//   - warm: one session; the server is loaded (an lsp call) before the
//     first edit;
//   - cold: a new process for every edit, the CLI's `cchub edit` in one
//     named run (--run), so each edit starts its server and the run's
//     ledger is kept in the store between them;
//   - first: a new `cchub mcp` process for every edit, so each edit is
//     the first of an agent's session (MCP sessions do not join named
//     runs);
//   - loaded: as warm, with both cores kept busy by a child process
//     spinning two goroutines.
//
// For each edit it records what the answer called new, what truly is,
// what was old but called new, what was missed, what the answer cut
// ("and N more"), whether the missed ones arrived in the next answer, and
// the time the edit call took beyond a bare write of the same change.
//
//	go run ./bench/diagtruth [-lang go,py,ts,js] [-cond warm,cold,first,loaded] [-json] [-v]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	copies "cchub/bench/corpus"
	"cchub/proc"
	"cchub/trust"
)

// result is one edit in one condition.
type result struct {
	Lang         string   `json:"lang"`
	Server       string   `json:"server"`
	Cond         string   `json:"cond"`
	N            int      `json:"n"` // 1-based position in the run
	Kind         string   `json:"kind"`
	Path         string   `json:"path"`
	TrulyNew     int      `json:"truly_new"`       // errors and warnings the checker has more of after the edit, beyond what the run began with
	Back         int      `json:"back"`            // more after the edit, but only back to what the run began with
	ReportedBack int      `json:"reported_back"`   // of Back, called new
	Reported     int      `json:"reported"`        // errors and warnings the answer called new (copies counted)
	Correct      int      `json:"correct"`         // reported and truly new
	OldAsNew     int      `json:"old_as_new"`      // reported, but present before the edit (and not a late arrival)
	Other        int      `json:"other"`           // reported, but not what the checker has (a server's own analysis)
	Missed       int      `json:"missed"`          // truly new, not in this answer
	Late         int      `json:"late_arrived"`    // of Missed, in the next answer
	Cut          int      `json:"cut"`             // the answer's "and N more"
	Hints        int      `json:"hints_reported"`  // infos and hints called new (not judged)
	Notes        []string `json:"notes,omitempty"` // the answer's notes: not ready, …
	Error        string   `json:"error,omitempty"` // the call failed or the file came out other than a plain replace
	CallMs       float64  `json:"call_ms"`
	BareMs       float64  `json:"bare_write_ms"`
	AddedMs      float64  `json:"added_ms"`
	SettleMs     float64  `json:"bare_settle_ms"` // the same edit straight to the server, warm (settle.go)
	// Steps is the hub's own time per step of the write path (warm and
	// loaded: $CCHUB_STEPS of the session), in milliseconds.
	Steps  map[string]float64 `json:"steps_ms,omitempty"`
	Answer string             `json:"answer,omitempty"`
	// What was judged wrong, as "path: message ×N".
	OldList    []string `json:"old_as_new_list,omitempty"`
	OtherList  []string `json:"other_list,omitempty"`
	MissedList []string `json:"missed_list,omitempty"`
	missedSet  counts
}

func main() {
	langs := flag.String("lang", "go,py,ts,js", "languages to run, comma-separated: go (gopls on cobra), py (pyright on PyJWT), ts (typescript-language-server on immer), js (typescript-language-server on qs's JavaScript, checkJs)")
	conds := flag.String("cond", "warm,cold,first,loaded", "conditions, comma-separated: warm, cold, first, loaded")
	asJSON := flag.Bool("json", false, "print every edit's record and the summary as JSON instead of the tables")
	verbose := flag.Bool("v", false, "print each answer and its truth to stderr")
	cchub := flag.String("cchub", "", "the cchub binary to measure (default: built from the checkout in the current directory)")
	tools := flag.String("tools", ".tools", "the tools directory: bin/ (gopls, pyright-langserver, typescript-language-server), lsp/node_modules (pyright, tsc), deb/ (PyJWT)")
	keep := flag.Bool("keep", false, "keep the temporary copies (their path is printed)")
	callTimeout := flag.Duration("timeout", 3*time.Minute, "bound of one tool call")
	settle := flag.Bool("settle", true, "also time each edit straight through the language server, without cchub (the bare settle)")
	from := flag.String("from", "", "print the tables of a run saved with -json (FILE) instead of running")
	spin := flag.Int("spin", 0, "internal: spin this many goroutines until stopped (the loaded condition's child)")
	flag.Parse()
	if *spin > 0 {
		spinForever(*spin)
	}
	if *from != "" {
		b, err := os.ReadFile(*from)
		var saved struct{ Edits []*result }
		if err == nil {
			err = json.Unmarshal(b, &saved)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "diagtruth: -from %s: %v (give a file written by -json)\n", *from, err)
			os.Exit(1)
		}
		printTable(summarize(saved.Edits))
		return
	}
	ctx := context.Background()
	if err := mainErr(ctx, split(*langs), split(*conds), *asJSON, *verbose, *cchub, *tools, *keep, *settle, *callTimeout); err != nil {
		fmt.Fprintln(os.Stderr, "diagtruth:", err)
		os.Exit(1)
	}
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func mainErr(ctx context.Context, langs, conds []string, asJSON, verbose bool, cchub, tools string, keep, settle bool, callTimeout time.Duration) error {
	for _, c := range conds {
		if !slices.Contains([]string{"warm", "cold", "first", "loaded"}, c) {
			return fmt.Errorf("unknown condition %q: use warm, cold, first or loaded", c)
		}
	}
	tools, err := filepath.Abs(tools)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "diagtruth-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "copies kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	if cchub == "" {
		cchub = filepath.Join(tmp, "cchub")
		fmt.Fprintln(os.Stderr, "building cchub from this checkout…")
		if out, err := exec.Command("go", "build", "-o", cchub, "./cmd/cchub").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/cchub: %v\n%s(run from the repository's root, or pass -cchub)", err, out)
		}
	}
	env := append(os.Environ(),
		"PATH="+filepath.Join(tools, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		trust.EnvDir+"="+filepath.Join(tmp, "config"))
	var all []*result
	for _, c := range corpora(tools) {
		if !slices.Contains(langs, c.Lang) {
			continue
		}
		if c.Lang == "py" {
			pyDir = fetchPy(ctx, tools)
		}
		if c.Lang == "ts" {
			if tsDir, err = fetchTS(ctx, filepath.Join(tools, "corpus")); err != nil {
				return err
			}
		}
		if c.Lang == "js" {
			if jsDir, err = fetchJS(ctx, filepath.Join(tools, "corpus")); err != nil {
				return err
			}
		}
		rs, err := runCorpus(ctx, c, conds, tmp, cchub, env, verbose, settle, callTimeout)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Lang, err)
		}
		all = append(all, rs...)
	}
	sum := summarize(all)
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"edits": all, "summary": sum})
	}
	printTable(sum)
	return nil
}

// state is the checker's view of the project after n edits, and each
// edited file's expected text.
type state struct {
	diags counts
	text  string // the edited file after the edit
	bare  time.Duration
}

func runCorpus(ctx context.Context, c *corpus, conds []string, tmp, cchub string, env []string, verbose, settle bool, callTimeout time.Duration) ([]*result, error) {
	base := filepath.Join(tmp, c.Lang, "base")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "%s: copying the project, then the checker before and after each of %d edits…\n", c.Lang, len(c.edits))
	if err := c.make(ctx, base); err != nil {
		return nil, err
	}
	for _, e := range c.seeds {
		if err := apply(base, e); err != nil {
			return nil, err
		}
	}
	// The truth, on a copy of its own.
	truth := filepath.Join(tmp, c.Lang, "truth")
	if err := copies.CopyTree(base, truth, copies.Copy{}); err != nil {
		return nil, err
	}
	d0, err := c.check(ctx, truth, env)
	if err != nil {
		return nil, err
	}
	states := []state{{diags: d0}}
	for _, e := range c.edits {
		start := time.Now()
		if err := apply(truth, e); err != nil {
			return nil, err
		}
		bare := time.Since(start)
		d, err := c.check(ctx, truth, env)
		if err != nil {
			return nil, err
		}
		b, _ := os.ReadFile(filepath.Join(truth, filepath.FromSlash(e.Path)))
		states = append(states, state{diags: d, text: string(b), bare: bare})
	}
	if verbose {
		fmt.Fprintf(os.Stderr, "%s: %d errors and warnings before the first edit\n", c.Lang, d0.total())
	}
	var settles []time.Duration
	if settle {
		fmt.Fprintf(os.Stderr, "%s: the bare settle, straight through %s…\n", c.Lang, c.Server)
		dir := filepath.Join(tmp, c.Lang, "bare")
		if err := copies.CopyTree(base, dir, copies.Copy{}); err != nil {
			return nil, err
		}
		if settles, err = bareSettle(ctx, c, dir, env); err != nil {
			return nil, fmt.Errorf("bare settle: %w", err)
		}
	}
	var out []*result
	for _, cond := range conds {
		fmt.Fprintf(os.Stderr, "%s: %s…\n", c.Lang, cond)
		dir := filepath.Join(tmp, c.Lang, cond)
		if err := copies.CopyTree(base, dir, copies.Copy{}); err != nil {
			return nil, err
		}
		rs, err := runCondition(ctx, c, cond, dir, cchub, env, states, verbose, callTimeout)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if r.N <= len(settles) {
				r.SettleMs = ms(settles[r.N-1])
			}
		}
		out = append(out, rs...)
	}
	return out, nil
}

// runCondition makes c's edits through cchub mcp in dir and judges each
// answer against states.
func runCondition(ctx context.Context, c *corpus, cond, dir, cchub string, env []string, states []state, verbose bool, callTimeout time.Duration) ([]*result, error) {
	if cond == "loaded" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		spinner, err := proc.Command(self, "-spin", fmt.Sprint(runtime.NumCPU())).Start(ctx)
		if err != nil {
			return nil, fmt.Errorf("start the busy loops: %w", err)
		}
		defer spinner.Stop()
	}
	var s *session
	var err error
	stepsFile := filepath.Join(filepath.Dir(dir), "steps-"+cond+".jsonl")
	if cond == "warm" || cond == "loaded" {
		if s, err = startSession(ctx, cchub, dir, append(env[:len(env):len(env)], "CCHUB_STEPS="+stepsFile)); err != nil {
			return nil, err
		}
		defer s.close()
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		text, isErr, err := s.tool(cctx, "lsp", c.warm)
		cancel()
		if err != nil || isErr {
			return nil, fmt.Errorf("warming %s up with an lsp call: %v %s", c.Server, err, text)
		}
		// Let the server finish the diagnostics of its first load.
		time.Sleep(3 * time.Second)
	}
	var out []*result
	var prev *result
	for i, e := range c.edits {
		r := &result{Lang: c.Lang, Server: c.Server, Cond: cond, N: i + 1, Kind: e.Kind, Path: e.Path}
		if cond == "first" {
			if s, err = startSession(ctx, cchub, dir, env); err != nil {
				return nil, err
			}
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		start := time.Now()
		var text string
		var isErr bool
		if cond == "cold" {
			text, isErr, err = cliEdit(cctx, cchub, dir, env, e)
		} else {
			text, isErr, err = s.tool(cctx, "edit", map[string]any{"path": e.Path, "old_string": e.Old, "new_string": e.New})
		}
		took := time.Since(start)
		cancel()
		if cond == "first" {
			s.close()
		}
		r.CallMs, r.BareMs = ms(took), ms(states[i+1].bare)
		r.AddedMs = ms(took - states[i+1].bare)
		r.Answer = text
		switch {
		case err != nil:
			r.Error = err.Error()
		case isErr:
			r.Error = "the edit was refused: " + firstLine(text)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.Path))); string(b) != states[i+1].text {
			if r.Error == "" {
				r.Error = "the file differs from a plain replace of the same text"
			}
		}
		judge(r, parseAnswer(text), states[0].diags, states[i].diags, states[i+1].diags, prev)
		if verbose {
			fmt.Fprintf(os.Stderr, "--- %s %s #%d %s %s (%.0f ms)\n%s\n    truly new: %v\n    old as new: %q\n    other: %q\n    missed: %q\n", c.Lang, cond, r.N, e.Kind, e.Path, r.CallMs, strings.TrimSpace(text), diff(states[i].diags, states[i+1].diags), r.OldList, r.OtherList, r.MissedList)
		}
		out = append(out, r)
		if r.Error != "" {
			fmt.Fprintf(os.Stderr, "%s %s: edit %d (%s) failed: %s; the rest of this condition is skipped\n", c.Lang, cond, r.N, e.Kind, r.Error)
			break
		}
		prev = r
	}
	if b, err := os.ReadFile(stepsFile); err == nil {
		// One line per write, in the order the edits were made.
		for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var st map[string]any
			if i >= len(out) || json.Unmarshal([]byte(line), &st) != nil {
				break
			}
			out[i].Steps = map[string]float64{}
			for k, v := range st {
				if f, ok := v.(float64); ok {
					out[i].Steps[k] = f
				}
			}
		}
	}
	return out, nil
}

// cliEdit makes e with the CLI, `cchub edit`, in the named run
// "diagtruth": a new process, so a cold server, but one run across the
// edits (the store keeps what it was told).
func cliEdit(ctx context.Context, cchub, dir string, env []string, e edit) (string, bool, error) {
	var out, errOut tailBuf
	out.max, errOut.max = 1<<20, 8<<10
	cmd := proc.Command(cchub, "--root", dir, "--run", "diagtruth", "edit", e.Path, "--old", e.Old, "--new", e.New)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &out, &errOut
	p, err := cmd.Start(ctx)
	if err != nil {
		return "", false, err
	}
	if err := p.Wait(); err != nil {
		return out.String() + "\n" + errOut.String(), true, ctx.Err()
	}
	return out.String(), false, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// judge sorts what answer a called new against the truth: the checker's
// diagnostics before and after the edit, and at the start of the run
// (base). What the edit adds is truly new, except copies that only come
// back to what the project had before the run began (a warning the
// checker could not see while an earlier edit broke its package, an
// error an undo restores): those are "back", neither required nor
// wrong to report, since "new" and "never repeat news" disagree on
// them. What the previous answer missed and this one reports is a late
// arrival, credited to the previous edit.
func judge(r *result, a answer, base, before, after counts, prev *result) {
	truly, back := counts{}, counts{}
	for k, n := range diff(before, after) {
		beyond := max(0, after[k]-max(before[k], base[k]))
		if beyond > 0 {
			truly[k] = beyond
		}
		if n > beyond {
			back[k] = n - beyond
		}
	}
	r.TrulyNew, r.Back = truly.total(), back.total()
	r.Cut, r.Hints, r.Notes = a.Cut, a.Hints, a.Notes
	rep := counts{}
	for k, n := range a.New {
		rep[unclip(k, before, after)] += n
	}
	r.Reported = rep.total()
	for k, n := range rep {
		ok := min(n, truly[k])
		r.Correct += ok
		excess := n - ok
		b := min(excess, back[k])
		r.ReportedBack += b
		excess -= b
		if prev != nil && prev.missedSet[k] > 0 {
			l := min(excess, prev.missedSet[k])
			prev.Late += l
			prev.missedSet[k] -= l
			excess -= l
		}
		old := min(excess, before[k])
		r.OldAsNew += old
		r.Other += excess - old
		r.OldList = appendKey(r.OldList, k, old)
		r.OtherList = appendKey(r.OtherList, k, excess-old)
	}
	r.missedSet = counts{}
	for k, n := range truly {
		if m := n - min(n, rep[k]); m > 0 {
			r.missedSet[k] = m
			r.Missed += m
			r.MissedList = appendKey(r.MissedList, k, m)
		}
	}
	sort.Strings(r.OldList)
	sort.Strings(r.OtherList)
	sort.Strings(r.MissedList)
}

func appendKey(list []string, k key, n int) []string {
	if n <= 0 {
		return list
	}
	return append(list, fmt.Sprintf("%s: %s ×%d", k.Path, k.Msg, n))
}

// unclip maps a message the answer cut at its length bound ("…") to the
// checker's message it begins, in the same file.
func unclip(k key, sets ...counts) key {
	p, ok := strings.CutSuffix(k.Msg, "…")
	if !ok {
		return k
	}
	for _, s := range sets {
		for c := range s {
			if c.Path == k.Path && strings.HasPrefix(c.Msg, p) {
				return c
			}
		}
	}
	return k
}

// row is the summary of one server in one condition.
type row struct {
	Server     string  `json:"server"`
	Cond       string  `json:"cond"`
	Edits      int     `json:"edits"`
	Failed     int     `json:"failed"`
	TrulyNew   int     `json:"truly_new"`
	Back       int     `json:"back"`
	RepBack    int     `json:"reported_back"`
	Reported   int     `json:"reported"`
	Correct    int     `json:"correct"`
	OldAsNew   int     `json:"old_as_new"`
	Other      int     `json:"other"`
	Missed     int     `json:"missed"`
	Cut        int     `json:"cut"`
	Late       int     `json:"late_arrived"`
	Noted      int     `json:"answers_with_notes"`
	P50AddedMs float64 `json:"p50_added_ms"`
	P90AddedMs float64 `json:"p90_added_ms"`
	P50Settle  float64 `json:"p50_bare_settle_ms"`
	// P50Steps is the p50 of each step of the write path (result.Steps).
	P50Steps map[string]float64 `json:"p50_steps_ms,omitempty"`
}

func summarize(rs []*result) []row {
	var rows []row
	idx := map[string]int{}
	added := map[string][]float64{}
	settles := map[string][]float64{}
	steps := map[string]map[string][]float64{}
	for _, r := range rs {
		server := r.Server
		if r.Lang == "js" {
			server += " (JS)" // the TypeScript server's other corpus
		}
		id := server + "\x00" + r.Cond
		i, ok := idx[id]
		if !ok {
			i = len(rows)
			idx[id] = i
			rows = append(rows, row{Server: server, Cond: r.Cond})
		}
		w := &rows[i]
		w.Edits++
		if r.Error != "" {
			w.Failed++
		}
		w.TrulyNew += r.TrulyNew
		w.Back += r.Back
		w.RepBack += r.ReportedBack
		w.Reported += r.Reported
		w.Correct += r.Correct
		w.OldAsNew += r.OldAsNew
		w.Other += r.Other
		w.Missed += r.Missed
		w.Cut += r.Cut
		w.Late += r.Late
		if len(r.Notes) > 0 {
			w.Noted++
		}
		added[id] = append(added[id], r.AddedMs)
		if r.SettleMs > 0 {
			settles[id] = append(settles[id], r.SettleMs)
		}
		for k, v := range r.Steps {
			if steps[id] == nil {
				steps[id] = map[string][]float64{}
			}
			steps[id][k] = append(steps[id][k], v)
		}
	}
	for id, i := range idx {
		a := added[id]
		sort.Float64s(a)
		rows[i].P50AddedMs = quantile(a, 0.5)
		rows[i].P90AddedMs = quantile(a, 0.9)
		st := settles[id]
		sort.Float64s(st)
		rows[i].P50Settle = quantile(st, 0.5)
		for k, vs := range steps[id] {
			sort.Float64s(vs)
			if rows[i].P50Steps == nil {
				rows[i].P50Steps = map[string]float64{}
			}
			rows[i].P50Steps[k] = quantile(vs, 0.5)
		}
	}
	return rows
}

// quantile is the nearest-rank quantile of sorted a.
func quantile(a []float64, q float64) float64 {
	if len(a) == 0 {
		return 0
	}
	i := int(q*float64(len(a))+0.999999) - 1
	return a[max(0, min(i, len(a)-1))]
}

func printTable(rows []row) {
	fmt.Printf("%-31s %-7s %5s %6s %5s %5s %5s %5s %6s %6s %4s %4s %5s %9s %9s %9s\n",
		"server", "cond", "edits", "truly", "back", "rep", "ok", "old", "other", "missed", "cut", "late", "notes", "p50 add", "p90 add", "p50 bare")
	for _, w := range rows {
		edits := fmt.Sprint(w.Edits)
		if w.Failed > 0 {
			edits = fmt.Sprintf("%d!%d", w.Edits, w.Failed)
		}
		fmt.Printf("%-31s %-7s %5s %6d %5s %5d %5d %5d %6d %6d %4d %4d %5d %7.0fms %7.0fms %7.0fms\n",
			w.Server, w.Cond, edits, w.TrulyNew, fmt.Sprintf("%d/%d", w.RepBack, w.Back), w.Reported, w.Correct, w.OldAsNew, w.Other, w.Missed, w.Cut, w.Late, w.Noted, w.P50AddedMs, w.P90AddedMs, w.P50Settle)
	}
	fmt.Println(`
truly: errors and warnings the checker has more of after the edit (count per file and message), beyond
what the run began with; back: reported/all of those that only came back to what the run began with
(neither required nor wrong); rep: what the answers called new; ok: of those, truly new; old: present before the edit, called new;
other: called new, unknown to the checker; missed: truly new, not in the edit's answer (cut or absent);
late: of missed, in the next answer; cut: the answers' "and N more"; notes: answers with a note
(not ready, …); add: the edit call's time minus a bare write of the same change; bare: the same edits
sent straight to the server, warm, from didChange to its last diagnostics before 1.5 s of quiet
(edits after which it published nothing are left out). "N!F": F edits failed.
Targets (issue 23): old = 0; ok + late = truly; p50 add <= 1.2 x the server's bare settle.`)
	printed := false
	for _, w := range rows {
		if len(w.P50Steps) == 0 {
			continue
		}
		if !printed {
			fmt.Println("\nThe hub's write path per step, p50 ms (CCHUB_STEPS): write (the change on disk), servers (told and\nsettled), start (the run's starting point), ledger (what is news), fixes (quick fixes asked), total:")
			printed = true
		}
		fmt.Printf("%-31s %-7s", w.Server, w.Cond)
		for _, k := range []string{"write", "servers", "start", "ledger", "fixes", "total"} {
			fmt.Printf(" %s %.0f", k, w.P50Steps[k])
		}
		fmt.Println()
	}
}

// spinForever keeps n goroutines busy until the process is stopped.
func spinForever(n int) {
	for i := 0; i < n; i++ {
		go func() {
			for x := uint64(0); x != 1<<63; x++ {
			}
		}()
	}
	select {}
}
