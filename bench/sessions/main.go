// Command sessions measures what many agent sessions on one machine
// cost (issue 42's figures): five sessions on a copy of cobra and one on
// each of two git worktrees of it, each editing a Go file so that its
// language server runs, first each in its own process (`cchub mcp
// --no-share`, how every peer works) and then through one shared hub. It
// reports the resident memory of every cchub process and language server
// the sessions made, and each session's first-edit latency. Then it
// churns: many sessions opening and closing at random on the checkout
// and its worktrees, clients killed mid-call and the hub killed once
// mid-edit, and says what was lost and what was left running (churn.go).
// It is a benchmark, run by `make bench`; it asserts nothing.
//
//	go run ./bench/sessions [-cchub .tools/bin/cchub] [-sessions 5] [-churn 2m] [-churn-sessions 20]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/bench/corpus"
)

const cobraVersion = "github.com/spf13/cobra@v1.8.1"

func main() {
	bin := flag.String("cchub", ".tools/bin/cchub", "the cchub binary to measure")
	n := flag.Int("sessions", 5, "sessions on the checkout (two more run on worktrees)")
	churnFor := flag.Duration("churn", 2*time.Minute, "then, sessions opening and closing at random through the shared hub for this long (0: not)")
	workers := flag.Int("churn-sessions", 20, "sessions at once in the churn")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute+*churnFor)
	defer cancel()
	abs, err := filepath.Abs(*bin)
	if err != nil {
		fail(err)
	}
	tmp, err := os.MkdirTemp("", "sharedhub-bench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	src, err := corpus.GoModDir(ctx, cobraVersion, os.Environ())
	if err != nil {
		fail(err)
	}
	repo := filepath.Join(tmp, "cobra")
	if err := corpus.CopyTree(src, repo, corpus.Copy{}); err != nil {
		fail(err)
	}
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=b", "-c", "user.email=b@cchub.invalid"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			fail(fmt.Errorf("git %v: %v\n%s", args, err, out))
		}
	}
	git(repo, "init", "-q", "-b", "main")
	git(repo, "add", "-A")
	git(repo, "commit", "-q", "-m", "cobra")
	roots := []string{}
	for range *n {
		roots = append(roots, repo)
	}
	for i := range 2 {
		wt := filepath.Join(tmp, fmt.Sprintf("wt%d", i))
		git(repo, "worktree", "add", "-q", wt)
		roots = append(roots, wt)
	}
	hubDir := filepath.Join(tmp, "hubs")
	if err := os.Mkdir(hubDir, 0o700); err != nil {
		fail(err)
	}
	fmt.Printf("%d sessions on cobra (%d on the checkout, 2 on worktrees), each editing args.go; resident memory of cchub and its language servers\n", len(roots), *n)
	var alone, aloneRSS int64 // one in-process session's memory, the mean of the seven
	for _, shared := range []bool{false, true} {
		pss, rss, procs, lat, err := measure(ctx, abs, roots, hubDir, shared)
		if err != nil {
			fail(err)
		}
		mode := "in-process (--no-share)"
		if shared {
			mode = "shared hub"
		}
		fmt.Printf("  %-24s %5d MB (RSS %5d MB) in %2d processes (%s); first edit p50 %v, max %v\n", mode, pss>>20, rss>>20, len(procs), summary(procs), pct(lat, 50), pct(lat, 100))
		if !shared {
			alone, aloneRSS = pss/int64(len(roots)), rss/int64(len(roots))
			continue
		}
		if len(lat) > 1 && lat[0] > 0 {
			fmt.Printf("  shared hub: the second session's first edit %v, %.2f× the first's cold start %v (target ≤ 0.2×)\n", lat[1].Round(time.Millisecond), float64(lat[1])/float64(lat[0]), lat[0].Round(time.Millisecond))
		}
		if alone > 0 && aloneRSS > 0 {
			fmt.Printf("  shared hub / one session alone (%d MB): %.2f× (RSS: %.2f×; target ≤ 1.6×)\n", alone>>20, float64(pss)/float64(alone), float64(rss)/float64(aloneRSS))
		}
	}
	if *churnFor > 0 {
		churn(ctx, abs, []string{roots[0], roots[len(roots)-2], roots[len(roots)-1]}, hubDir, *workers, *churnFor)
	}
}

