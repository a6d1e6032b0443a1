package wstest

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// RunChild runs this test binary again as a child that runs only test,
// with env added to its environment, and returns what it printed and its
// peak resident memory in KiB: the measure of a bound on memory, which a
// test process that has already run other tests cannot give of itself.
// A child that fails fails tb.
func RunChild(tb testing.TB, test string, env ...string) (out string, peakKiB int64) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("child %s: %v\n%s", test, err, b)
	}
	return string(b), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
}
