package lspmux

import (
	"path/filepath"
	"strings"
	"time"

	"cchub/lang"
)

// Spec says how to run one language server and which files it owns.
type Spec struct {
	// Name names the server in messages and in configuration.
	Name string `json:"name"`
	// Command is the program (looked up as Mux.lookPath says) and Args
	// its arguments; Env is added to the hub's environment.
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Languages maps the file extensions the server owns (".go") to the
	// LSP language identifiers it expects ("go").
	Languages map[string]string `json:"languages"`
	// RootMarkers are file names one of which must be found in the file's
	// directory or one above it, within the workspace root; the nearest
	// directory holding one is the server's root.
	RootMarkers []string `json:"root_markers"`
	// InitOptions are sent as initializationOptions.
	InitOptions map[string]any `json:"init_options,omitempty"`
	// Settings answer the server's workspace/configuration requests,
	// keyed by section ("python"); a section inside one ("python.analysis")
	// is found in it. A section not given is answered null, as are all of
	// a server without Settings. Not read from ConfigFile: settings can
	// name programs (an interpreter, build flags).
	Settings map[string]any `json:"-"`
	// Install says how to get the binary, for the message when it is
	// missing.
	Install string `json:"install,omitempty"`
	// RunsWorkspaceCode, when set, says how the server runs code the
	// workspace names (build scripts, macros, its own toolchain
	// configuration): it starts only in a workspace a person trusted.
	RunsWorkspaceCode string `json:"-"`
	// PinsTypeScript: the server runs whatever TypeScript it is told to,
	// and else the workspace's own node_modules/typescript; it is given
	// the one installed beside it (initialization option tsserver.path).
	PinsTypeScript bool `json:"-"`
	// AnalyzesOpen: the server runs some of its checks (gopls: its
	// analyzers, vet's among them) only on the packages of open files; a
	// whole-workspace answer opens one file of each package first.
	AnalyzesOpen bool `json:"-"`
	// QueriesOnDisk: the server answers a query (definition, references,
	// …) on a file it was not told, reading the file from disk (gopls
	// does). A Batch on a file the server does not hold open asks it so,
	// without opening it: an open file makes gopls diagnose its package
	// (analyzers included), which a confirmation spread over forty
	// packages pays forty times.
	QueriesOnDisk bool `json:"-"`
	// ChecksProject: the server publishes diagnostics only for open
	// documents (typescript-language-server); the Mux asks its tsserver
	// for every file of the project instead, and the last answer is the
	// settled state (project.go).
	ChecksProject bool `json:"-"`
	// Folders: the server keeps a view of its own for each workspace
	// folder (gopls, pyright), so that the git worktrees of one
	// repository can share its process in a shared hub (Pool).
	Folders bool `json:"-"`
	// Disabled turns a built-in server off.
	Disabled bool `json:"disabled,omitempty"`
	// ProgressSettles says the server reports each diagnostic pass as
	// work-done progress, so that its end, not a quiet spell, says the
	// diagnostics have settled. Progress from other servers (loading a
	// project) says nothing of their diagnostics.
	ProgressSettles bool `json:"progress_settles,omitempty"`
	// QuietMS is how long the server must have said nothing after it
	// published for a change for its diagnostics to count as settled
	// (default 300): long enough to span its waves.
	QuietMS int `json:"quiet_ms,omitempty"`
}

func (s *Spec) quiet() time.Duration {
	if s.QuietMS > 0 {
		return time.Duration(s.QuietMS) * time.Millisecond
	}
	return defaultQuiet
}

// setting is the answer to a workspace/configuration request for
// section: the value of its key, or found inside the key of an enclosing
// section ("python.analysis" in "python"); nil when neither is given.
func (s *Spec) setting(section string) any {
	if v, ok := s.Settings[section]; ok {
		return v
	}
	parts := strings.Split(section, ".")
	for i := len(parts) - 1; i > 0; i-- {
		v, ok := s.Settings[strings.Join(parts[:i], ".")]
		if !ok {
			continue
		}
		for _, p := range parts[i:] {
			m, _ := v.(map[string]any)
			if v, ok = m[p]; !ok {
				return nil
			}
		}
		return v
	}
	return nil
}

// languageOf is the LSP language id of rel for s, or "" when s does not
// own it.
func (s *Spec) languageOf(rel string) string {
	return s.Languages[strings.ToLower(filepath.Ext(rel))]
}

// Builtin are the servers cchub knows without configuration.
func Builtin() []Spec {
	return []Spec{
		{
			Name: "gopls", Command: "gopls",
			Languages:   lang.LSPLanguages(lang.Go),
			RootMarkers: []string{"go.work", "go.mod"},
			InitOptions: map[string]any{
				// Progress for every diagnostic pass is how the Mux
				// knows gopls has settled (see settle.go); the short
				// delay brings the second pass (other packages, a caller
				// broken in another file) within a bounded wait.
				"verboseWorkDoneProgress": true,
				"diagnosticsDelay":        "0s",
			},
			Install:         "go install golang.org/x/tools/gopls@v0.23.0 (it lands in $(go env GOPATH)/bin: put that on PATH, or beside cchub)",
			ProgressSettles: true,
			AnalyzesOpen:    true,
			QueriesOnDisk:   true,
			Folders:         true,
		},
		{
			Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"},
			Languages:   lang.LSPLanguages(lang.Python),
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"},
			Install:     "npm install -g pyright",
			// pyright checks only open files unless told otherwise: a
			// signature changed in one file would report none of its
			// callers in others. It reads python.analysis from section
			// "python" (1.1.4xx) or "python.analysis"; given an analysis
			// object, it takes a missing autoSearchPaths for false.
			Settings: map[string]any{
				"python": map[string]any{
					"analysis": map[string]any{"diagnosticMode": "workspace", "autoSearchPaths": true},
				},
			},
			// It publishes the callers of an edited file in other files
			// up to about 400 ms after the file itself, and its progress
			// does not cover that: the quiet spans it.
			QuietMS: 750,
			Folders: true,
		},
		{
			Name: "typescript-language-server", Command: "typescript-language-server", Args: []string{"--stdio"},
			Languages:      lang.LSPLanguages(lang.JavaScript, lang.TypeScript, lang.TSX),
			RootMarkers:    []string{"tsconfig.json", "jsconfig.json", "package.json"},
			Install:        "npm install -g typescript-language-server typescript",
			PinsTypeScript: true,
			ChecksProject:  true,
			// What it publishes itself (for open documents: a file's
			// syntax errors, then its type errors, about 100 ms apart and
			// further under load) is waited for only before its import
			// fixes are asked (organize).
			QuietMS: 750,
		},
		{
			Name: "rust-analyzer", Command: "rust-analyzer",
			Languages:   lang.LSPLanguages(lang.Rust),
			RootMarkers: []string{"Cargo.toml"},
			Install:     "rustup component add rust-analyzer",
			// cargo metadata obeys the workspace's .cargo/config.toml
			// (build.rustc, rustc-wrapper) and rust-toolchain.toml; the
			// server then builds and runs build.rs and proc macros.
			RunsWorkspaceCode: "runs the workspace's build scripts, procedural macros and cargo configuration",
		},
		{
			Name: "clangd", Command: "clangd",
			Languages:   lang.LSPLanguages(lang.C, lang.Cpp),
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd"},
			Install:     "apt-get install clangd",
		},
	}
}
