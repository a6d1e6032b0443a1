// Golden answers: what a model reads from each MCP tool, kept as text in
// testdata/golden/*.txtar and reviewed as text, as gopls's marker tests
// and cmd/go's scripts keep theirs. `go test ./mcpserver/ -run Golden -update`
// rewrites the expected answers from what the tools say now; without
// -update a difference fails with a diff.
//
// # The archive
//
// Each archive is one MCP session over one fresh copy of a workspace.
//
// Its comment says what the archive is about, in prose. Lines of the
// comment of the form "KEY: VALUE" with one of these keys set it up:
//
//	workspace: go         copy ../testdata/workspaces/go first
//	needs: gopls dlv      programs the calls need (skipped without them,
//	                      failed without them under CCHUB_REQUIRE_PEERS=1)
//	approval: agent       the hub's approval policy (default: human)
//	repeat: big.txt 2100 x
//	                      write big.txt as 2100 lines "x" (for the output
//	                      bound, without a 2,100-line file in the archive)
//
// A section named "call N: TOOL {ARGS}" is a call of TOOL with the JSON
// object ARGS (or none), and its body is the exact answer. After ARGS,
// "(error)" says the answer is an error result, and "no final newline"
// (as in "(error, no final newline)") that the answer's text does not end
// with the body's last newline. -update numbers the calls and writes the
// flags; a new call may be written with no number and no body.
//
// A section named "@NAME" is not a file: it is text for an argument. A
// string argument that is exactly "@NAME" is replaced by that section's
// body (a patch, a multi-line old_string), so that it reads as it is
// instead of as an escaped JSON string.
//
// Every other section is a file written into the workspace (over the
// copied one) before the hub opens. Every file and directory of the
// workspace then gets the same fixed modification time, so that glob,
// which lists newest first and then by path, lists them by path; a file
// a call writes is newer and comes first.
//
// The calls run in order in one session, so an edit is followed by the
// diagnostics it brought, a rewrite by its resolve, a debug launch by
// its inspect.
//
// # What is normalised
//
// Only what differs from run to run, each replaced by a name that says
// what was there (see normalise):
//
//   - the workspace's directory → $WORK (and $WORK in an argument is the
//     directory);
//   - the id of a staged change (rewrite, lsp rename) → $CHANGE1,
//     $CHANGE2... in the order they first appear (and $CHANGE1 in an
//     argument is the id);
//   - the time stamp and random part of a spill file's name →
//     .cchub/spill/TOOL-$STAMP.txt (in an argument, the last such file
//     of TOOL);
//   - the minute a staged change was made, in resolve's list → $MINUTE;
//   - the time left of a debug session → $LEFT;
//   - the seconds a debugged test took (--- PASS: TestX (0.02s)) →
//     $SECONDS;
//   - the binary dlv builds, in the run directory (proc.RunDir) and
//     named by the time → $RUNDIR/debug-$NANOS;
//   - the toolchain's root → $GOROOT, and in a file under it (a stack's
//     runtime frames) the line number → $LINE and the architecture in
//     the name (asm_amd64.s) → $GOARCH, which change with the Go release
//     and the machine, not with cchub.
//
// Answers that depend on timing (diagnostics that have not settled) are
// avoided by choosing calls whose answer does not.

package mcpserver_test

import (
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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"

	"cchub/hub"
	"cchub/mcpserver"
	"cchub/workspace/wstest"
)

var update = flag.Bool("update", false, "rewrite the expected answers in testdata/golden")

// serve opens a hub on dir and returns a client session with its MCP
// server, as an agent holds one. It is the one place this file uses the
// hub's API.
func serve(t *testing.T, dir, approval string) *mcp.ClientSession {
	t.Helper()
	opts := hub.Options{}
	if approval != "" {
		policy, err := hub.ParseApproval(approval)
		if err != nil {
			t.Fatal(err)
		}
		opts.Approval = policy
	}
	h, err := hub.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.NewServer(h).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "golden", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestGolden(t *testing.T) {
	// The anchor tool asks a model named here; the goldens are of the
	// tool without one.
	t.Setenv("CCHUB_ANCHOR_LLM_URL", "")
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no archives in testdata/golden")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runGolden(t, file)
		})
	}
}

