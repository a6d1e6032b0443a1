package corpus

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
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
