package hub

import (
	"context"
	"strings"
	"testing"
	"time"

	"cchub/textedit"
	"cchub/workspace/wstest"
)

// A new TypeScript error shows the quick fix its server offers: a name
// used without its import is answered with the import to add.
func TestTypeScriptNewErrorShowsItsQuickFix(t *testing.T) {
	wstest.RequireProgram(t, "typescript-language-server")
	dir := writeModule(t, map[string]string{
		"package.json":  "{\"name\": \"ts-fix\", \"private\": true}\n",
		"tsconfig.json": "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"es2020\", \"module\": \"commonjs\"}, \"include\": [\"src\"]}\n",
		"src/money.ts":  "export function formatMoney(n: number): string {\n  return n.toFixed(2) + \" EUR\";\n}\n",
		"src/shop.ts":   "export function price(n: number): string {\n  return String(n);\n}\n",
	})
	h, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	r := NewRun()
	w, err := h.Edit(ctx, "src/shop.ts", textedit.Change{Old: "return String(n);", New: "return formatMoney(n);"}, r)
	if err != nil {
		t.Fatal(err)
	}
	text := w.Text()
	// A cold server may settle after the answer: its news comes later.
	for deadline := time.Now().Add(time.Minute); strings.Contains(text, "diagnostics pending") && !strings.Contains(text, "have settled") && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		text += h.LateNews(ctx, r)
	}
	if !strings.Contains(text, "Cannot find name 'formatMoney'") || !strings.Contains(text, "quick fix: Add import from \"./money\"") {
		t.Fatalf("the new error, or its quick fix, is not shown:\n%s", text)
	}
}
