// Command grepbench times locate.Grep over a directory, for
// bench/grep-vs-rg.sh: it prints the matching-line count and the median
// wall time of its runs.
//
//	grepbench [-i] [-runs N] [-cpuprofile FILE] PATTERN DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"time"

	"cchub/locate"
	"cchub/workspace"
)

func main() {
	ignoreCase := flag.Bool("i", false, "ignore case")
	literal := flag.Bool("F", false, "literal pattern")
	runs := flag.Int("runs", 1, "timed runs; the median is printed")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of all runs to this file")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: grepbench [-i] [-F] [-runs N] [-cpuprofile FILE] PATTERN DIR")
		os.Exit(2)
	}
	root, err := workspace.Open(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	opts := locate.GrepOptions{Pattern: flag.Arg(0), IgnoreCase: *ignoreCase, Literal: *literal}
	var times []time.Duration
	var res *locate.GrepResult
	for i := 0; i < max(*runs, 1); i++ {
		start := time.Now()
		res, err = locate.Grep(context.Background(), root, opts)
		times = append(times, time.Since(start))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	fmt.Printf("matches=%d files=%d searched=%d binary=%d ms=%.1f\n", res.Total, res.Files, res.Searched, res.SkippedBinary,
		float64(times[len(times)/2].Microseconds())/1000)
}
