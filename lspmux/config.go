package lspmux

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"cchub/workspace"
)

// ConfigFile is the workspace's own configuration of language servers, at
// its root. JSON, so that it needs no parser of its own:
//
//	{
//	  "idle": "10m",
//	  "diagnostics_timeout": "5s",
//	  "servers": [
//	    {"name": "gopls", "args": ["-remote=auto"]},
//	    {"name": "pyright", "disabled": true},
//	    {"name": "zls", "command": "zls", "languages": {".zig": "zig"}, "root_markers": ["build.zig"]}
//	  ]
//	}
//
// A server named like a built-in one changes the fields it gives; another
// name adds a server.
const ConfigFile = ".cchub.json"

type config struct {
	Idle               string `json:"idle"`
	DiagnosticsTimeout string `json:"diagnostics_timeout"`
	Servers            []Spec `json:"servers"`
}

// loadConfig reads ConfigFile into opts: servers merged over the
// built-in ones, durations over the defaults. No file is no change.
func loadConfig(root *workspace.Root, opts *Options) error {
	data, err := root.ReadText(ConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("lspmux: %s: %w", ConfigFile, err)
	}
	var c config
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("lspmux: %s is not valid: %w", ConfigFile, err)
	}
	for _, d := range []struct {
		text string
		to   *time.Duration
		name string
	}{{c.Idle, &opts.Idle, "idle"}, {c.DiagnosticsTimeout, &opts.Timeout, "diagnostics_timeout"}} {
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(d.text)
		if err != nil || v <= 0 {
			return fmt.Errorf("lspmux: %s: %s %q is not a duration like \"10m\" or \"5s\"", ConfigFile, d.name, d.text)
		}
		*d.to = v
	}
	for _, s := range c.Servers {
		if s.Name == "" {
			return fmt.Errorf("lspmux: %s: a server without a name", ConfigFile)
		}
		merged := false
		for i := range opts.Specs {
			if opts.Specs[i].Name == s.Name {
				overlay(&opts.Specs[i], s)
				merged = true
			}
		}
		if !merged {
			if s.Command == "" || len(s.Languages) == 0 || len(s.RootMarkers) == 0 {
				return fmt.Errorf("lspmux: %s: server %q needs command, languages and root_markers", ConfigFile, s.Name)
			}
			opts.Specs = append(opts.Specs, s)
		}
	}
	return nil
}

// overlay sets the fields of dst that src gives.
func overlay(dst *Spec, src Spec) {
	if src.Command != "" {
		dst.Command = src.Command
	}
	if src.Args != nil {
		dst.Args = src.Args
	}
	if src.Env != nil {
		dst.Env = src.Env
	}
	if src.Languages != nil {
		dst.Languages = src.Languages
	}
	if src.RootMarkers != nil {
		dst.RootMarkers = src.RootMarkers
	}
	if src.InitOptions != nil {
		dst.InitOptions = src.InitOptions
	}
	if src.Install != "" {
		dst.Install = src.Install
	}
	dst.Disabled = src.Disabled
	dst.ProgressSettles = dst.ProgressSettles || src.ProgressSettles
	if src.QuietMS > 0 {
		dst.QuietMS = src.QuietMS
	}
}
