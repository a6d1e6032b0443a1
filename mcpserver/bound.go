package mcpserver

import (
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

// The bound on what one tool result may hand a model.
const (
	MaxResultLines = 2000
	MaxResultBytes = 50 * 1024
)

// Bound returns text unchanged when it fits the result bound. Otherwise it
// writes the whole text to a spill file under the workspace's .cchub/spill
// (not when the state is kept outside the workspace, where a model could
// not read it) and returns a preview that fits, ending in a marker that says how much was
// cut, where the full output is, and how to narrow. tool names the spill
// file; hint, if not empty, is a tool-specific way to narrow.
func Bound(root *workspace.Root, tool, text, hint string) string {
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") && text != "" {
		lines++
	}
	if lines <= MaxResultLines && len(text) <= MaxResultBytes {
		return text
	}
	// Leave room for the marker inside the byte bound.
	const markerRoom = 600
	cut, shownLines := 0, 0
	for cut < len(text) && shownLines < MaxResultLines {
		nl := strings.IndexByte(text[cut:], '\n')
		end := len(text)
		if nl >= 0 {
			end = cut + nl + 1
		}
		if end > MaxResultBytes-markerRoom {
			break
		}
		cut = end
		shownLines++
	}
	if cut == 0 {
		// One enormous first line: cut it at a rune boundary.
		cut = MaxResultBytes - markerRoom
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
		where = fmt.Sprintf("full output saved to %s; grep that file or read it with offset/limit", rel)
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

// readBytes and readLines are what one read or read_symbol result may
// list, leaving the bound's room for the header and the continuation note:
// a long page ends early and names the next offset, so a read never needs
// a spill file.
const (
	readBytes = MaxResultBytes - 2048
	readLines = MaxResultLines - 10
)

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
