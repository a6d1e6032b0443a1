package lspmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cchub/workspace"
)

// pyWorkspace is a small Python project: a function, its caller in
// another module, and a module with an error of its own.
func pyWorkspace(t *testing.T) (*workspace.Root, string) {
	t.Helper()
	return moduleIn(t, filepath.Join(t.TempDir(), "py"), map[string]string{
		"pyproject.toml":   "[project]\nname = \"shop\"\nversion = \"0.1.0\"\n",
		"shop/__init__.py": "",
		"shop/utils.py":    "def total(price: int, qty: int) -> int:\n    return price * qty\n",
		"shop/caller.py":   "from shop.utils import total\n\n\ndef bill() -> int:\n    return total(3, 4)\n",
		"shop/broken.py":   "count: int = \"many\"\n",
	})
}

func newPyrightMux(t *testing.T, root *workspace.Root, specs []Spec) *Mux {
	t.Helper()
	return newPyrightMuxWith(t, root, Options{Specs: specs})
}

// newPyrightMuxWith is newPyrightMux with opts (a Pool), its Timeout and
// LookPath set.
func newPyrightMuxWith(t *testing.T, root *workspace.Root, opts Options) *Mux {
	t.Helper()
	bin := nodeServer(t, "pyright-langserver")
	opts.Timeout = 30 * time.Second
	opts.LookPath = func(name string) (string, error) {
		if name == "pyright-langserver" {
			return bin, nil
		}
		return "", os.ErrNotExist
	}
	m, err := New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func findDiag(ds []Diagnostic, severity, part string) bool {
	for _, d := range ds {
		if d.Severity == severity && strings.Contains(d.Message, part) {
			return true
		}
	}
	return false
}

// pyright checks every file of the workspace, not only open ones: a
// changed signature reports its broken caller in a file never opened, and
// the whole workspace's diagnostics list the errors of files never opened.
func TestPyrightReportsFilesNotOpen(t *testing.T) {
	root, dir := pyWorkspace(t)
	m := newPyrightMux(t, root, nil)
	ctx := context.Background()
	changed := "def total(price: int, qty: int, tax: int) -> int:\n    return price * qty + tax\n"
	old := read(t, dir, "shop/utils.py")
	f := write(t, dir, "shop/utils.py", changed)
	f.Old = []byte(old) // pyright starts for this change: it is told the file as it was first
	rep, err := m.AfterWrite(ctx, []File{f})
	if err != nil {
		t.Fatal(err)
	}
	if !findDiag(rep.New["shop/caller.py"], "error", `Argument missing for parameter "tax"`) {
		t.Fatalf("the broken caller in shop/caller.py, never opened, is not reported: %+v", rep)
	}
	if len(rep.Notes) != 0 {
		t.Errorf("notes: %q", rep.Notes)
	}
	// Fixed: the caller's error is gone.
	rep, err = m.AfterWrite(ctx, []File{write(t, dir, "shop/utils.py", "def total(price: int, qty: int, tax: int = 0) -> int:\n    return price * qty + tax\n")})
	if err != nil {
		t.Fatal(err)
	}
	if ds, ok := rep.Files["shop/caller.py"]; !ok || findDiag(ds, "error", "Argument missing") {
		t.Errorf("after the fix, shop/caller.py: %+v (reported: %v)", ds, ok)
	}
	// The workspace's diagnostics, from a server that has loaded it.
	rep, err = m.Workspace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !findDiag(rep.Files["shop/broken.py"], "error", `"Literal['many']" is not assignable to declared type "int"`) {
		t.Errorf("workspace: no error of shop/broken.py, never opened: %+v", rep)
	}
}

// Settings answer workspace/configuration per section, found inside an
// enclosing one; sections not given, and servers without Settings, get
// null.
func TestSettingsAnswerTheirSection(t *testing.T) {
	var py *Spec
	for _, s := range Builtin() {
		if s.Name == "pyright" {
			py = &s
		}
	}
	analysis, _ := py.setting("python.analysis").(map[string]any)
	if analysis["diagnosticMode"] != "workspace" {
		t.Errorf("python.analysis: %v", py.setting("python.analysis"))
	}
	python, _ := py.setting("python").(map[string]any)
	if a, _ := python["analysis"].(map[string]any); a["diagnosticMode"] != "workspace" {
		t.Errorf("python: %v", python)
	}
	for _, section := range []string{"pyright", "python.analysis.nothing", "", "gopls"} {
		if v := py.setting(section); v != nil {
			t.Errorf("%q: %v, want null", section, v)
		}
	}
	gopls := Builtin()[0]
	if v := gopls.setting("gopls"); v != nil {
		t.Errorf("gopls: %v, want null", v)
	}
}
