package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"cchub/proc"
)

// outcome is one cchub process: how long it ran, what it printed, how it
// ended.
type outcome struct {
	Sec    float64
	Stdout []byte
	Stderr []byte
	Code   int   // exit code; -1 when it did not exit by itself
	Err    error // it could not be run, or was stopped
}

// failed says what went wrong, or "" when the process exited 0 and
// printed nothing on stderr (a notice there means the store was not
// used as asked: then its figures are not the store's).
func (o outcome) failed() string {
	switch {
	case o.Err != nil:
		return o.Err.Error()
	case o.Code != 0:
		return fmt.Sprintf("exit %d: %s", o.Code, firstLines(o.Stderr, 3))
	case len(bytes.TrimSpace(o.Stderr)) > 0:
		return "exit 0, but stderr says: " + firstLines(o.Stderr, 3)
	}
	return ""
}

// runner runs the cchub under test.
type runner struct {
	bin     string
	timeout time.Duration
	cfgRoot string // every checkout gets a configuration directory of its own under it
}

// env is this process's environment without cchub's own variables, and
// the checkout's configuration directory: nothing of the person's
// configuration or store reaches the children.
func (r *runner) env(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "CCHUB_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CCHUB_CONFIG_DIR="+filepath.Join(r.cfgRoot, filepath.Base(dir)))
}

// run runs cchub with args in the checkout dir.
func (r *runner) run(parent context.Context, dir string, args ...string) outcome {
	ctx, cancel := context.WithTimeout(parent, r.timeout)
	defer cancel()
	var o, e bytes.Buffer
	cmd := proc.Command(r.bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, r.env(dir), &o, &e
	t0 := time.Now()
	err := cmd.Run(ctx)
	out := outcome{Sec: time.Since(t0).Seconds(), Stdout: o.Bytes(), Stderr: e.Bytes()}
	var exit *exec.ExitError
	switch {
	case parent.Err() != nil:
		out.Code, out.Err = -1, fmt.Errorf("cchub %s: interrupted", strings.Join(args, " "))
	case ctx.Err() != nil:
		out.Code, out.Err = -1, fmt.Errorf("cchub %s: stopped after %v (raise -timeout)", strings.Join(args, " "), r.timeout)
	case errors.As(err, &exit):
		out.Code = exit.ExitCode()
	case err != nil:
		out.Code, out.Err = -1, fmt.Errorf("cchub %s: %w", strings.Join(args, " "), err)
	}
	return out
}

// parallel runs cchub with args in each of dirs at once and returns each
// outcome and the wall time from the first start to the last end.
func (r *runner) parallel(ctx context.Context, dirs []string, args ...string) ([]outcome, float64) {
	outs := make([]outcome, len(dirs))
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, d := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = r.run(ctx, d, args...)
		}()
	}
	wg.Wait()
	return outs, time.Since(t0).Seconds()
}

// supports says whether the binary's command takes flag (its --help
// lists it).
func (r *runner) supports(ctx context.Context, command, flag string) bool {
	o := r.run(ctx, os.TempDir(), command, "--help")
	return o.Code == 0 && bytes.Contains(o.Stdout, []byte(flag+" "))
}

// answers are what a checkout says about the graph: `cchub graph callers
// NAME --json` per name, paths of the checkout made relative.
type answers map[string][]byte

// ask collects the callers of each name in the checkout dir (with
// extra, e.g. --store URL). A name the graph does not know is a failure
// of the checkout's answer only when another checkout knows it; the
// caller compares.
func (r *runner) ask(ctx context.Context, dir string, names []string, extra ...string) (answers, error) {
	a := answers{}
	for _, n := range names {
		o := r.run(ctx, dir, append([]string{"graph", "callers", n, "--json"}, extra...)...)
		if f := o.failed(); f != "" {
			return nil, fmt.Errorf("cchub graph callers %s in %s: %s", n, dir, f)
		}
		a[n] = normalize(o.Stdout, dir)
	}
	return a, nil
}

// normalize replaces the checkout's path in out, so that two checkouts'
// answers compare.
func normalize(out []byte, dir string) []byte {
	return bytes.ReplaceAll(out, []byte(dir), []byte("<checkout>"))
}

// differ says how b differs from a ("" when they are equal byte for
// byte): the first line that differs.
func differ(a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			// From a little before the first byte that differs.
			c := 0
			for c < len(x) && c < len(y) && x[c] == y[c] {
				c++
			}
			from := max(0, c-40)
			return fmt.Sprintf("line %d, column %d: %q (%d lines) vs %q (%d lines)", i+1, c+1, clip(x[from:]), len(al), clip(y[from:]), len(bl))
		}
	}
	return "they differ"
}

// differAnswers compares two checkouts' answers, name by name.
func differAnswers(what string, a, b answers) []string {
	var out []string
	names := make([]string, 0, len(a))
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if d := differ(a[n], b[n]); d != "" {
			out = append(out, fmt.Sprintf("%s: callers of %s differ: %s", what, n, d))
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

func firstLines(b []byte, n int) string {
	lines := strings.SplitN(strings.TrimSpace(string(b)), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, " | ")
}