// goldenCall is one call of an archive and the answer it expects.
type goldenCall struct {
	section int // its index in the archive's files
	tool    string
	args    string // as written: JSON, or empty
	want    answer
}

// answer is what a tool call answered, as the archive holds it.
type answer struct {
	text    string
	isError bool
}

// goldenArchive is an archive read: its setup and its calls.
type goldenArchive struct {
	ar        *txtar.Archive
	workspace string
	needs     []string
	approval  string
	repeats   []repeat
	argText   map[string]string // "@NAME" → text
	files     []txtar.File      // written into the workspace
	calls     []goldenCall
}

type repeat struct {
	path  string
	count int
	line  string
}

// fixedTime is every workspace file's modification time.
var fixedTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func runGolden(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	g, err := parseGolden(txtar.Parse(data))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, p := range g.needs {
		wstest.RequireProgram(t, p)
	}
	dir := setUpWorkspace(t, g)
	cs := serve(t, dir, g.approval)

	n := normaliser{dirs: []string{dir}}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		n.dirs = append(n.dirs, real) // what the hub may say instead
	}
	got := make([]answer, len(g.calls))
	for i, c := range g.calls {
		args, err := g.arguments(c, &n)
		if err != nil {
			t.Fatalf("%s: call %d: %v", file, i+1, err)
		}
		a, err := call(cs, c.tool, args)
		if err != nil {
			t.Fatalf("call %d: %s: %v", i+1, c.tool, err)
		}
		a.text = n.normalise(a.text)
		got[i] = a
	}

	if *update {
		out, err := g.format(got)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if !bytes.Equal(out, data) {
			if err := os.WriteFile(file, out, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("updated %s", file)
		}
		return
	}
	for i, c := range g.calls {
		w, a := c.want, got[i]
		if w == a {
			continue
		}
		what := fmt.Sprintf("call %d: %s %s", i+1, c.tool, c.args)
		if w.isError != a.isError {
			t.Errorf("%s: error = %v, want %v", what, a.isError, w.isError)
		}
		if w.text != a.text {
			t.Errorf("%s: the answer differs (go test -run Golden -update rewrites it):\n%s", what, udiff.Unified("want", "got", w.text, a.text))
		}
	}
}

// call calls tool, or answers one of the two MCP requests whose answers
// a model also reads: "initialize" (the server's name, version and
// instructions) and "tools/list" (every tool's description, annotations
// and input schema, as JSON).
func call(cs *mcp.ClientSession, tool string, args map[string]any) (answer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	switch tool {
	case "initialize":
		init := cs.InitializeResult()
		return answer{text: fmt.Sprintf("%s %s\n\n%s\n", init.ServerInfo.Name, init.ServerInfo.Version, init.Instructions)}, nil
	case "tools/list":
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			return answer{}, err
		}
		data, err := json.MarshalIndent(res.Tools, "", "  ")
		return answer{text: string(data) + "\n"}, err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return answer{}, fmt.Errorf("protocol error: %v", err)
	}
	var b strings.Builder
	for _, content := range res.Content {
		tc, ok := content.(*mcp.TextContent)
		if !ok {
			return answer{}, fmt.Errorf("answered %T, not text", content)
		}
		b.WriteString(tc.Text)
	}
	return answer{text: b.String(), isError: res.IsError}, nil
}

