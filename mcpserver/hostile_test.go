package mcpserver

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostileFilesCostTheirBoundInTheRealBinary runs the built cchub (not
// a test binary, which -race makes several times larger) on a workspace
// holding the hostile probe's files, each command in a process of its
// own, and bounds each process's peak memory against the same command on
// a workspace without them: 2 MB of one-character lines cost 1.2 GB to
// index or outline, and 1.4 MB of them, just under the tree bound, half
// a gigabyte.
func TestHostileFilesCostTheirBoundInTheRealBinary(t *testing.T) {
	bin := buildCchub(t)
	clean, hostile := t.TempDir(), t.TempDir()
	small := []byte("def f(x):\n    return x\n")
	for _, dir := range []string{clean, hostile} {
		if err := os.WriteFile(filepath.Join(dir, "small.py"), small, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, n := range map[string]int{"lines.py": 1 << 20, "under.py": 700_000} {
		if err := os.WriteFile(filepath.Join(hostile, name), bytes.Repeat([]byte("x\n"), n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dir string, args ...string) (string, int64) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--root", dir}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("cchub %v: %v", args, err)
		}
		return string(out), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	}
	for _, c := range []struct {
		name      string
		args      []string // on the hostile workspace
		cleanArgs []string // the same command where the files are ordinary
		wants     []string
	}{
		{"outline", []string{"outline", "lines.py"}, []string{"outline", "small.py"}, []string{"too large to parse", "grep"}},
		{"outline under the tree bound", []string{"outline", "under.py"}, []string{"outline", "small.py"}, []string{"too large to parse (too dense)"}},
		{"symbol", []string{"symbol", "lines.py:x"}, []string{"symbol", "small.py:f"}, []string{"too large to parse"}},
		{"search", []string{"search", "-p", "x", "-l", "python"}, []string{"search", "-p", "x", "-l", "python"}, []string{"not searched", "lines.py", "under.py"}},
		{"index", []string{"index"}, []string{"index"}, []string{"too large to parse", "lines.py", "under.py"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, kib := run(hostile, c.args...)
			_, base := run(clean, c.cleanArgs...)
			for _, w := range c.wants {
				if !strings.Contains(out, w) {
					t.Errorf("cchub %v does not say %q:\n%.2000s", c.args, w, out)
				}
			}
			// The files read and measured, a few copies each: tens of
			// megabytes, not the hundreds their trees would take.
			if over := kib - base; over > 48<<10 {
				t.Errorf("cchub %v peaked at %d KiB, %d KiB over the same command on ordinary files (%d KiB); want < %d KiB over",
					c.args, kib, over, base, 48<<10)
			}
			t.Logf("cchub %v: %d KiB peak (ordinary files: %d KiB)", c.args, kib, base)
		})
	}
}