// proc is one measured process.
type proc struct {
	pid  int
	name string
	rss  int64
	pss  int64 // proportional: pages shared with other processes (the binary's) divided among them
}

// measure connects a session per root, edits a comment in args.go in
// each, then sums the memory of the sessions' processes (each `cchub
// mcp`, the shared hub, and their descendants).
func measure(ctx context.Context, bin string, roots []string, hubDir string, shared bool) (pssTotal, rssTotal int64, _ []proc, _ []time.Duration, _ error) {
	env := []string{"CCHUB_HUB_DIR=" + hubDir, "CCHUB_HUB_IDLE=1m"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CCHUB_NO_SHARE=") && !strings.HasPrefix(kv, "CCHUB_HUB_") {
			env = append(env, kv)
		}
	}
	var sessions []*mcp.ClientSession
	var fronts []int
	defer func() {
		for _, s := range sessions {
			s.Close()
		}
		if shared {
			stopHubs(bin, env)
		}
	}()
	var lat []time.Duration
	for i, root := range roots {
		args := []string{"mcp", "--root", root, "--diagnostics-timeout", "60s"}
		if !shared {
			args = append(args, "--no-share")
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return 0, 0, nil, nil, err
		}
		sessions = append(sessions, cs)
		fronts = append(fronts, cmd.Process.Pid)
		old := "package cobra"
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit", Arguments: map[string]any{
			"path": "args.go", "old_string": old, "new_string": fmt.Sprintf("// session %d\n%s", i, old),
		}})
		if err != nil {
			return 0, 0, nil, nil, err
		}
		lat = append(lat, time.Since(start))
		if res.IsError {
			return 0, 0, nil, nil, fmt.Errorf("edit in %s: %v", root, res.Content[0].(*mcp.TextContent).Text)
		}
		// The next session edits the file as this one left it.
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit", Arguments: map[string]any{
			"path": "args.go", "old_string": fmt.Sprintf("// session %d\n%s", i, old), "new_string": old,
		}}); err != nil {
			return 0, 0, nil, nil, err
		}
	}
	time.Sleep(2 * time.Second) // servers settle their memory after loading
	pids := append([]int(nil), fronts...)
	if shared {
		pids = append(pids, hubPIDs(bin, env)...)
	}
	var all []proc
	seen := map[int]bool{}
	for _, p := range pids {
		for _, q := range tree(p) {
			if !seen[q] {
				seen[q] = true
				all = append(all, proc{pid: q, name: comm(q), rss: rss(q), pss: pss(q)})
			}
		}
	}
	for _, p := range all {
		pssTotal += p.pss
		rssTotal += p.rss
	}
	return pssTotal, rssTotal, all, lat, nil
}

// hubPIDs are the pids of the hubs `cchub status` lists.
func hubPIDs(bin string, env []string) []int {
	cmd := exec.Command(bin, "status")
	cmd.Env = env
	out, _ := cmd.Output()
	var pids []int
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.Index(line, ": pid "); i >= 0 && strings.HasPrefix(line, "shared hub ") {
			f := strings.TrimRight(strings.Fields(line[i+6:])[0], ",")
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
	}
	return pids
}

func stopHubs(bin string, env []string) {
	for _, p := range hubPIDs(bin, env) {
		syscall.Kill(p, syscall.SIGTERM)
		for deadline := time.Now().Add(10 * time.Second); syscall.Kill(p, 0) == nil && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// tree is pid and its descendants, from /proc.
func tree(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		children[pp] = append(children[pp], p)
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

func comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// pss is pid's proportional set size (smaps_rollup), in bytes.
func pss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			var kb int64
			fmt.Sscan(rest, &kb)
			return kb << 10
		}
	}
	return 0
}

func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	var size, res int64
	fmt.Sscan(string(b), &size, &res)
	return res * int64(os.Getpagesize())
}

// summary counts the processes by name, with their memory (PSS):
// "7 cchub 180 MB, 14 gopls 1460 MB".
func summary(ps []proc) string {
	n := map[string]int{}
	mem := map[string]int64{}
	for _, p := range ps {
		n[p.name]++
		mem[p.name] += p.pss
	}
	var names []string
	for k := range n {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%d %s %d MB", n[k], k, mem[k]>>20))
	}
	return strings.Join(parts, ", ")
}

func pct(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	i := (len(s) - 1) * p / 100
	return s[i].Round(time.Millisecond)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sessions:", err)
	os.Exit(1)
}
