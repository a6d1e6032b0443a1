// Command answerbytes measures, on projects no one here wrote, what
// cchub's MCP answers cost a model's context and whether its hints point
// at the right place: the tool list, a staged rewrite of many matches, a
// depth-1 blast, a whole workspace's Python diagnostics, a misremembered
// old_string, a stale place given to lsp, and reading a symbol by its bare
// name. Every call goes through the TypeScript SDK's client
// (mcpserver/testdata/mcp-client), as other agents' clients make them.
//
// With -before OLD it runs the same calls through an older cchub binary
// too and prints both columns, so one run shows what changed.
//
// Corpora: cobra and go-git from the Go module proxy; PyJWT from Debian's
// python3-jwt (skipped, and said, when it is not installed).
//
// usage: go run ./bench/answerbytes -cchub .tools/bin/cchub [-before OLD]
// (make bench runs it; the language servers must be on PATH: .tools/bin)
//
// It exits 1 when a hint points at the wrong place or a call that must
// work fails; never for a size.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"cchub/bench/corpus"
)

const (
	cobraVersion = "github.com/spf13/cobra@v1.8.1"
	gogitVersion = "github.com/go-git/go-git/v5@v5.19.3"
	jwtDir       = "/usr/lib/python3/dist-packages/jwt" // Debian's python3-jwt
)

