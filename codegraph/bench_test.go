package codegraph

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"cchub/store"
	"cchub/syntax"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// The code graph on real corpora: Go's own source and Python's standard
// library, copied to a temporary directory (the index is kept in the
// corpus's .cchub). Run with
//
//	go test -run '^$' -bench Graph -benchtime 1x -timeout 30m ./codegraph/
//
// Each corpus reports, in one run: the full index time against bare
// tree-sitter parsing of the same files on as many cores (ratio, target ≤
// 1.5), and against `ctags -R` when universal-ctags is found (CTAGS, PATH
// or .tools/bin); re-index with no change and after one change (targets 1 s
// and 100 ms); callers and blast latency on the loaded graph, p50 and p99
// over 200 definitions (target p50 ≤ 10 ms); the first query of a new
// process (the graph loaded from the store and resolved); the peak heap
// while indexing and the index's size on disk. CCHUB_BENCH_GO and
// CCHUB_BENCH_PY choose other directories.
func BenchmarkGraph(b *testing.B) {
	goDir := os.Getenv("CCHUB_BENCH_GO")
	if goDir == "" {
		goDir = wstest.GoSrc(b)
	}
	pyDir := os.Getenv("CCHUB_BENCH_PY")
	if pyDir == "" {
		out, err := exec.Command("python3", "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))").Output()
		if err == nil {
			pyDir = string(out[:len(out)-1])
		}
	}
	for _, c := range []struct{ name, dir, change string }{
		{"goroot", goDir, "strings/strings.go"},
		{"stdlib", pyDir, "json/decoder.py"},
	} {
		b.Run(c.name, func(b *testing.B) {
			if _, err := os.Stat(c.dir); c.dir == "" || err != nil {
				b.Skipf("no corpus at %q", c.dir)
			}
			for range b.N {
				benchCorpus(b, c.dir, c.change)
			}
		})
	}
}

func benchCorpus(b *testing.B, src, change string) {
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "corpus")
	if out, err := exec.Command("cp", "-r", src, dir).CombinedOutput(); err != nil {
		b.Fatalf("copy %s: %v %s", src, err, out)
	}
	// Files older than the racy window, as a checkout would be.
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() { // a link is not followed
			os.Chtimes(p, old, old)
		}
		return nil
	})
	root, err := workspace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	cache := syntax.NewParseCache(0)
	defer cache.Close()

	bare, nfiles := bareParse(b, root, cache)
	b.ReportMetric(bare.Seconds(), "bare-parse-s")

	if ctags := findCtags(); ctags != "" {
		t0 := time.Now()
		cmd := exec.Command(ctags, "-R", "-f", filepath.Join(b.TempDir(), "tags"), ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Logf("ctags: %v %s", err, out)
		} else {
			b.ReportMetric(time.Since(t0).Seconds(), "ctags-s")
		}
	}

	db, err := store.Open(ctx, root)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	x := NewIndex(root, cache)
	x.Persist(db, nil)
	stop := peakHeap()
	t0 := time.Now()
	st, err := x.Update(ctx)
	full := time.Since(t0)
	peak := stop()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(full.Seconds(), "index-s")
	b.ReportMetric(full.Seconds()/bare.Seconds(), "index/bare")
	b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MB")
	b.Logf("%d files (%d parsed bare): %d definitions, %d calls", st.Files, nfiles, st.Defs, st.Calls)
	var size int64
	for _, f := range []string{"cchub.db", "cchub.db-wal"} {
		if fi, err := os.Stat(filepath.Join(dir, ".cchub", f)); err == nil {
			size += fi.Size()
		}
	}
	b.ReportMetric(float64(size)/(1<<20), "db-MB")

	// A new process: stamps from the store, nothing read.
	y := NewIndex(root, cache)
	y.Persist(db, nil)
	t0 = time.Now()
	if st, err := y.Update(ctx); err != nil || st.Read != 0 {
		b.Fatalf("re-index with no change read %d files: %v", st.Read, err)
	}
	b.ReportMetric(float64(time.Since(t0).Microseconds())/1000, "reindex-nochange-ms")
	t0 = time.Now()
	if _, err := y.Symbols("main"); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(time.Since(t0).Seconds(), "first-query-s")

	f, err := os.OpenFile(filepath.Join(dir, change), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprint(f, "\n\n\n")
	f.Close()
	t0 = time.Now()
	if st, err := y.Update(ctx); err != nil || st.Parsed != 1 {
		b.Fatalf("re-index after one change parsed %d files: %v", st.Parsed, err)
	}
	b.ReportMetric(float64(time.Since(t0).Microseconds())/1000, "reindex-one-ms")
	t0 = time.Now()
	if _, err := y.Symbols("main"); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(t0).Microseconds())/1000, "query-after-change-ms")

	// Latency of callers and blast on 200 definitions that have callers.
	bt, release, err := y.graph(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	for k, in := range bt.callIn {
		if len(in) > 0 {
			d := bt.defs[k]
			names = append(names, d.Path+":"+d.Qual())
		}
	}
	release()
	sort.Strings(names)
	step := max(1, len(names)/200)
	var callers, blast []time.Duration
	for i := 0; i < len(names); i += step {
		t0 := time.Now()
		_, _, err := y.Callers(names[i])
		callers = append(callers, time.Since(t0))
		if err != nil {
			continue // a name two definitions share: asked by path:Type.Name
		}
		t0 = time.Now()
		y.Blast([]string{names[i]}, 3, "")
		blast = append(blast, time.Since(t0))
	}
	p := func(ds []time.Duration, q float64) float64 {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(p(callers, 0.5), "callers-p50-ms")
	b.ReportMetric(p(callers, 0.99), "callers-p99-ms")
	b.ReportMetric(p(blast, 0.5), "blast-p50-ms")
	b.ReportMetric(p(blast, 0.99), "blast-p99-ms")
}

// bareParse parses every file the graph reads, on as many goroutines as
// Update uses, and throws the trees away.
func bareParse(b *testing.B, root *workspace.Root, cache *syntax.ParseCache) (time.Duration, int) {
	var files []string
	root.Walk(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		if !d.IsDir() && Supported(syntax.LanguageFor(rel)) {
			files = append(files, rel)
		}
		return nil
	})
	t0 := time.Now()
	next := make(chan string)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rel := range next {
				src, err := root.ReadText(rel)
				if err != nil {
					continue
				}
				tree, err := cache.ParseUncached(context.Background(), syntax.LanguageFor(rel), src)
				if err == nil {
					tree.Release()
				}
			}
		}()
	}
	for _, f := range files {
		next <- f
	}
	close(next)
	wg.Wait()
	return time.Since(t0), len(files)
}

// peakHeap samples the Go heap plus tree-sitter's C memory (as the
// process's resident set grows) until the returned func is called, which
// returns the peak resident set in bytes.
func peakHeap() func() int64 {
	done := make(chan struct{})
	var peak int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if r := rss(); r > peak {
				peak = r
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// rss is the process's resident set now, from /proc (0 elsewhere).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, res int64
	fmt.Sscan(string(b), &size, &res)
	return res * int64(syscall.Getpagesize())
}

func findCtags() string {
	if p := os.Getenv("CTAGS"); p != "" {
		return p
	}
	if p, err := filepath.Abs("../.tools/bin/ctags"); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("ctags"); err == nil {
		return p
	}
	return ""
}
