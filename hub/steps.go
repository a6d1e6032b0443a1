package hub

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"time"
)

// EnvSteps names a file to which every write (edit, write, apply_patch)
// appends one JSON line: how long each step of the write
// path took, in milliseconds — the change made on disk ("write"), the
// language servers told and settled ("servers"), the run's starting
// point loaded and kept ("start"), the ledger asked what is news
// ("ledger"), quick fixes asked ("fixes"), and the whole ("total"). It is
// for the benchmarks (bench/diagtruth reports its p50 per step); unset,
// nothing is timed.
const EnvSteps = "CCHUB_STEPS"

type stepsKey struct{}

// steps is one write's step times.
type steps struct {
	mu    sync.Mutex
	start time.Time
	ms    map[string]float64
}

// withSteps is ctx timing its write's steps, when EnvSteps asks for it.
func withSteps(ctx context.Context) context.Context {
	if os.Getenv(EnvSteps) == "" {
		return ctx
	}
	return context.WithValue(ctx, stepsKey{}, &steps{start: time.Now(), ms: map[string]float64{}})
}

// stepDone adds the time since t0 to the step name of ctx's write.
func stepDone(ctx context.Context, name string, t0 time.Time) {
	s, _ := ctx.Value(stepsKey{}).(*steps)
	if s == nil {
		return
	}
	s.mu.Lock()
	s.ms[name] += msSince(t0)
	s.mu.Unlock()
}

var stepsFile sync.Mutex

// stepsEnd appends ctx's write's steps to the file EnvSteps names.
func stepsEnd(ctx context.Context, what string) {
	s, _ := ctx.Value(stepsKey{}).(*steps)
	if s == nil {
		return
	}
	s.mu.Lock()
	line := map[string]any{"op": what, "total": msSince(s.start)}
	for k, v := range s.ms {
		line[k] = v
	}
	s.mu.Unlock()
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	stepsFile.Lock()
	defer stepsFile.Unlock()
	f, err := os.OpenFile(os.Getenv(EnvSteps), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.Write(append(b, '\n'))
	f.Close()
}

// msSince is the milliseconds since t0.
func msSince(t0 time.Time) float64 { return float64(time.Since(t0).Microseconds()) / 1000 }