func main() {
	bin := flag.String("cchub", ".tools/bin/cchub", "the cchub binary to measure")
	before := flag.String("before", "", "an older cchub binary to measure the same way (a before/after table)")
	client := flag.String("client", "mcpserver/testdata/mcp-client/client.mjs", "the TypeScript SDK client driver")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	tmp, err := os.MkdirTemp("", "answerbytes-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	env := os.Environ()
	cobraSrc, err := corpus.GoModDir(ctx, cobraVersion, env)
	if err != nil {
		fail(err)
	}
	gogitSrc, err := corpus.GoModDir(ctx, gogitVersion, env)
	if err != nil {
		fail(err)
	}
	clientPath, err := filepath.Abs(*client)
	if err != nil {
		fail(err)
	}

	bins := []string{*bin}
	names := []string{"now"}
	if *before != "" {
		bins = []string{*before, *bin}
		names = []string{"before", "now"}
	}
	var cols []map[string]string
	wrong := 0
	for i, b := range bins {
		b, err := filepath.Abs(b)
		if err != nil {
			fail(err)
		}
		m := &measure{bin: b, client: clientPath, dir: filepath.Join(tmp, names[i]), vals: map[string]string{}}
		if err := m.run(ctx, cobraSrc, gogitSrc); err != nil {
			fail(fmt.Errorf("%s (%s): %w", names[i], b, err))
		}
		cols = append(cols, m.vals)
		if names[i] == "now" {
			wrong = m.wrong
		}
	}
	printTable(names, cols)
	if wrong > 0 {
		fmt.Printf("\n%d wrong or failed answers (see above)\n", wrong)
		os.Exit(1)
	}
}

// measure runs the calls through one binary and keeps what they cost.
type measure struct {
	bin, client, dir string
	vals             map[string]string
	wrong            int
}

// rows is the table's order: a key, and what it says.
var rows = [][2]string{
	{"list", "tools/list, bytes (TypeScript SDK)"},
	{"rewrite40", "rewrite c.Name() (cobra), answer bytes"},
	{"rewrite40.count", "  its count line"},
	{"rewrite117", "rewrite fmt.Sprintf($$$A) (cobra), answer bytes"},
	{"rewrite117.count", "  its count line"},
	{"blast", "graph blast Repository.Config depth 1 (go-git), bytes"},
	{"blast.head", "  its first line"},
	{"diag", "diagnostics, whole workspace (PyJWT), bytes"},
	{"diag.err", "diagnostics severity=error (PyJWT), bytes"},
	{"miss", "edit with a misremembered ExecuteC: hint's place (want ~1054)"},
	{"miss.bytes", "  its bytes"},
	{"bare", "read_symbol id=ExecuteC (no path)"},
	{"stale", "lsp references at ExecuteC's old line after 7 lines were added"},
}

func (m *measure) set(k, v string) { m.vals[k] = v }

func (m *measure) run(ctx context.Context, cobraSrc, gogitSrc string) error {
	cobra := filepath.Join(m.dir, "cobra")
	if err := corpus.CopyTree(cobraSrc, cobra, corpus.Copy{}); err != nil {
		return err
	}
	execLine, err := lineOf(filepath.Join(cobra, "command.go"), "func (c *Command) ExecuteC() (cmd *Command, err error) {")
	if err != nil {
		return err
	}
	// The way a model remembers ExecuteC's start: context.TODO for
	// context.Background, the comment dropped, the rest right.
	missed := "func (c *Command) ExecuteC() (cmd *Command, err error) {\n\tif c.ctx == nil {\n\t\tc.ctx = context.TODO()\n\t}\n\n\tif c.HasParent() {\n\t\treturn c.Root().ExecuteC()\n\t}\n"
	col := strings.Index("func (c *Command) ExecuteC() (cmd *Command, err error) {", "ExecuteC") + 1
	steps := []map[string]any{
		{"list": true},
		{"tool": "rewrite", "args": map[string]any{"pattern": "c.Name()", "template": "c.DisplayName()", "lang": "go"}},
		{"tool": "rewrite", "args": map[string]any{"pattern": "fmt.Sprintf($$$A)", "template": "fmt.Sprint($$$A)", "lang": "go"}},
		{"tool": "read", "args": map[string]any{"path": "command.go", "offset": execLine, "limit": 20}},
		{"tool": "edit", "args": map[string]any{"path": "command.go", "old_string": missed, "new_string": "// x\n" + missed}},
		{"tool": "read_symbol", "args": map[string]any{"id": "ExecuteC"}},
		{"exec": "sed -i '1i // a\\n// b\\n// c\\n// d\\n// e\\n// f\\n// g' command.go"},
		{"tool": "lsp", "args": map[string]any{"op": "references", "path": "command.go", "line": execLine, "column": col}},
	}
	out, err := m.script(ctx, cobra, steps)
	if err != nil {
		return err
	}
	m.set("list", strconv.Itoa(out[0].Bytes))
	for i, k := range []string{"rewrite40", "rewrite117"} {
		s := out[1+i]
		m.set(k, size(s))
		m.set(k+".count", firstLine(s.Text))
	}
	miss := out[4]
	m.set("miss.bytes", size(miss))
	if at := placeNear(miss.Text, "command.go", execLine); at != "" {
		m.set("miss", at)
	} else {
		m.set("miss", "WRONG: "+firstPlace(miss.Text, "command.go"))
		m.wrong++
	}
	bare := out[5]
	switch {
	case !bare.IsError && strings.Contains(bare.Text, "func (c *Command) ExecuteC()"):
		m.set("bare", "read ("+size(bare)+")")
	default:
		m.set("bare", "FAILED: "+firstLine(bare.Text))
		m.wrong++
	}
	stale := out[7]
	newLine := strconv.Itoa(execLine + 7)
	switch {
	case strings.Contains(stale.Text, "symbol=") || strings.Contains(stale.Text, "command.go:"+newLine):
		m.set("stale", "names the new place or symbol= ("+size(stale)+")")
	default:
		m.set("stale", "WRONG: "+firstLine(stale.Text))
		m.wrong++
	}

	gogit := filepath.Join(m.dir, "gogit")
	if err := corpus.CopyTree(gogitSrc, gogit, corpus.Copy{}); err != nil {
		return err
	}
	out, err = m.script(ctx, gogit, []map[string]any{
		{"tool": "graph", "args": map[string]any{"op": "blast", "name": "Repository.Config", "depth": 1}},
	})
	if err != nil {
		return err
	}
	m.set("blast", size(out[0]))
	m.set("blast.head", firstLine(out[0].Text))

	if _, err := os.Stat(jwtDir); err != nil {
		m.set("diag", "skipped: apt-get install python3-jwt")
		return nil
	}
	py := filepath.Join(m.dir, "pyjwt")
	if err := corpus.CopyTree(jwtDir, filepath.Join(py, "jwt"), corpus.Copy{Skip: func(_ string, d fs.DirEntry) bool { return d.Name() == "__pycache__" }}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(py, "pyproject.toml"), []byte("[project]\nname = \"pyjwt\"\nversion = \"2.6.0\"\n"), 0o644); err != nil {
		return err
	}
	// The first call starts pyright, which may still be loading when
	// the answer is due; the second is the settled whole.
	out, err = m.script(ctx, py, []map[string]any{
		{"tool": "diagnostics", "args": map[string]any{}},
		{"sleep": 5000},
		{"tool": "diagnostics", "args": map[string]any{}},
		{"tool": "diagnostics", "args": map[string]any{"severity": "error"}},
	})
	if err != nil {
		return err
	}
	m.set("diag", size(out[2])+": "+firstLine(out[2].Text))
	m.set("diag.err", size(out[3])+": "+firstLine(out[3].Text))
	return nil
}

// step is one line of the client's output.
type step struct {
	Bytes   int    `json:"bytes"`
	Tool    string `json:"tool"`
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
}

// script runs steps through the client against `cchub mcp --root dir`.
func (m *measure) script(ctx context.Context, dir string, steps []map[string]any) ([]step, error) {
	js, err := json.Marshal(steps)
	if err != nil {
		return nil, err
	}
	sf := filepath.Join(m.dir, "script.json")
	if err := os.WriteFile(sf, js, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", m.client, sf, "--", m.bin, "mcp", "--root", dir)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("client: %v: %s", err, tail(stderr.String()))
	}
	var out []step
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var s step
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("client line %q: %v", sc.Text(), err)
		}
		out = append(out, s)
	}
	if len(out) != len(steps) {
		return nil, fmt.Errorf("client answered %d of %d steps: %s", len(out), len(steps), tail(stderr.String()))
	}
	return out, nil
}

