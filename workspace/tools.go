package workspace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookTool finds a peer program cchub runs (a language server, a debug
// adapter): an absolute path as it is; else on PATH or beside the running
// cchub (make build puts both in .tools/bin). The workspace's own
// directories are never searched: a repository's committed .tools/bin/gopls
// is input, not a program to run. A trusted .cchub.json may name one by an
// absolute path.
func (r *Root) LookTool(name string) (string, error) {
	switch {
	case filepath.IsAbs(name):
		return exec.LookPath(name)
	case strings.ContainsRune(name, '/'):
		// A path a trusted .cchub.json gives relative to the workspace,
		// never to whatever directory cchub was started in.
		return exec.LookPath(filepath.Join(r.Dir(), name))
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil // exec.LookPath refuses a find through "." in PATH
	}
	if exe, err := os.Executable(); err == nil {
		if p, err := exec.LookPath(filepath.Join(filepath.Dir(exe), name)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH or beside cchub", name)
}
