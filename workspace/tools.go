package workspace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// LookTool finds a peer program cchub runs (a language server, a debug
// adapter): an absolute path as it is; else on PATH, beside the running
// cchub (make build puts both in .tools/bin), or in the workspace's own
// .tools/bin.
func (r *Root) LookTool(name string) (string, error) {
	if filepath.IsAbs(name) {
		return exec.LookPath(name)
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	dirs = append(dirs, filepath.Join(r.Dir(), ".tools", "bin"))
	for _, d := range dirs {
		if p, err := exec.LookPath(filepath.Join(d, name)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH, beside cchub or in .tools/bin", name)
}
