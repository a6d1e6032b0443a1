package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/proc"
)

// BundledWorkspace is the workspace the tour copies, relative to the
// repository root.
const BundledWorkspace = "testdata/workspaces/go"

// Options says which binary serves the tour and which workspace it tours.
type Options struct {
	Binary    string // the cchub executable to run as `cchub mcp`
	Workspace string // directory to copy; "" finds BundledWorkspace upward from the working directory
}

// Run copies the workspace to a temporary folder, starts `cchub mcp` on it,
// and calls each tool, printing calls and results to w.
func Run(ctx context.Context, w io.Writer, o Options) error {
	src := o.Workspace
	if src == "" {
		var err error
		if src, err = findBundled(); err != nil {
			return err
		}
	}
	// In this process's run directory: swept by a later cchub if the
	// tour is killed before it removes it.
	run, err := proc.RunDir()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(run, "demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ws := filepath.Join(tmp, "workspace")
	if err := os.CopyFS(ws, os.DirFS(src)); err != nil {
		return fmt.Errorf("demo: copy %s: %w", src, err)
	}

	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	// The tour is self-contained: its session is served in its own
	// process, not by a shared hub that would outlive it.
	c := proc.Command(o.Binary, "mcp", "--no-share", "--root", ws)
	c.Stderr = os.Stderr
	stdin, err := c.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return err
	}
	server, err := c.Start(ctx)
	if err != nil {
		return fmt.Errorf("demo: start %s mcp: %w", o.Binary, err)
	}
	defer endServer(server, stdin, stdout)
	client := mcp.NewClient(&mcp.Implementation{Name: "cchub-demo", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		return fmt.Errorf("demo: start %s mcp: %w", o.Binary, err)
	}
	defer session.Close()

	t := &tour{w: w, s: session}
	fmt.Fprintf(w, "cchub demo: a copy of %s, served by `cchub mcp` over stdio\n\n", src)
	if init := session.InitializeResult(); init != nil {
		t.section("The server's instructions to an agent")
		fmt.Fprintln(w, indent(init.Instructions))
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(tools.Tools)
	t.section(fmt.Sprintf("tools/list: %d tools, %d bytes", len(tools.Tools), len(raw)))
	for _, tl := range tools.Tools {
		fmt.Fprintf(w, "  %-12s %s\n", tl.Name, tl.Description)
	}

	t.locate(ctx)
	t.outline(ctx)
	t.search(ctx)
	t.edit(ctx, ws)
	t.servers(ctx)
	t.graph(ctx)
	t.staged(ctx, ws, o.Binary)
	t.anchor(ctx)
	t.debug(ctx)
	t.mistakes(ctx)
	return t.err
}

// locate tours "Locate: glob, grep, paged read".
func (t *tour) locate(ctx context.Context) {
	t.section("Locate: glob, grep, paged read")
	t.call(ctx, "glob", map[string]any{"pattern": "**/*.go"})
	t.call(ctx, "grep", map[string]any{"pattern": `func \(\w+ \*\w+\)`, "include": "*.go"})
	t.call(ctx, "grep", map[string]any{"pattern": "Store(", "literal": true})
	t.call(ctx, "read", map[string]any{"path": "go.mod"})
	t.call(ctx, "read", map[string]any{"path": "."})
}

// outline tours "Outline, then read one symbol".
func (t *tour) outline(ctx context.Context) {
	t.section("Outline, then read one symbol")
	t.call(ctx, "outline", map[string]any{"path": "."})
	for _, file := range t.tourFiles(ctx) {
		text := t.call(ctx, "outline", map[string]any{"path": file})
		if id := interestingID(file, text); id != "" {
			t.call(ctx, "read_symbol", map[string]any{"id": id})
		}
	}
	// Where is a name defined, and what do its docs say?
	t.call(ctx, "outline", map[string]any{"path": ".", "match": "Report"})
	t.call(ctx, "outline", map[string]any{"path": "store/report.go", "detail": true})
	// Knowing the name is enough: no outline, no line number.
	t.call(ctx, "read_symbol", map[string]any{"id": "store/store.go:Store.Remove"})
	t.call(ctx, "read_symbol", map[string]any{"id": "store/store.go:Name"})
}

// search tours "Structural search: shapes, not characters".
func (t *tour) search(ctx context.Context) {
	t.section("Structural search: shapes, not characters")
	// $X used twice must capture the same text: the guard returns what it
	// checked. The `if err := ...; err != nil` guards have an init
	// statement, so they are a different shape.
	t.call(ctx, "search", map[string]any{"pattern": "if $X != nil { return $X }"})
	t.call(ctx, "search", map[string]any{"pattern": "fmt.Errorf($MSG, $$$ARGS)", "lang": "go"})
	t.call(ctx, "search", map[string]any{"pattern": "$A.mu.Lock()", "counts": true})
	t.call(ctx, "search", map[string]any{"pattern": "$s.Add($X)", "lang": "go"})
	// Two statements match two consecutive statements of one block.
	t.call(ctx, "search", map[string]any{"pattern": "$A.mu.Lock()\ndefer $A.mu.Unlock()", "lang": "go"})
}

// edit tours "Edit: forgiving inside, strict outside".
func (t *tour) edit(ctx context.Context, ws string) {
	t.section("Edit: forgiving inside, strict outside")
	t.call(ctx, "read", map[string]any{"path": "store/store.go", "offset": 66, "limit": 9})
	// The model remembers the indentation as spaces; the file has tabs.
	t.call(ctx, "edit", map[string]any{
		"path":       "store/store.go",
		"old_string": "    if _, ok := s.items[it.SKU]; ok {\n        return fmt.Errorf(\"%w: %s\", ErrExists, it.SKU)\n    }",
		"new_string": "    if _, dup := s.items[it.SKU]; dup {\n        return fmt.Errorf(\"%w: %s\", ErrExists, it.SKU)\n    }",
	})
	t.call(ctx, "edit", map[string]any{"path": "store/store.go", "old_string": "s.mu.Lock()", "new_string": "s.mu.RLock()"})
	t.call(ctx, "write", map[string]any{"path": "store/doc.go", "content": "// Package store keeps the stock of one shop.\npackage store\n"})
	t.call(ctx, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n+\t// Patched by the demo.\n*** Add File: NOTES.md\n+Touched by cchub demo.\n*** End Patch"})
	// Another process changes the file behind the conversation's back.
	if f, err := os.OpenFile(filepath.Join(ws, "store", "store.go"), os.O_APPEND|os.O_WRONLY, 0); err == nil {
		f.WriteString("\n// changed by someone else\n")
		f.Close()
	}
	t.call(ctx, "edit", map[string]any{"path": "store/store.go", "old_string": "_, dup := s.items", "new_string": "_, exists := s.items"})
}

// servers tours "Language servers: what the compiler says, as you write".
func (t *tour) servers(ctx context.Context) {
	t.section("Language servers: what the compiler says, as you write")
	// gopls starts on this first need; the edit's answer carries the type
	// error it introduced, and the next edit does not repeat it.
	t.call(ctx, "read", map[string]any{"path": "pricing/pricing.go", "offset": 20, "limit": 6})
	t.call(ctx, "edit", map[string]any{
		"path":       "pricing/pricing.go",
		"old_string": "func Cents(n int64) Money { return Money(n) }",
		"new_string": "func Cents(n int64) Money { return n }",
	})
	t.call(ctx, "edit", map[string]any{"path": "pricing/pricing.go", "old_string": "// Cents returns", "new_string": "// Cents gives"})
	t.call(ctx, "edit", map[string]any{
		"path":       "pricing/pricing.go",
		"old_string": "func Cents(n int64) Money { return n }",
		"new_string": "func Cents(n int64) Money { return Money(n) }",
	})
	t.call(ctx, "lsp", map[string]any{"op": "references", "path": "pricing/pricing.go", "symbol": "Cents"})
	t.call(ctx, "lsp", map[string]any{"op": "hover", "path": "store/store.go", "symbol": "Store.Add"})
	t.call(ctx, "lsp", map[string]any{"op": "rename", "path": "pricing/pricing.go", "symbol": "Cents", "new_name": "FromCents"})
	t.call(ctx, "diagnostics", map[string]any{"paths": []string{"pricing/pricing.go", "main.go"}})
}

// graph tours "The code graph: who calls this, and how far a change reaches".
func (t *tour) graph(ctx context.Context) {
	t.section("The code graph: who calls this, and how far a change reaches")
	// Built on first need and kept in .cchub: the next process reads only
	// what changed. Each edge says its evidence (confirm: true asks the
	// language server about the weak ones); tests answers what to run.
	t.call(ctx, "graph", map[string]any{"op": "symbols", "name": "Store.*"})
	t.call(ctx, "graph", map[string]any{"op": "callers", "name": "Cents"})
	t.call(ctx, "graph", map[string]any{"op": "callees", "name": "Store.Add"})
	t.call(ctx, "graph", map[string]any{"op": "blast", "name": "Cents", "depth": 2, "confirm": true})
	t.call(ctx, "graph", map[string]any{"op": "tests", "name": "Store.Add"})
}

// staged tours "Staged rewrites: a diff before disk, all or nothing after approval".
func (t *tour) staged(ctx context.Context, ws, binary string) {
	t.section("Staged rewrites: a diff before disk, all or nothing after approval")
	// A rewrite writes nothing: it answers an id, the places and the diff.
	// Under the default policy only a person applies it (cchub review or
	// cchub apply); the agent is told so.
	text := t.call(ctx, "rewrite", map[string]any{
		"pattern":  "if $E != nil { return nil, $E }",
		"template": "if $E != nil {\n    return nil, fmt.Errorf(\"load: %w\", $E)\n}",
	})
	id := stagedID(text)
	t.call(ctx, "resolve", map[string]any{"action": "list"})
	t.call(ctx, "resolve", map[string]any{"action": "accept", "id": id})
	t.cli(ctx, binary, ws, "staged")
	t.cli(ctx, binary, ws, "apply", id)
	// A change whose file was edited after staging is refused whole.
	text = t.call(ctx, "rewrite", map[string]any{"pattern": "fmt.Errorf(\"load: %w\", $E)", "template": "fmt.Errorf(\"store: load: %w\", $E)"})
	drifted := stagedID(text)
	t.call(ctx, "read", map[string]any{"path": "store/persist.go", "offset": 1, "limit": 3})
	t.call(ctx, "edit", map[string]any{"path": "store/persist.go", "old_string": "package store", "new_string": "package store // edited"})
	t.cli(ctx, binary, ws, "apply", drifted)
	t.call(ctx, "resolve", map[string]any{"action": "discard", "id": drifted})
}

// anchor tours "Anchoring a quote to its exact lines".
func (t *tour) anchor(ctx context.Context) {
	t.section("Anchoring a quote to its exact lines")
	// A review comment's quote, re-indented and with trailing spaces; one
	// copied from another file; one that matches several places.
	t.call(ctx, "anchor", map[string]any{"path": "store/store.go", "snippet": "    return fmt.Errorf(\"%w: %s\", ErrExists, it.SKU)   \n  }"})
	t.call(ctx, "anchor", map[string]any{"path": "main.go", "snippet": "  // Cents gives n cents as Money.\n  func Cents(n int64) Money { return Money(n) }"})
	t.call(ctx, "anchor", map[string]any{"path": "store/store.go", "snippet": "s.mu.Lock()"})
}

// debug tours "Debugging: what holds in a paused frame".
func (t *tour) debug(ctx context.Context) {
	t.section("Debugging: what holds in a paused frame")
	// One session per conversation, ended by itself after its time limit.
	t.call(ctx, "debug", map[string]any{"op": "launch", "breakpoints": []string{"store/store.go:72"}, "ttl_seconds": 120})
	t.call(ctx, "debug", map[string]any{"op": "inspect", "depth": 1})
	t.call(ctx, "debug", map[string]any{"op": "evaluate", "expression": "it.Qty * 2"})
	t.call(ctx, "debug", map[string]any{"op": "next"})
	// A second launch is refused while the first lives.
	t.call(ctx, "debug", map[string]any{"op": "launch"})
	t.call(ctx, "debug", map[string]any{"op": "breakpoints", "path": "store/store.go"})
	t.call(ctx, "debug", map[string]any{"op": "continue"})
	t.call(ctx, "debug", map[string]any{"op": "terminate"})
}

// mistakes tours "Errors that teach the next call".
func (t *tour) mistakes(ctx context.Context) {
	t.section("Errors that teach the next call")
	t.call(ctx, "read", map[string]any{"path": "../../etc/passwd"})
	t.call(ctx, "grep", map[string]any{"pattern": "Store("})
	t.call(ctx, "read", map[string]any{"path": "go.mdo"})
	t.call(ctx, "read_symbol", map[string]any{"id": "nosuchfile.go:1:Foo"})
	t.call(ctx, "read_symbol", map[string]any{"id": "store/store.go:store.add"})
	t.call(ctx, "read", map[string]any{"file_path": "go.mod"})
	t.call(ctx, "search", map[string]any{"pattern": "def $F($$$A):\n    return $X", "lang": "go"})
}

// endServer ends the MCP server as the protocol asks: its input is
// closed, it has a moment to exit, then it is stopped.
func endServer(server *proc.Process, pipes ...io.Closer) {
	for _, p := range pipes {
		p.Close()
	}
	select {
	case <-server.Done():
	case <-time.After(5 * time.Second):
		server.Stop()
	}
}

type tour struct {
	w   io.Writer
	s   *mcp.ClientSession
	err error
}

// cli runs a cchub command on the workspace, as a person in another
// terminal would, and prints it and its output.
func (t *tour) cli(ctx context.Context, bin, ws string, args ...string) {
	fmt.Fprintf(t.w, "\n$ cchub %s\n", strings.Join(args, " "))
	c := proc.Command(bin, append(args, "--root", ws)...)
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	err := c.Run(ctx)
	text := strings.TrimRight(out.String(), "\n")
	if err != nil {
		text += fmt.Sprintf("\n(exit: %v)", err)
	}
	fmt.Fprintf(t.w, "%s\n", indent(text))
}

// stagedID is the id in a "staged KIND ID: ..." answer.
func stagedID(text string) string {
	if m := stagedIDPattern.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return "unknown"
}

var stagedIDPattern = regexp.MustCompile(`^staged \w+ ([0-9a-f]+):`)

func (t *tour) section(title string) {
	fmt.Fprintf(t.w, "\n== %s ==\n", title)
}

// call runs one tool and prints the call and its result; it returns the
// result's text.
func (t *tour) call(ctx context.Context, name string, args map[string]any) string {
	a, _ := json.Marshal(args)
	fmt.Fprintf(t.w, "\n> %s %s\n", name, a)
	res, err := t.s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		fmt.Fprintf(t.w, "  protocol error: %v\n", err)
		t.err = errors.Join(t.err, fmt.Errorf("demo: %s: %w", name, err))
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	text := b.String()
	label := "result"
	if res.IsError {
		label = "error (isError)"
	}
	fmt.Fprintf(t.w, "< %s, %d bytes:\n%s\n", label, len(text), indent(strings.TrimRight(text, "\n")))
	return text
}

// tourFiles picks the files to outline: the bundled workspace's store and
// its long report (whose outline lists its blocks), else the first Go
// files glob finds.
func (t *tour) tourFiles(ctx context.Context) []string {
	res, err := t.s.CallTool(ctx, &mcp.CallToolParams{Name: "glob", Arguments: map[string]any{"pattern": "**/*.go"}})
	if err != nil || res.IsError {
		return nil
	}
	var files []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			for _, line := range strings.Split(tc.Text, "\n") {
				if line = strings.TrimSpace(line); strings.HasSuffix(line, ".go") && !strings.Contains(line, " ") {
					files = append(files, line)
				}
			}
		}
	}
	var picked []string
	for _, want := range []string{"store/store.go", "store/report.go"} {
		for _, f := range files {
			if f == want {
				picked = append(picked, f)
			}
		}
	}
	if len(picked) == 0 && len(files) > 0 {
		picked = files[:1]
	}
	return picked
}

// interestingID picks a function or method of a few lines from an
// outline's text, to read by name, or falls back to the footer's example.
func interestingID(path, outline string) string {
	for _, m := range funcLine.FindAllStringSubmatch(outline, -1) {
		start, _ := strconv.Atoi(m[1])
		end, _ := strconv.Atoi(m[2])
		if end-start >= 4 && end-start <= 40 {
			return path + ":" + m[3]
		}
	}
	if m := exampleIDPattern.FindStringSubmatch(outline); m != nil {
		return m[1]
	}
	return ""
}

var (
	// A function's outline line: START-END name(params) results.
	funcLine         = regexp.MustCompile(`(?m)^(\d+)-(\d+) ([A-Za-z_][\w.]*)\(`)
	exampleIDPattern = regexp.MustCompile(`read_symbol id=(\S+)`)
)

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

func findBundled() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		cand := filepath.Join(dir, BundledWorkspace)
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("demo: %s not found above the working directory; run from the cchub checkout (make demo) or pass --workspace DIR", BundledWorkspace)
		}
		dir = parent
	}
}
