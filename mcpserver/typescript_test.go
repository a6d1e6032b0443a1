package mcpserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cchub/workspace/wstest"
)

// Through MCP, as an agent works on a TypeScript project: the
// workspace's diagnostics are tsc's, files never opened included; a
// signature changed by an edit tells, in that edit's answer, the callers
// it breaks in other files, as tsc finds them; a fix of one of them is
// told as gone.
func TestMCPTypeScriptDiagnosticsCoverTheProject(t *testing.T) {
	wstest.RequireProgram(t, "typescript-language-server")
	tsc, err := exec.LookPath("tsc")
	wstest.RequirePeer(t, "tsc (make test installs TypeScript into .tools/lsp)", err == nil)
	ws := t.TempDir()
	for rel, text := range map[string]string{
		"package.json":  `{"name": "shop", "private": true}` + "\n",
		"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "commonjs"}, "include": ["src"]}` + "\n",
		"src/lib.ts":    "export function greet(name: string): string {\n\treturn \"hi \" + name;\n}\n",
		"src/a.ts":      "import { greet } from \"./lib\";\n\nexport const a = greet(\"a\");\n",
		"src/b.ts":      "import { greet } from \"./lib\";\n\nexport function b(): string {\n\treturn greet(\"b\");\n}\n",
		"src/old.ts":    "export const old: number = \"old\";\n",
	} {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, newTestHub(t, ws))

	// A cold server may not be done within the bound: the answer says
	// so, and a later call has the project.
	var text string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		var isErr bool
		text, isErr = callText(t, cs, "diagnostics", map[string]any{"severity": "error"})
		if isErr {
			t.Fatalf("diagnostics:\n%s", text)
		}
		if !strings.Contains(text, "still starting") && !strings.Contains(text, "project's files") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.HasPrefix(text, "1 diagnostic: 1 error in 1 file\nsrc/old.ts: 1 error\n  1:14 error [2322] Type 'string' is not assignable to type 'number'.\n") {
		t.Fatalf("workspace diagnostics, where tsc finds one error in src/old.ts:\n%s", text)
	}

	text, isErr := callText(t, cs, "edit", map[string]any{"path": "src/lib.ts", "old_string": "name: string)", "new_string": "name: string, loud: boolean)"})
	if isErr {
		t.Fatalf("edit:\n%s", text)
	}
	out, _ := exec.Command(tsc, "--noEmit", "--pretty", "false", "-p", ws).CombinedOutput()
	for _, want := range []string{"src/a.ts(3,18): error TS2554", "src/b.ts(4,9): error TS2554"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("tsc does not find %s:\n%s", want, out)
		}
	}
	if strings.Contains(text, "pending") || !strings.Contains(text, "diagnostics: 1 new error in src/a.ts; 1 new error in src/b.ts;") ||
		!strings.Contains(text, "src/a.ts\n  3:18 error [typescript 2554] Expected 2 arguments, but got 1.") ||
		!strings.Contains(text, "src/b.ts\n  4:9 error [typescript 2554] Expected 2 arguments, but got 1.") || strings.Contains(text, "old.ts") {
		t.Fatalf("the edit's answer does not tell the callers it broke in src/a.ts and src/b.ts, as tsc does:\n%s", text)
	}

	// A fix of one caller: what was told goes, nothing is new.
	text, isErr = callText(t, cs, "edit", map[string]any{"path": "src/a.ts", "old_string": `greet("a")`, "new_string": `greet("a", true)`})
	if isErr || !strings.Contains(text, "diagnostics: nothing new\ngone: error [2554] Expected 2 arguments, but got 1. (src/a.ts)\n") {
		t.Fatalf("the fix of the caller in src/a.ts is not told as gone:\n%s", text)
	}
}
