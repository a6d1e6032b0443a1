package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiles for the benchmarks' notes: CCHUB_CPUPROFILE=file writes the
// process's CPU profile, CCHUB_MEMPROFILE=file its heap profile as it
// exits (go tool pprof reads both). Neither is set in normal use.
const (
	envCPUProfile = "CCHUB_CPUPROFILE"
	envMemProfile = "CCHUB_MEMPROFILE"
)

// startProfiles starts what the environment asks for and returns what
// stops it.
func startProfiles() func() {
	var stops []func()
	if p := os.Getenv(envCPUProfile); p != "" {
		if f, err := os.Create(p); err != nil {
			fmt.Fprintf(os.Stderr, "cchub: $%s: %v\n", envCPUProfile, err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "cchub: $%s: %v\n", envCPUProfile, err)
			f.Close()
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if p := os.Getenv(envMemProfile); p != "" {
		runtime.MemProfileRate = 64 << 10
		stops = append(stops, func() {
			f, err := os.Create(p)
			if err != nil {
				fmt.Fprintf(os.Stderr, "cchub: $%s: %v\n", envMemProfile, err)
				return
			}
			defer f.Close()
			pprof.Lookup("allocs").WriteTo(f, 0)
		})
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