// parseGolden reads an archive's setup and calls.
func parseGolden(ar *txtar.Archive) (*goldenArchive, error) {
	g := &goldenArchive{ar: ar, argText: map[string]string{}}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch key {
		case "workspace":
			g.workspace = value
		case "needs":
			g.needs = strings.Fields(value)
		case "approval":
			g.approval = value
		case "repeat":
			f := strings.SplitN(value, " ", 3)
			if len(f) != 3 {
				return nil, fmt.Errorf("repeat: %q: want PATH COUNT LINE", value)
			}
			n, err := strconv.Atoi(f[1])
			if err != nil {
				return nil, fmt.Errorf("repeat: %q: %v", value, err)
			}
			g.repeats = append(g.repeats, repeat{f[0], n, f[2]})
		}
	}
	for i, f := range ar.Files {
		switch {
		case strings.HasPrefix(f.Name, "@"):
			g.argText[f.Name] = string(f.Data)
		case callSection.MatchString(f.Name):
			c, err := parseCall(f.Name, f.Data)
			if err != nil {
				return nil, err
			}
			c.section = i
			g.calls = append(g.calls, c)
		default:
			g.files = append(g.files, f)
		}
	}
	if len(g.calls) == 0 {
		return nil, fmt.Errorf("no calls: write them as sections \"call: TOOL {ARGS}\"")
	}
	return g, nil
}

// callSection tells a call's section from a file's.
var callSection = regexp.MustCompile(`^call( \d+)?:`)

// callName matches a call's section name: "call N: TOOL ARGS (FLAGS)",
// with N and FLAGS optional.
var callName = regexp.MustCompile(`^call(?: \d+)?: ([a-z_/]+)(?: (.*?))?(?: \(([a-z, ]+)\))?$`)

func parseCall(name string, body []byte) (goldenCall, error) {
	m := callName.FindStringSubmatch(name)
	if m == nil {
		return goldenCall{}, fmt.Errorf("section %q: write a call as \"call N: TOOL {ARGS}\"", name)
	}
	c := goldenCall{tool: m[1], args: strings.TrimSpace(m[2]), want: answer{text: string(body)}}
	if m[3] != "" {
		for _, flag := range strings.Split(m[3], ",") {
			switch strings.TrimSpace(flag) {
			case "error":
				c.want.isError = true
			case "no final newline":
				c.want.text = strings.TrimSuffix(c.want.text, "\n")
			default:
				return goldenCall{}, fmt.Errorf("section %q: unknown flag %q (error, no final newline)", name, flag)
			}
		}
	}
	return c, nil
}

// arguments are c's arguments as the server gets them: @NAME, $WORK and
// $CHANGEn replaced.
func (g *goldenArchive) arguments(c goldenCall, n *normaliser) (map[string]any, error) {
	args := map[string]any{}
	if c.args == "" {
		return args, nil
	}
	dec := json.NewDecoder(strings.NewReader(c.args))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, fmt.Errorf("the arguments %s are not a JSON object: %v", c.args, err)
	}
	var expand func(v any) any
	expand = func(v any) any {
		switch v := v.(type) {
		case string:
			if text, ok := g.argText[v]; ok {
				return text
			}
			return n.denormalise(v)
		case []any:
			for i := range v {
				v[i] = expand(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = expand(v[k])
			}
		}
		return v
	}
	expand(args)
	return args, nil
}

// setUpWorkspace makes the archive's workspace in a temp dir.
func setUpWorkspace(t *testing.T, g *goldenArchive) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	if g.workspace != "" {
		if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "workspaces", g.workspace))); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range g.files {
		write(f.Name, f.Data)
	}
	for _, r := range g.repeats {
		write(r.path, []byte(strings.Repeat(r.line+"\n", r.count)))
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, fixedTime, fixedTime)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// format is the archive with got as its answers.
func (g *goldenArchive) format(got []answer) ([]byte, error) {
	ar := &txtar.Archive{Comment: g.ar.Comment, Files: append([]txtar.File(nil), g.ar.Files...)}
	for i, c := range g.calls {
		a := got[i]
		name := fmt.Sprintf("call %d: %s", i+1, c.tool)
		if c.args != "" {
			name += " " + c.args
		}
		var flags []string
		if a.isError {
			flags = append(flags, "error")
		}
		body := a.text
		if body != "" && !strings.HasSuffix(body, "\n") {
			flags = append(flags, "no final newline")
			body += "\n"
		}
		if len(flags) > 0 {
			name += " (" + strings.Join(flags, ", ") + ")"
		}
		if txtar.NeedsQuote([]byte(body)) {
			return nil, fmt.Errorf("call %d: %s: the answer holds a line that reads as a section marker (-- NAME --); change the call", i+1, c.tool)
		}
		ar.Files[c.section] = txtar.File{Name: name, Data: []byte(body)}
	}
	return txtar.Format(ar), nil
}

