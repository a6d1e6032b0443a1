package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"cchub/workspace"
)

func testRoot(t *testing.T) *workspace.Root {
	t.Helper()
	r, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestBoundLeavesSmallTextAlone(t *testing.T) {
	r := testRoot(t)
	text := strings.Repeat("x\n", MaxResultLines)
	if got := Bound(r, "t", text, "", WideBudget); got != text {
		t.Fatal("text at the wide bound was changed")
	}
	text = strings.Repeat("x", DefaultResultBytes-1) + "\n"
	if got := Bound(r, "t", text, "", DefaultBudget); got != text {
		t.Fatal("text at the default bound was changed")
	}
	if _, err := os.Stat(filepath.Join(r.Dir(), workspace.StateDir)); err == nil {
		t.Fatal("a spill folder was made for text that fit")
	}
}

var spillMarker = regexp.MustCompile(`\[output cut: showed (\d+) of (\d+) lines, (\d+) of (\d+) bytes; full output saved to (\S+); the rest: read path=(\S+) offset=(\d+) \(or grep that file\); or (.+)\]\n$`)

func TestBoundCutsByLinesAndBytesAndSpillsEverything(t *testing.T) {
	cases := map[string]string{
		"many short lines": strings.Repeat("short\n", 5000),
		"few long lines":   strings.Repeat(strings.Repeat("y", 999)+"\n", 200),
		"one huge line":    strings.Repeat("é", 100000),
	}
	for _, budget := range []Budget{DefaultBudget, WideBudget} {
		for name, text := range cases {
			t.Run(fmt.Sprintf("%s/%d", name, budget.Bytes), func(t *testing.T) {
				boundCut(t, text, budget)
			})
		}
	}
}

func boundCut(t *testing.T, text string, budget Budget) {
	r := testRoot(t)
	got := Bound(r, "grep", text, "add include", budget)
	if len(got) > budget.Bytes || strings.Count(got, "\n") > budget.Lines+1 {
		t.Fatalf("bounded result is %d bytes, %d lines", len(got), strings.Count(got, "\n"))
	}
	if budget == DefaultBudget && len(got) < budget.Bytes-1024 && strings.Count(got, "\n") < budget.Lines {
		t.Errorf("the default bound's preview is only %d bytes", len(got))
	}
	m := spillMarker.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no marker at the end: %q", got[max(0, len(got)-300):])
	}
	if m[8] != "add include" {
		t.Errorf("hint = %q", m[8])
	}
	// The read the marker names continues at the first line not
	// shown (a line cut in its middle is read again).
	shown, _ := strconv.Atoi(m[1])
	if off, _ := strconv.Atoi(m[7]); m[6] != m[5] || off != shown+1 {
		t.Errorf("the rest is read at %s offset=%s, want %s offset=%d", m[6], m[7], m[5], shown+1)
	}
	if !strings.HasPrefix(m[5], ".cchub/spill/grep-") {
		t.Errorf("spill path %q is not relative under .cchub/spill", m[5])
	}
	full, err := os.ReadFile(filepath.Join(r.Dir(), m[5]))
	if err != nil {
		t.Fatal(err)
	}
	if string(full) != text {
		t.Fatal("spill file does not hold the full output")
	}
	preview := strings.TrimSuffix(got, m[0])
	if !strings.HasPrefix(text, strings.TrimSuffix(preview, "\n")) {
		t.Fatal("preview is not a prefix of the output")
	}
}

func TestBoundKeepsOnlyRecentSpills(t *testing.T) {
	r := testRoot(t)
	text := strings.Repeat("z\n", MaxResultLines+1)
	for i := 0; i < maxSpillFiles+10; i++ {
		Bound(r, "t", text, "", WideBudget)
	}
	entries, err := os.ReadDir(filepath.Join(r.Dir(), workspace.StateDir, "spill"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != maxSpillFiles {
		t.Fatalf("%d spill files kept, want %d", len(entries), maxSpillFiles)
	}
}

// The spill directory is bounded in bytes too: large spills push out the
// oldest, but the newest is kept whatever its size.
func TestBoundKeepsSpillsUnderTheByteBound(t *testing.T) {
	r := testRoot(t)
	big := strings.Repeat(strings.Repeat("w", 999)+"\n", 12<<10) // about 12 MB
	for i := 0; i < 8; i++ {
		Bound(r, "t", big, "", WideBudget)
	}
	entries, err := os.ReadDir(filepath.Join(r.Dir(), workspace.StateDir, "spill"))
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, e := range entries {
		info, _ := e.Info()
		total += info.Size()
	}
	if total > maxSpillBytes || len(entries) == 0 {
		t.Fatalf("%d spill files of %d bytes in all kept; want at least one and at most %d bytes", len(entries), total, maxSpillBytes)
	}
}

// A state directory that is a symlink is never followed: neither
// a spill file nor the cleanup of old ones touches anything outside the
// root, whether .cchub or .cchub/spill is the link.
func TestBoundNeverFollowsASymlinkedStateDirectory(t *testing.T) {
	text := strings.Repeat("z\n", MaxResultLines+1)
	for _, link := range []string{workspace.StateDir, filepath.Join(workspace.StateDir, "spill")} {
		t.Run(link, func(t *testing.T) {
			r := testRoot(t)
			outside := t.TempDir()
			for i := 0; i < 80; i++ {
				if err := os.WriteFile(filepath.Join(outside, fmt.Sprintf("keep-%02d.txt", i)), []byte("mine\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			os.MkdirAll(filepath.Dir(filepath.Join(r.Dir(), link)), 0o755)
			if err := os.Symlink(outside, filepath.Join(r.Dir(), link)); err != nil {
				t.Fatal(err)
			}
			var got string
			for i := 0; i < maxSpillFiles+10; i++ {
				got = Bound(r, "t", text, "", WideBudget)
			}
			// A .cchub that is a symlink is not the user's state (see
			// workspace's state.go): the state is kept outside the
			// workspace, where a model cannot read a spill file.
			why := []string{"is a symlink", "could not be saved"}
			if link == workspace.StateDir {
				why = []string{"not saved", "outside this workspace", "narrow the call"}
			}
			for _, w := range why {
				if !strings.Contains(got, w) {
					t.Errorf("the cut note does not say why nothing was saved (%q):\n%s", w, got[len(got)-300:])
				}
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) != 80 {
				t.Errorf("%d files outside the root, want the 80 that were there", len(entries))
			}
		})
	}
}
