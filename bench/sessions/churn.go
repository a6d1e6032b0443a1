package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// churnCounts is what the churn saw.
type churnCounts struct {
	sessions, edits, again, failed, killedClients, lost atomic.Int64
	failures                                            sync.Map // a sample of the failures' texts
}

// churn runs workers sessions through the shared hub for d: each opens a
// session on a random root, makes a few edits to a file of its own
// there (a counter in a Go comment, so gopls checks each), then closes
// it, or kills its `cchub mcp` in the middle of a call. Halfway, the hub
// is killed with SIGKILL while edits are going on. An edit answered as
// done must be on disk; one in flight when its client or the hub died
// may or may not be, and the worker reads the disk to go on. After the
// last session the hub must exit within its idle time, leaving no
// process behind.
func churn(ctx context.Context, bin string, roots []string, hubDir string, workers int, d time.Duration) {
	env := []string{"CCHUB_HUB_DIR=" + hubDir, "CCHUB_HUB_IDLE=5s"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CCHUB_NO_SHARE=") && !strings.HasPrefix(kv, "CCHUB_HUB_") {
			env = append(env, kv)
		}
	}
	before := goplsPIDs()
	var c churnCounts
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range workers {
		name := fmt.Sprintf("churn_%02d.go", w)
		for _, root := range roots {
			if err := os.WriteFile(filepath.Join(root, name), []byte(counterFile(w, 0)), 0o644); err != nil {
				fail(err)
			}
		}
		wg.Add(1)
		go func() { // owned: waited for below
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for time.Now().Before(deadline) && ctx.Err() == nil {
				churnSession(ctx, bin, env, roots[rng.IntN(len(roots))], w, name, rng, &c)
			}
		}()
	}
	killed := 0
	time.Sleep(d / 2)
	if pids := hubPIDs(bin, env); len(pids) > 0 {
		syscall.Kill(pids[0], syscall.SIGKILL)
		killed++
	}
	wg.Wait()

	// Nothing left: the hub exits after its idle time, its servers with it.
	end := time.Now()
	left := ""
	for time.Since(end) < 30*time.Second {
		left = leftRunning(bin, env, before)
		if left == "" {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if left == "" {
		left = fmt.Sprintf("none (all gone %v after the last session)", time.Since(end).Round(100*time.Millisecond))
	}
	fmt.Printf("churn: %d workers for %v through the shared hub: %d sessions, %d edits (%d answered \"call again\", %d failed otherwise), hub killed %d× mid-edit, %d clients killed mid-call; edits lost: %d; left running: %s\n",
		workers, d, c.sessions.Load(), c.edits.Load(), c.again.Load(), c.failed.Load(), killed, c.killedClients.Load(), c.lost.Load(), left)
	c.failures.Range(func(k, _ any) bool {
		fmt.Printf("  failure: %s\n", k)
		return true
	})
}

func counterFile(w, n int) string {
	return fmt.Sprintf("package cobra\n\n// churn %d: %d\n", w, n)
}

// churnSession is one session of worker w on root.
func churnSession(ctx context.Context, bin string, env []string, root string, w int, name string, rng *rand.Rand, c *churnCounts) {
	cmd := exec.Command(bin, "mcp", "--root", root, "--diagnostics-timeout", "30s")
	cmd.Env = env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "churn", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		c.failed.Add(1)
		c.failures.LoadOrStore("connect: "+err.Error(), true)
		return
	}
	c.sessions.Add(1)
	killMidCall := rng.IntN(5) == 0
	path := filepath.Join(root, name)
	for i := range 1 + rng.IntN(3) {
		b, err := os.ReadFile(path)
		if err != nil {
			fail(err)
		}
		var n int
		fmt.Sscanf(string(b), "package cobra\n\n// churn %d: %d", new(int), &n)
		if string(b) != counterFile(w, n) {
			c.lost.Add(1) // the file is not a state any answer left
		}
		call := func() (*mcp.CallToolResult, error) {
			return cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit", Arguments: map[string]any{
				"path": name, "old_string": fmt.Sprintf("// churn %d: %d\n", w, n), "new_string": fmt.Sprintf("// churn %d: %d\n", w, n+1),
			}})
		}
		if killMidCall && i == 0 {
			done := make(chan struct{})
			go func() { // owned: waited for below
				defer close(done)
				call()
			}()
			time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)
			cmd.Process.Kill()
			<-done
			c.killedClients.Add(1)
			cs.Close()
			return
		}
		res, err := call()
		c.edits.Add(1)
		switch {
		case err != nil && strings.Contains(err.Error(), "call again"):
			c.again.Add(1)
			continue
		case err != nil:
			c.failed.Add(1)
			c.failures.LoadOrStore("edit: "+err.Error(), true)
			cs.Close()
			return
		case res.IsError:
			c.failed.Add(1)
			c.failures.LoadOrStore("edit answered an error: "+res.Content[0].(*mcp.TextContent).Text, true)
			continue
		}
		if got, _ := os.ReadFile(path); string(got) != counterFile(w, n+1) {
			c.lost.Add(1)
		}
	}
	cs.Close()
}

// goplsPIDs are the gopls processes running now.
func goplsPIDs() map[int]bool {
	out := map[int]bool{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		if comm(pid) == "gopls" {
			out[pid] = true
		}
	}
	return out
}

// leftRunning says what the churn left running: hubs, and gopls
// processes that were not there before it; "" for nothing.
func leftRunning(bin string, env []string, before map[int]bool) string {
	var left []string
	if pids := hubPIDs(bin, env); len(pids) > 0 {
		left = append(left, fmt.Sprintf("%d hub(s)", len(pids)))
	}
	n := 0
	for pid := range goplsPIDs() {
		if !before[pid] {
			n++
		}
	}
	if n > 0 {
		left = append(left, fmt.Sprintf("%d gopls", n))
	}
	return strings.Join(left, ", ")
}
