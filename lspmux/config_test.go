package lspmux

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// .cchub.json changes built-in servers, adds new ones and sets the times;
// a file that does not read is an error that names it and the field.
func TestConfigFile(t *testing.T) {
	root, dir := goWorkspace(t)
	cfg := `{"idle": "2m", "diagnostics_timeout": "9s", "servers": [
		{"name": "gopls", "args": ["-remote=auto"]},
		{"name": "pyright", "disabled": true},
		{"name": "zls", "command": "zls", "languages": {".zig": "zig"}, "root_markers": ["build.zig"]}]}`
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := New(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.idle != 2*time.Minute || m.timeout != 9*time.Second {
		t.Errorf("idle %v, timeout %v", m.idle, m.timeout)
	}
	byName := map[string]Spec{}
	for _, s := range m.specs {
		byName[s.Name] = s
	}
	if g := byName["gopls"]; len(g.Args) != 1 || g.Args[0] != "-remote=auto" || g.Command != "gopls" || !g.ProgressSettles {
		t.Errorf("gopls: %+v", g)
	}
	if !byName["pyright"].Disabled {
		t.Error("pyright not disabled")
	}
	if z := byName["zls"]; z.Languages[".zig"] != "zig" {
		t.Errorf("zls: %+v", z)
	}
	if _, err := m.ownerOf("x.py"); err == nil || !strings.Contains(err.Error(), "no language server for this kind of file") {
		t.Errorf("a disabled server still owns .py: %v", err)
	}
	for _, c := range []struct{ cfg, want string }{
		{`{"idle": "soon"}`, `idle "soon" is not a duration`},
		{`{"servers": [{"name": "x", "command": "x"}]}`, `server "x" needs command, languages and root_markers`},
		{`{not json`, ".cchub.json is not valid"},
	} {
		os.WriteFile(filepath.Join(dir, ConfigFile), []byte(c.cfg), 0o644)
		if _, err := New(root, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.cfg, err, c.want)
		}
	}
}