// normaliser replaces in answers what differs from run to run, and puts
// it back into arguments.
type normaliser struct {
	dirs    []string          // the workspace's directory, as given and resolved
	changes []string          // staged change ids, $CHANGE1 first
	spills  map[string]string // a spill file's name as normalised → the last one's real name
}

var (
	stagedID   = regexp.MustCompile(`\bstaged [a-z]+ ([0-9a-f]{6}):`)
	spillName  = regexp.MustCompile(`(\.cchub/spill/[a-z_]+)-\d{8}-\d{6}-[0-9a-f]{8}\.txt`)
	minute     = regexp.MustCompile(`\(\d{4}-\d\d-\d\d \d\d:\d\d\)`)
	timeLeft   = regexp.MustCompile(`\b(?:\d+h)?(?:\d+m)?\d+s left\b`)
	testTime   = regexp.MustCompile(`(?m)^(\s*--- (?:PASS|FAIL|SKIP): \S+) \(\d+\.\d+s\)`)
	debugBin   = regexp.MustCompile(`(?:/[^\s/]+)*/cchub-run-\d+-\d+-\d+-\d+/debug-\d+`)
	gorootFile = regexp.MustCompile(`\$GOROOT/\S+:\d+`)
	lineNumber = regexp.MustCompile(`:\d+$`)
)

// goroot is the toolchain's root, where a stack's runtime frames are.
var goroot = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

func (n *normaliser) normalise(s string) string {
	for _, d := range n.dirs {
		s = strings.ReplaceAll(s, d, "$WORK")
	}
	for _, m := range stagedID.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(n.changes, m[1]) {
			n.changes = append(n.changes, m[1])
		}
	}
	for i, id := range n.changes {
		s = regexp.MustCompile(`\b`+id+`\b`).ReplaceAllString(s, "$$CHANGE"+strconv.Itoa(i+1))
	}
	for _, m := range spillName.FindAllStringSubmatch(s, -1) {
		if n.spills == nil {
			n.spills = map[string]string{}
		}
		n.spills[m[1]+"-$STAMP.txt"] = m[0]
	}
	s = spillName.ReplaceAllString(s, "$1-$$STAMP.txt")
	s = minute.ReplaceAllString(s, "($$MINUTE)")
	s = timeLeft.ReplaceAllString(s, "$$LEFT left")
	s = testTime.ReplaceAllString(s, "$1 ($$SECONDS)")
	s = debugBin.ReplaceAllString(s, "$$RUNDIR/debug-$$NANOS")
	if g := goroot(); g != "" && strings.Contains(s, g) {
		s = strings.ReplaceAll(s, g, "$GOROOT")
		s = gorootFile.ReplaceAllStringFunc(s, func(f string) string {
			f = strings.ReplaceAll(f, "_"+runtime.GOARCH+".", "_$GOARCH.")
			return lineNumber.ReplaceAllString(f, ":$$LINE")
		})
	}
	return s
}

func (n *normaliser) denormalise(s string) string {
	for i := len(n.changes) - 1; i >= 0; i-- { // $CHANGE10 before $CHANGE1
		s = strings.ReplaceAll(s, "$CHANGE"+strconv.Itoa(i+1), n.changes[i])
	}
	for short, name := range n.spills {
		s = strings.ReplaceAll(s, short, name)
	}
	return strings.ReplaceAll(s, "$WORK", n.dirs[0])
}
