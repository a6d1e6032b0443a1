package proc

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// parentEnv makes the test binary a parent that starts `sleep 100` with
// proc, prints its pid and waits to be killed; "outlive" starts it with
// OutliveParent.
const parentEnv = "PROC_TEST_PARENT"

func TestMain(m *testing.M) {
	if how := os.Getenv(superviseEnv); how != "" {
		os.Exit(superviseMain(how))
	}
	if how := os.Getenv(daemonEnv); how != "" {
		os.Exit(daemonMain(how))
	}
	if how := os.Getenv(parentEnv); how != "" {
		c := Command("sleep", "100")
		c.OutliveParent = how == "outlive"
		p, err := c.Start(context.Background())
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println(p.Pid())
		select {}
	}
	os.Exit(m.Run())
}

// childOfKilledParent runs a parent that starts a child, kills the
// parent outright (it runs no code of its own) and returns the child.
func childOfKilledParent(t *testing.T, how string) int {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(exe)
	parent.Env = append(os.Environ(), parentEnv+"="+how)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	child := readPid(t, bufio.NewReader(out))
	parent.Process.Kill()
	parent.Wait()
	return child
}

func TestChildDiesWithParent(t *testing.T) {
	child := childOfKilledParent(t, "die")
	if !goneWithin(child, 5*time.Second) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Fatalf("child %d outlived its killed parent", child)
	}
}

func TestOutliveParent(t *testing.T) {
	child := childOfKilledParent(t, "outlive")
	defer KillGroup(child)
	time.Sleep(200 * time.Millisecond)
	if gone(child) {
		t.Fatalf("child %d, started to outlive its parent, died with it", child)
	}
}
