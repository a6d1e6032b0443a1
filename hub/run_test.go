package hub

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A CLI call is a run of its own, and calls with one --run share what
// they were told. What a call reports is what its change caused: an error
// that was there before (written by another process) is nobody's news.
func TestCLIRunsShareWhatTheyWereTold(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	bin := buildCchub(t)
	path := filepath.Join(ws, "pricing", "pricing.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(src), "func Cents(n int64) Money { return Money(n) }", "var old int = \"zero\"\n\nfunc Cents(n int64) Money { return Money(n) }", 1)
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
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
	first := cli("--run", "fix-pricing", "edit", "pricing/pricing.go", "--old", "func Cents(n int64) Money {", "--new", "var broken int = \"one\"\n\nfunc Cents(n int64) Money {")
	if !strings.Contains(first, "cannot use \"one\"") || strings.Contains(first, "cannot use \"zero\"") {
		t.Fatalf("the first call of the run: want its own error, not the old one:\n%s", first)
	}
	second := cli("--run", "fix-pricing", "edit", "pricing/pricing.go", "--old", "// Cents", "--new", "// Cents (edited)")
	if strings.Contains(second, "cannot use") || !strings.Contains(second, "nothing new (1 already reported still present)") {
		t.Errorf("the second call of the run: want nothing new, and the error it was told still present:\n%s", second)
	}
	other := cli("edit", "pricing/pricing.go", "--old", "(edited)", "--new", "(edited twice)")
	if strings.Contains(other, "cannot use") || strings.Contains(other, "already reported") {
		t.Errorf("a call of its own that changes a comment: want nothing said of old errors:\n%s", other)
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
