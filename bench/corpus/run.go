package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"cchub/proc"
)

// RunOut runs name with args in dir (env nil: this process's), bounded
// by timeout, and returns its stdout and stderr together. The child runs
// in a group of its own, stopped with its children when the timeout or
// ctx ends.
func RunOut(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out bytes.Buffer
	cmd := proc.Command(name, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &out, &out
	err := cmd.Run(ctx)
	if ctx.Err() != nil {
		return out.Bytes(), fmt.Errorf("%s: stopped after %v", proc.CommandLine(name, args), timeout)
	}
	return out.Bytes(), err
}

// Median is the median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// GoModDir is the module cache's directory of module@version
// (downloading it through the module proxy when it is not there).
func GoModDir(ctx context.Context, modVersion string, env []string) (string, error) {
	out, err := RunOut(ctx, 5*time.Minute, os.TempDir(), env, "go", "mod", "download", "-json", modVersion)
	var m struct{ Dir, Error string }
	if json.Unmarshal(out, &m); m.Dir == "" {
		lines := strings.SplitN(strings.TrimSpace(string(out)), "\n", 5)
		if len(lines) > 4 {
			lines = append(lines[:4], "…")
		}
		return "", fmt.Errorf("go mod download %s: %v %s%s: the benchmark needs the Go module proxy or a module cache that has it", modVersion, err, m.Error, strings.Join(lines, "\n"))
	}
	return m.Dir, nil
}
