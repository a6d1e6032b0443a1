package hub

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A CLI call is a run of its own, and calls with one --run share what
// they were told.
func TestCLIRunsShareWhatTheyWereTold(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	bin := buildCchub(t)
	path := filepath.Join(ws, "pricing", "pricing.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(src), "func Cents(n int64) Money { return Money(n) }", "var broken int = \"one\"\n\nfunc Cents(n int64) Money { return Money(n) }", 1)
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) string {
		t.Helper()
		out, err := runCLI(t, bin, ws, args...)
		if err != nil {
			t.Fatalf("cchub %v: %v\n%s", args, err, out)
		}
		return out
	}
	// Each edit touches the file; the known error is news to a new run
	// only.
	first := cli("--run", "fix-pricing", "edit", "pricing/pricing.go", "--old", "// Cents", "--new", "// Cents (edited)")
	if !strings.Contains(first, "cannot use \"one\"") {
		t.Fatalf("the first call of the run was not told:\n%s", first)
	}
	second := cli("--run", "fix-pricing", "edit", "pricing/pricing.go", "--old", "(edited)", "--new", "(edited twice)")
	if strings.Contains(second, "cannot use \"one\"") {
		t.Errorf("the second call of the run was told again:\n%s", second)
	}
	other := cli("edit", "pricing/pricing.go", "--old", "(edited twice)", "--new", "(edited thrice)")
	if !strings.Contains(other, "cannot use \"one\"") {
		t.Errorf("a call of its own was not told:\n%s", other)
	}
}

// runCLI runs the cchub binary in ws and returns its stdout and stderr.
func runCLI(t *testing.T, bin, ws string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--root", ws}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Calls of one --run share what they read: a file changed behind the
// run's back since one call read it is not edited by the next until read
// again.
func TestCLIRunsShareWhatTheyRead(t *testing.T) {
	ws := copyWorkspace(t, "go")
	bin := buildCchub(t)
	if out, err := runCLI(t, bin, ws, "--run", "r1", "read", "store/persist.go"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	path := filepath.Join(ws, "store", "persist.go")
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(data, "\n// changed elsewhere\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, bin, ws, "--run", "r1", "edit", "store/persist.go", "--old", "changed elsewhere", "--new", "changed")
	if err == nil || !strings.Contains(out, "store/persist.go changed on disk since you last read it") {
		t.Fatalf("a stale edit in the run was not refused: %v\n%s", err, out)
	}
	if out, err := runCLI(t, bin, ws, "--run", "r1", "read", "store/persist.go"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := runCLI(t, bin, ws, "--run", "r1", "edit", "store/persist.go", "--old", "changed elsewhere", "--new", "changed"); err != nil {
		t.Fatalf("the edit after a fresh read: %v\n%s", err, out)
	}
	// Another run, or none, never read it: the matcher alone guards it.
	if out, err := runCLI(t, bin, ws, "--run", "r2", "edit", "store/persist.go", "--old", "// changed\n", "--new", "// changed twice\n"); err != nil {
		t.Fatalf("another run: %v\n%s", err, out)
	}
}
