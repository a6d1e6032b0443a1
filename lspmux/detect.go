package lspmux

import (
	"errors"
	"fmt"
	"path"
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
	bin, err := m.lookPath(spec.Command)
	if err != nil {
		return nil, &Unavailable{
			Server: spec.Name,
			Reason: fmt.Sprintf("%s was not found (looked in PATH, beside cchub and in the workspace's .tools/bin)", spec.Command),
			Fix:    "install it: " + spec.Install,
		}
	}
	return &owner{spec: spec, dir: dir, lang: lang, bin: bin}, nil
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