func size(s step) string {
	n := strconv.Itoa(len(s.Text))
	if s.IsError {
		n += " (error)"
	}
	return n
}

var placeRE = regexp.MustCompile(`([\w./-]+):(\d+)(?:-(\d+))?`)

// placeNear is the first place in text in file whose range holds line (or
// starts within 5 lines of it), or "".
func placeNear(text, file string, line int) string {
	for _, m := range placeRE.FindAllStringSubmatch(text, -1) {
		if m[1] != file {
			continue
		}
		a, _ := strconv.Atoi(m[2])
		b := a
		if m[3] != "" {
			b, _ = strconv.Atoi(m[3])
		}
		if (a <= line && line <= b) || (a-line <= 5 && line-a <= 5) {
			return m[0]
		}
		return ""
	}
	return ""
}

func firstPlace(text, file string) string {
	for _, m := range placeRE.FindAllStringSubmatch(text, -1) {
		if m[1] == file {
			return m[0]
		}
	}
	return "no place in " + file + ": " + firstLine(text)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 110 {
		s = s[:110] + "…"
	}
	return s
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

func lineOf(path, text string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	i := bytes.Index(b, []byte(text))
	if i < 0 {
		return 0, fmt.Errorf("%s no longer holds %q: the corpus version changed", path, text)
	}
	return bytes.Count(b[:i], []byte("\n")) + 1, nil
}

func printTable(names []string, cols []map[string]string) {
	fmt.Printf("| | %s |\n|---|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
	for _, r := range rows {
		fmt.Printf("| %s |", r[1])
		for _, c := range cols {
			v := c[r[0]]
			if v == "" {
				v = "–"
			}
			fmt.Printf(" %s |", strings.ReplaceAll(v, "|", "\\|"))
		}
		fmt.Println()
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "answerbytes:", err)
	os.Exit(2)
}
