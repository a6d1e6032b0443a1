package lspmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/trust"
)

// typescript-language-server runs the workspace's own
// node_modules/typescript unless told which tsserver to run: cchub gives it
// the TypeScript installed beside it, so a repository that ships a
// tsserver.js runs nothing, and the answer is still right.
func TestTypeScriptRunsItsOwnTSServerNotTheWorkspaces(t *testing.T) {
	bin := nodeServer(t, "typescript-language-server")
	if _, ok := typescriptBeside(bin); !ok {
		t.Fatalf("no TypeScript beside %s: make test installs both together", bin)
	}
	t.Setenv(trust.EnvDir, t.TempDir())
	root, dir := copyWS(t, "typescript")
	mark := filepath.Join(t.TempDir(), "ran")
	planted := "require('fs').writeFileSync(" + jsString(mark) + ", 'x'); process.exit(1);\n"
	for _, p := range []string{"node_modules/typescript/lib/tsserver.js", "node_modules/typescript/lib/tsserverlibrary.js", "node_modules/typescript/lib/typescript.js"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, p), []byte(planted), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "node_modules/typescript/package.json"), []byte(`{"name": "typescript", "version": "9.9.9", "main": "lib/typescript.js"}`), 0o644)
	m, err := New(root, Options{LookPath: func(name string) (string, error) {
		if name == "typescript-language-server" {
			return bin, nil
		}
		return "", os.ErrNotExist
	}, Timeout: 30 * 1e9})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	file := firstFile(t, dir, ".ts")
	src := read(t, dir, file)
	rep, err := m.AfterWrite(context.Background(), []File{write(t, dir, file, src+"\nconst broken: number = \"not a number\";\n")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the workspace's node_modules/typescript ran")
	}
	found := false
	for _, d := range rep.Files[file] {
		found = found || strings.Contains(d.Message, "is not assignable to type 'number'")
	}
	if !found {
		t.Fatalf("the type error was not reported: %+v", rep)
	}
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// rust-analyzer runs build scripts, proc macros and the workspace's cargo
// configuration: untrusted, it is not started, and the answer says why and
// what a person does about it. Trusted, it is looked up as any server.
func TestServerThatRunsWorkspaceCodeNeedsTrust(t *testing.T) {
	t.Setenv(trust.EnvDir, t.TempDir())
	root, dir := goWorkspace(t)
	os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[package]\nname = \"x\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.rs"), []byte("fn main() {}\n"), 0o644)
	looked := false
	look := func(name string) (string, error) { looked = true; return "", os.ErrNotExist }
	m, err := New(root, Options{LookPath: look})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = m.ownerOf("lib.rs")
	var un *Unavailable
	if !asUnavailable(err, &un) || !strings.Contains(un.Error(), "rust-analyzer runs the workspace's build scripts") || !strings.Contains(un.Error(), "cchub trust") {
		t.Fatalf("untrusted rust-analyzer: %v", err)
	}
	if looked {
		t.Error("its binary was looked up in an untrusted workspace")
	}
	if err := trust.Grant(root.Dir(), nil, nil); err != nil {
		t.Fatal(err)
	}
	m2, err := New(root, Options{LookPath: look})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if _, err = m2.ownerOf("lib.rs"); !asUnavailable(err, &un) || !strings.Contains(un.Error(), "was not found") {
		t.Fatalf("trusted rust-analyzer: %v", err)
	}
}

func asUnavailable(err error, un **Unavailable) bool {
	u, ok := err.(*Unavailable)
	*un = u
	return ok
}
