package lspmux

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"cchub/proc"
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
// name adds a server. What names or changes a program (command, args, env,
// init_options, install, an added server) applies only in a workspace a
// person trusted (cchub trust); elsewhere it is skipped and said once.
const ConfigFile = workspace.ConfigFile

type config struct {
	Idle               string `json:"idle"`
	DiagnosticsTimeout string `json:"diagnostics_timeout"`
	Servers            []Spec `json:"servers"`
}

// loadConfig reads ConfigFile into opts: servers merged over the
// built-in ones, durations over the defaults. No file is no change. It
// returns the note to give once when an untrusted file named programs.
func loadConfig(root *workspace.Root, opts *Options) (note string, trusted bool, err error) {
	file, err := root.ReadConfig()
	if err != nil {
		return "", false, fmt.Errorf("lspmux: %w", err)
	}
	note, err = applyConfig(file, opts)
	return note, file.Trusted, err
}

// applyConfig is loadConfig on a file already read.
func applyConfig(file workspace.Config, opts *Options) (string, error) {
	if file.Data == nil {
		return "", nil
	}
	data := file.Data
	var c config
	if err := json.Unmarshal(data, &c); err != nil {
		return "", fmt.Errorf("lspmux: %s is not valid: %w", ConfigFile, err)
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
			return "", fmt.Errorf("lspmux: %s: %s %q is not a duration like \"10m\" or \"5s\"", ConfigFile, d.name, d.text)
		}
		*d.to = v
	}
	var skipped []string
	for _, s := range c.Servers {
		if s.Name == "" {
			return "", fmt.Errorf("lspmux: %s: a server without a name", ConfigFile)
		}
		if !file.Trusted {
			skipped = append(skipped, unsafeFields(s)...)
			s = safeFields(s)
		}
		merged := false
		for i := range opts.Specs {
			if opts.Specs[i].Name == s.Name {
				overlay(&opts.Specs[i], s)
				merged = true
			}
		}
		if !merged && file.Trusted {
			if s.Command == "" || len(s.Languages) == 0 || len(s.RootMarkers) == 0 {
				return "", fmt.Errorf("lspmux: %s: server %q needs command, languages and root_markers", ConfigFile, s.Name)
			}
			opts.Specs = append(opts.Specs, s)
		}
	}
	return file.SkippedNote(skipped), nil
}

// Programs says, a line each, what the servers of file would run if the
// workspace were trusted, for a person deciding whether to trust it: each
// server the file adds or whose program it changes, as the command line
// with its environment and initialization options. Nothing when the file
// names no program.
func Programs(root *workspace.Root, data []byte) ([]string, error) {
	var c config
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s is not valid: %w", ConfigFile, err)
	}
	opts := Options{Specs: Builtin()}
	if _, err := applyConfig(workspace.Config{Data: data, Trusted: true}, &opts); err != nil {
		return nil, err
	}
	var out []string
	for _, s := range c.Servers {
		if len(unsafeFields(s)) == 0 {
			continue
		}
		for _, spec := range opts.Specs {
			if spec.Name != s.Name {
				continue
			}
			line := "language server " + spec.Name + ": " + proc.CommandLine(spec.Command, spec.Args)
			if bin, err := root.LookTool(spec.Command); err == nil {
				line += " (" + bin + ")"
			} else {
				line += " (not found now)"
			}
			for _, k := range sortedKeys(s.Env) {
				line += fmt.Sprintf("\n    env %s=%q", k, s.Env[k])
			}
			if s.InitOptions != nil {
				io, _ := json.Marshal(s.InitOptions)
				line += "\n    init_options " + string(io)
			}
			out = append(out, line)
		}
	}
	return out, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// NeedTrust says, a line each, which of cchub's own servers start only in
// a trusted workspace, because they run code the workspace holds.
func NeedTrust() []string {
	var out []string
	for _, s := range Builtin() {
		if s.RunsWorkspaceCode == "" {
			continue
		}
		var exts []string
		for e := range s.Languages {
			exts = append(exts, e)
		}
		sort.Strings(exts)
		out = append(out, fmt.Sprintf("language server %s (for %s files): %s", s.Name, strings.Join(exts, " "), s.RunsWorkspaceCode))
	}
	return out
}

// builtinName says whether name is one of cchub's own servers.
func builtinName(name string) bool {
	for _, b := range Builtin() {
		if b.Name == name {
			return true
		}
	}
	return false
}

// unsafeFields names what s sets that would name or change a program: an
// added server as a whole, else each such field.
func unsafeFields(s Spec) []string {
	at := "servers[" + s.Name + "]"
	if !builtinName(s.Name) {
		return []string{at + " (a server of its own)"}
	}
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"command", s.Command != ""}, {"args", s.Args != nil}, {"env", s.Env != nil},
		{"init_options", s.InitOptions != nil}, {"install", s.Install != ""}} {
		if f.set {
			out = append(out, at+"."+f.name)
		}
	}
	return out
}

// safeFields is s without what names or changes a program: kept are the
// fields that only say when and where a built-in server serves (disabled,
// languages, root markers, settling).
func safeFields(s Spec) Spec {
	return Spec{Name: s.Name, Languages: s.Languages, RootMarkers: s.RootMarkers,
		Disabled: s.Disabled, ProgressSettles: s.ProgressSettles, QuietMS: s.QuietMS}
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
