package lspmux

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Unavailable says why no server serves a file: which server would, and
// what is missing (its binary, or a root marker), with how to fix it. It
// is an answer, not a failure: "no problems" is never implied.
type Unavailable struct {
	Server string // the server that would own the file
	Reason string // what is missing, in words
	Fix    string // what to do
}

func (u *Unavailable) Error() string {
	return fmt.Sprintf("no %s: %s; %s", u.Server, u.Reason, u.Fix)
}

// ErrNoServer is wrapped when no known server owns a file's extension.
var ErrNoServer = errors.New("no language server for this kind of file")

// owner is the server that serves a file: the spec, the directory (relative
// to the workspace root, "" for the root) holding its root marker, and
// the file's language id.
type owner struct {
	spec *Spec
	dir  string
	lang string
	bin  string // the resolved binary
	// init is what initialize sends as initializationOptions: the
	// spec's, with what binFor adds.
	init map[string]any
}

// key names the server process that serves the owner: one per spec and
// root directory.
func (o *owner) key() string { return o.spec.Name + "@" + o.dir }

// ownerOf finds who serves rel. It returns ErrNoServer (wrapped) when no
// spec owns the extension, and an *Unavailable when one does but its
// binary or root marker is missing.
func (m *Mux) ownerOf(rel string) (*owner, error) {
	var spec *Spec
	lang := ""
	for i := range m.specs {
		if l := m.specs[i].languageOf(rel); l != "" && !m.specs[i].Disabled {
			spec, lang = &m.specs[i], l
			break
		}
	}
	if spec == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoServer, rel)
	}
	dir, ok := m.markerDir(rel, spec.RootMarkers)
	if !ok {
		return nil, &Unavailable{
			Server: spec.Name,
			Reason: fmt.Sprintf("%s needs one of %s in %s or a directory above it within the workspace, and there is none", spec.Name, strings.Join(spec.RootMarkers, ", "), dirOf(rel)),
			Fix:    "create one (for Go: go mod init), or open the workspace at the project's root",
		}
	}
	bin, init, un := m.binFor(spec)
	if un != nil {
		return nil, un
	}
	return &owner{spec: spec, dir: dir, lang: lang, bin: bin, init: init}, nil
}

// Serves says whether a server cchub knows (and has not disabled) owns
// rel's kind of file, whether or not it can run here: a file it owns that
// a report leaves out was not checked.
func (m *Mux) Serves(rel string) bool {
	_, err := m.ownerOf(rel)
	return !errors.Is(err, ErrNoServer)
}

// binFor finds spec's binary and the initialization options to start it
// with, or says why it cannot start here: its binary is missing, or it
// would run the workspace's own code in a workspace no one trusted.
func (m *Mux) binFor(spec *Spec) (string, map[string]any, *Unavailable) {
	if spec.RunsWorkspaceCode != "" && !m.trusted {
		return "", nil, &Unavailable{
			Server: spec.Name,
			Reason: fmt.Sprintf("%s %s, so cchub starts it only in a workspace a person trusts", spec.Name, spec.RunsWorkspaceCode),
			Fix:    "a person who trusts this repository runs: cchub trust",
		}
	}
	bin, err := m.lookPath(spec.Command)
	if err != nil {
		return "", nil, &Unavailable{
			Server: spec.Name,
			Reason: fmt.Sprintf("%s was not found (looked in PATH and beside cchub; never in the workspace)", spec.Command),
			Fix:    "install it: " + spec.Install,
		}
	}
	init := spec.InitOptions
	if spec.PinsTypeScript {
		if _, set := tsserverPath(init); !set {
			ts, ok := typescriptBeside(bin)
			if !ok && !m.trusted {
				return "", nil, &Unavailable{
					Server: spec.Name,
					Reason: fmt.Sprintf("no TypeScript was found beside %s, and without one it would run the workspace's own node_modules/typescript", bin),
					Fix:    "install both together (" + spec.Install + "), or a person who trusts this repository runs: cchub trust",
				}
			}
			if ok {
				init = withTSServer(init, ts)
			}
		}
	}
	return bin, init, nil
}

// tsserverPath is the tsserver.path initialization option, if set.
func tsserverPath(init map[string]any) (string, bool) {
	ts, _ := init["tsserver"].(map[string]any)
	p, ok := ts["path"].(string)
	return p, ok && p != ""
}

// withTSServer is init with tsserver.path set to path (init is not
// changed).
func withTSServer(init map[string]any, path string) map[string]any {
	out := map[string]any{}
	for k, v := range init {
		out[k] = v
	}
	ts := map[string]any{}
	if old, ok := init["tsserver"].(map[string]any); ok {
		for k, v := range old {
			ts[k] = v
		}
	}
	ts["path"] = path
	out["tsserver"] = ts
	return out
}

// typescriptBeside finds the TypeScript installed with the language
// server at bin: the typescript package in the node_modules that holds
// the server's own package (npm links its bin to it), as a local or a
// global npm install lays them out.
func typescriptBeside(bin string) (string, bool) {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", false
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "node_modules" {
			p := filepath.Join(dir, "typescript", "lib", "tsserver.js")
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, true
			}
		}
		if parent := filepath.Dir(dir); parent == dir {
			return "", false
		}
	}
}

func dirOf(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d + "/"
	}
	return "the workspace root"
}

// markerDir walks from rel's directory up to the workspace root and
// returns the first directory holding one of markers.
func (m *Mux) markerDir(rel string, markers []string) (string, bool) {
	dir := path.Dir(rel)
	for {
		if dir == "." {
			dir = ""
		}
		for _, mk := range markers {
			if _, err := m.root.Stat(path.Join(dir, mk)); err == nil {
				return dir, true
			}
		}
		if dir == "" {
			return "", false
		}
		dir = path.Dir(dir)
	}
}
