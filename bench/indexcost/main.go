// Command indexcost measures what `cchub index` costs against a bare
// tree-sitter parse of the same files (issue 44). It is a benchmark, run
// by `make bench`: it exits non-zero only when cchub fails, never on a
// target missed.
//
// On a copy of GOROOT/src (or -dir), in one run and alternating, -rounds
// times: a bare parse of every file the code graph reads (read, parse,
// throw the tree away, on as many goroutines as cores), in this process;
// and `cchub index` of the copy from nothing (its .cchub removed), a
// process of its own, everything it does before it returns (graph, type
// facts, references, token index, syntax record, snapshot). Reported:
// the medians, index over bare (target ≤ 1.2), cchub's peak resident set
// (the kernel's maxrss; target ≤ 600 MB), and the store on disk (.cchub;
// target ≤ 40 MB). With -before OLD, each round also indexes with the
// cchub binary OLD (an earlier build), so that a change is measured
// against what it changed in the same run.
//
//	go run ./bench/indexcost -cchub .tools/bin/cchub [-before OLD] [-dir DIR] [-rounds 3] [-json]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"cchub/bench/corpus"
	"cchub/codegraph"
	"cchub/syntax"
	"cchub/workspace"
)

// Targets of issue 44.
const (
	targetRatio = 1.2
	targetRSSMB = 600
	targetDBMB  = 40
)

type figures struct {
	Corpus    string    `json:"corpus"`
	Files     int       `json:"files_parsed_bare"`
	BareS     []float64 `json:"bare_parse_seconds"`
	IndexS    []float64 `json:"index_seconds"`
	RSSMB     []float64 `json:"index_peak_rss_mb"`
	StoreMB   float64   `json:"store_mb"`
	Ratio     float64   `json:"index_over_bare"`
	Output    string    `json:"index_output"`
	BareRSSMB float64   `json:"bare_parse_peak_rss_mb"`
	// The same of -before's binary, when given.
	Before *indexRun `json:"before,omitempty"`
}

// indexRun is one binary's `cchub index`, round after round.
type indexRun struct {
	Binary  string    `json:"binary"`
	IndexS  []float64 `json:"index_seconds"`
	RSSMB   []float64 `json:"index_peak_rss_mb"`
	StoreMB float64   `json:"store_mb"`
	Ratio   float64   `json:"index_over_bare"`
}

func main() {
	cchub := flag.String("cchub", ".tools/bin/cchub", "the cchub binary to measure")
	dir := flag.String("dir", "", "the tree to copy and index (default: GOROOT/src)")
	before := flag.String("before", "", "an earlier cchub binary to index with too, each round (its figures beside)")
	rounds := flag.Int("rounds", 3, "alternating rounds of bare parse and index")
	asJSON := flag.Bool("json", false, "print the figures as JSON")
	flag.Parse()
	if err := run(*cchub, *before, *dir, *rounds, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "indexcost:", err)
		os.Exit(1)
	}
}

func run(cchub, before, src string, rounds int, asJSON bool) error {
	bin, err := filepath.Abs(cchub)
	if err != nil {
		return err
	}
	var old *indexRun
	if before != "" {
		abs, err := filepath.Abs(before)
		if err != nil {
			return err
		}
		old = &indexRun{Binary: abs}
	}
	if src == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %v", err)
		}
		src = filepath.Join(string(out[:len(out)-1]), "src")
	}
	tmp, err := os.MkdirTemp("", "indexcost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "corpus")
	if err := corpus.CopyTree(src, work, corpus.Copy{Old: true}); err != nil {
		return err
	}
	root, err := workspace.Open(work)
	if err != nil {
		return err
	}
	defer root.Close()
	cache := syntax.NewParseCache(0)
	defer cache.Close()

	f := figures{Corpus: filepath.Base(filepath.Dir(src)) + "/" + filepath.Base(src)}
	for r := range rounds {
		d, n := bareParse(root, cache)
		f.BareS, f.Files = append(f.BareS, d.Seconds()), n
		took, rss, out, err := index(bin, work)
		if err != nil {
			return fmt.Errorf("cchub index (round %d): %v\n%s", r+1, err, out)
		}
		f.IndexS, f.RSSMB, f.Output = append(f.IndexS, took), append(f.RSSMB, rss), out
		f.StoreMB = float64(dirSize(filepath.Join(work, ".cchub"))) / (1 << 20)
		line := fmt.Sprintf("round %d: bare %.2f s, index %.2f s", r+1, d.Seconds(), took)
		if old != nil {
			took, rss, out, err := index(old.Binary, work)
			if err != nil {
				return fmt.Errorf("%s index (round %d): %v\n%s", old.Binary, r+1, err, out)
			}
			old.IndexS, old.RSSMB = append(old.IndexS, took), append(old.RSSMB, rss)
			old.StoreMB = float64(dirSize(filepath.Join(work, ".cchub"))) / (1 << 20)
			line += fmt.Sprintf(", before %.2f s", took)
		}
		if !asJSON {
			fmt.Fprintln(os.Stderr, line)
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		f.BareRSSMB = float64(ru.Maxrss) / 1024
	}
	f.Ratio = corpus.Median(f.IndexS) / corpus.Median(f.BareS)
	if old != nil {
		old.Ratio = corpus.Median(old.IndexS) / corpus.Median(f.BareS)
		f.Before = old
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	}
	fmt.Printf("`cchub index` of %s (%d files parsed bare, %d rounds alternating, %d cores):\n\n", f.Corpus, f.Files, rounds, runtime.GOMAXPROCS(0))
	fmt.Println("| figure | measured | target |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| bare tree-sitter parse, median | %.2f s | (baseline) |\n", corpus.Median(f.BareS))
	fmt.Printf("| `cchub index`, median | %.2f s | |\n", corpus.Median(f.IndexS))
	fmt.Printf("| index / bare parse | %.2f× | ≤ %.1f× |\n", f.Ratio, targetRatio)
	fmt.Printf("| index peak RSS, median | %.0f MB | ≤ %d MB |\n", corpus.Median(f.RSSMB), targetRSSMB)
	fmt.Printf("| bare parse peak RSS (this process) | %.0f MB | |\n", f.BareRSSMB)
	fmt.Printf("| store on disk (.cchub) | %.1f MB | ≤ %d MB |\n", f.StoreMB, targetDBMB)
	if old := f.Before; old != nil {
		fmt.Printf("| before (%s): index, median | %.2f s (%.2f× bare) | |\n", filepath.Base(old.Binary), corpus.Median(old.IndexS), old.Ratio)
		fmt.Printf("| before: peak RSS, median; store | %.0f MB; %.1f MB | |\n", corpus.Median(old.RSSMB), old.StoreMB)
	}
	fmt.Printf("\ncchub said: %s\n", f.Output)
	return nil
}

// bareParse reads and parses every file the code graph reads, on as many
// goroutines as cores, and throws the trees away.
func bareParse(root *workspace.Root, cache *syntax.ParseCache) (time.Duration, int) {
	var files []string
	root.Walk(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		if !d.IsDir() && codegraph.Supported(syntax.LanguageFor(rel)) {
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

// dirSize is the bytes of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// index runs `cchub index` (bin) of work from nothing (its .cchub
// removed): seconds, peak resident set in MB, and what it said.
func index(bin, work string) (float64, float64, string, error) {
	os.RemoveAll(filepath.Join(work, ".cchub"))
	cmd := exec.Command(bin, "index")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "CCHUB_NO_SHARE=1")
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(t0).Seconds()
	var rss float64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = float64(ru.Maxrss) / 1024
	}
	return took, rss, string(out), err
}
