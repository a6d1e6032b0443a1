package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"cchub/workspace"
)

// The bounds on what one tool result may hand a model: DefaultResult*
// for every answer, MaxResult* for a call that asked for more with an
// explicit size (a limit, a depth, a page).
const (
	DefaultResultLines = 1000
	DefaultResultBytes = 8 * 1024
	MaxResultLines     = 2000
	MaxResultBytes     = 50 * 1024
)

// Budget is how much one answer may hold.
type Budget struct{ Bytes, Lines int }

var (
	// DefaultBudget bounds every answer unless the call asked for more.
	DefaultBudget = Budget{DefaultResultBytes, DefaultResultLines}
	// WideBudget bounds the answer of a call that gave an explicit size.
	WideBudget = Budget{MaxResultBytes, MaxResultLines}
)

// budgetKey keys, in a tool call's context, the *Budget its answer gets.
type budgetKey struct{}

// withBudget gives a tool call's context the default budget, which its
// handler may widen (askedForMore); the caller bounds the answer by it.
func withBudget(ctx context.Context) (context.Context, *Budget) {
	b := DefaultBudget
	return context.WithValue(ctx, budgetKey{}, &b), &b
}

// askedForMore says the call in ctx asked for a size explicitly (a limit,
// a depth, a page): its answer may be as large as WideBudget.
func askedForMore(ctx context.Context) {
	if b, ok := ctx.Value(budgetKey{}).(*Budget); ok {
		*b = WideBudget
	}
}

// budgetOf is the budget of the answer of the call in ctx: the default,
// or the wide one once askedForMore.
func budgetOf(ctx context.Context) Budget {
	if b, ok := ctx.Value(budgetKey{}).(*Budget); ok {
		return *b
	}
	return DefaultBudget
}

// Bound returns text unchanged when it fits budget (the zero Budget is
// DefaultBudget). Otherwise it
// writes the whole text to a spill file under the workspace's .cchub/spill
// (not when the state is kept outside the workspace, where a model could
// not read it) and returns a preview that fits, ending in a marker that says how much was
// cut, where the full output is, the read that continues it, and how to narrow. tool names the spill
// file; hint, if not empty, is a tool-specific way to narrow.
func Bound(root *workspace.Root, tool, text, hint string, budget Budget) string {
	if budget.Bytes <= 0 || budget.Lines <= 0 {
		budget = DefaultBudget
	}
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") && text != "" {
		lines++
	}
	if lines <= budget.Lines && len(text) <= budget.Bytes {
		return text
	}
	// Leave room for the marker inside the byte bound.
	const markerRoom = 600
	cut, shownLines := 0, 0
	for cut < len(text) && shownLines < budget.Lines {
		nl := strings.IndexByte(text[cut:], '\n')
		end := len(text)
		if nl >= 0 {
			end = cut + nl + 1
		}
		if end > budget.Bytes-markerRoom {
			break
		}
		cut = end
		shownLines++
	}
	if cut == 0 {
		// One enormous first line: cut it at a rune boundary.
		cut = budget.Bytes - markerRoom
		for cut > 0 && !isRuneStart(text[cut]) {
			cut--
		}
	}
	var where string
	if !root.StateInWorkspace() {
		// The state is kept outside the workspace (its .cchub is not this
		// user's), where a model's read cannot reach: nothing is saved.
		where = "the full output was not saved (cchub keeps its state outside this workspace); narrow the call instead"
	} else if rel, err := spill(root, tool, text); err != nil {
		where = fmt.Sprintf("the full output could not be saved (%v); narrow the call instead", err)
	} else {
		// The spill file holds the text as is: the next line to read is
		// the first one not shown (a line cut in the middle is read again).
		where = fmt.Sprintf("full output saved to %s; the rest: read path=%s offset=%d (or grep that file)", rel, rel, shownLines+1)
	}
	if hint == "" {
		hint = "narrow the call (a more specific path or pattern)"
	}
	var b strings.Builder
	b.WriteString(text[:cut])
	if !strings.HasSuffix(text[:cut], "\n") {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "[output cut: showed %d of %d lines, %d of %d bytes; %s; or %s]\n",
		shownLines, lines, cut, len(text), where, hint)
	return b.String()
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// readBudget is what one read or read_symbol result may list, in a call
// whose answer gets b: an eighth of it (at most 2 KB) is left for the
// header, the continuation note and the hub's notices. A long page ends
// early and names the next offset, so a read never needs a spill file.
func readBudget(b Budget) (bytes, lines int) {
	return b.Bytes - min(b.Bytes/8, 2048), b.Lines - 10
}

func spill(root *workspace.Root, tool, text string) (string, error) {
	dir, err := root.OpenStateDir(spillDir)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	var rnd [4]byte
	rand.Read(rnd[:])
	name := fmt.Sprintf("%s-%s-%s.txt", tool, time.Now().UTC().Format("20060102-150405"), hex.EncodeToString(rnd[:]))
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		dir.Remove(name)
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	pruneSpills(dir, maxSpillFiles, maxSpillBytes)
	return path.Join(workspace.StateDir, spillDir, name), nil
}

// spillDir is where, under the state directory, cut outputs are saved.
const spillDir = "spill"

// maxSpillFiles and maxSpillBytes bound what spilled outputs are kept: a
// model follows up on the last few, not on last week's, and the state
// directory must not grow with every long answer.
const (
	maxSpillFiles = 50
	maxSpillBytes = 64 << 20
)

// pruneSpills removes the oldest spill files past keep, and past maxBytes
// in all (the newest is always kept). Names start with
// the tool and a UTC timestamp, so modification time orders them. Only
// regular files are removed, through the state directory's handle.
func pruneSpills(dir *os.Root, keep int, maxBytes int64) {
	d, err := dir.Open(".")
	if err != nil {
		return
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return
	}
	type spilled struct {
		name string
		mod  time.Time
		size int64
	}
	var all []spilled
	for _, e := range entries {
		if info, err := dir.Lstat(e.Name()); err == nil && info.Mode().IsRegular() {
			all = append(all, spilled{e.Name(), info.ModTime(), info.Size()})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod.After(all[j].mod) })
	var total int64
	for i, s := range all {
		total += s.size
		if i >= keep || (i > 0 && total > maxBytes) {
			dir.Remove(s.name)
		}
	}
}

// fitRoom is what an answer fitted to its budget leaves for the hub's
// notices and the note that names the call for more.
const fitRoom = 1024

// fitItems renders the first k of n items (render(k)) as many as fit the
// answer's budget, whole items only (at least one), and says how many it
// kept. A call that gave its own limit (limited) may fill the wide budget
// and is rendered whole: what is past it is cut by Bound into a spill file.
func fitItems(ctx context.Context, n int, limited bool, render func(k int) string) (string, int) {
	if limited {
		askedForMore(ctx)
	}
	text := render(n)
	max := budgetOf(ctx).Bytes - fitRoom
	if limited || len(text) <= max || n <= 1 {
		return text, n
	}
	// The largest k whose text fits (render(1) is kept even if it does not).
	lo, hi := 1, n-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(render(mid)) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return render(lo), lo
}

// callFor writes a call as a model makes it: tool key=value ..., the
// values without spaces as they are, others quoted; empty values left out.
func callFor(tool string, kv ...string) string {
	var b strings.Builder
	b.WriteString(tool)
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		if v == "" || v == "false" || v == "0" {
			continue
		}
		if strings.ContainsAny(v, " \t\n\"';,") {
			v = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, " %s=%s", kv[i], v)
	}
	return b.String()
}
