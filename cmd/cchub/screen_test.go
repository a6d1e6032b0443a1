//go:build unix

package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// The hostile workspace: file names and lines that, shown as they are,
// move the cursor up and erase the line above (CUU, EL), return to the
// start of the line and overwrite it (CR), set the window title and
// hide a link (OSC 0, OSC 8), clear the screen through a C1 CSI, reverse
// the text that follows (U+202E), or are not UTF-8.
const (
	hostileGo = "package main\n\n" +
		"// MARK-A keep me\n" +
		"// MARK-B \x1b[1A\x1b[2K overwrote\n" +
		"// MARK-C visible\rHIDDEN-CR\n" +
		"// MARK-D \x1b]8;;http://evil.example/\x07click\x1b]8;;\x07\n" +
		"// MARK-E \x1b]0;pwned\x07 title\n" +
		"// MARK-F \u009b2J c1\n" +
		"// MARK-G \u202eevil\u202c bidi\n" +
		"// MARK-H bad \xff\xfe utf8\n" +
		"func hostile() int { return wrap(1) + len(mark(\"MARK-S \x1b[1A\x1b[2K gone\")) }\n\n" +
		"func wrap(x int) int { return x }\n\n" +
		"func mark(s string) string { return s }\n"
	escName  = "esc\x1b[1A\x1b[2Kname.go"
	bidiName = "bidi\u202eog.go"
	badName  = "bad\xffname.go"
)

// Shown escaped, each mark reads on the screen as this.
var marksShown = []string{
	"// MARK-A keep me",
	`// MARK-B \x1b[1A\x1b[2K overwrote`,
	`// MARK-C visible\rHIDDEN-CR`,
	`// MARK-D \x1b]8;;http://evil.example/\x07click\x1b]8;;\x07`,
	`// MARK-E \x1b]0;pwned\x07 title`,
	`// MARK-F \u009b2J c1`,
	`// MARK-G \u202eevil\u202c bidi`,
	"// MARK-H bad ",
}

// hostileWorkspace writes the workspace, a git repository whose last
// commit is followed by a change to a function in the file whose name
// moves the cursor (for blast), and stages a rewrite whose template does
// (for staged and review); it returns the workspace and the change's id.
func hostileWorkspace(t *testing.T) (string, string) {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	files := map[string]string{
		"go.mod":     "module example.com/hostile\n\ngo 1.22\n",
		"hostile.go": hostileGo,
		escName:      "package main\n\nfunc named() int { return wrap(2) }\n",
		bidiName:     "package main\n\nfunc reversed() int { return 3 }\n",
		badName:      "package main\n\nfunc badly() int { return 4 }\n",
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "hostile"},
	} {
		git := exec.Command("git", args...)
		git.Dir = ws
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, escName), []byte("package main\n\nfunc named() int { return wrap(5) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := asCchub(ws, "rewrite", "-p", "wrap($X)", "-r", "unwrap(\x1b[1A\x1b[2K$X)", "hostile.go").Output()
	if err != nil {
		t.Fatalf("rewrite: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^staged ([0-9a-f]+): `).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no id in:\n%s", out)
	}
	return ws, string(m[1])
}

const screenCols, screenRows = 160, 100

// runInPty runs cmd on a pseudo-terminal, as a person's shell would (the
// kernel's line discipline included), and returns all it wrote there.
func runInPty(t *testing.T, cmd *exec.Cmd) []byte {
	t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: screenRows, Cols: screenCols})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sc screen
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			sc.mu.Lock()
			sc.buf.Write(b[:n])
			sc.mu.Unlock()
			if err != nil { // EIO once the program and its children closed the terminal
				return
			}
		}
	}()
	werr := make(chan error, 1)
	go func() { werr <- cmd.Wait() }()
	select {
	case <-werr: // an exit status of 1 or 2 is part of what is shown
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-werr
		t.Errorf("%v did not end", cmd.Args)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Errorf("the terminal of %v was not closed", cmd.Args)
	}
	return []byte(sc.String())
}

// rendered is what a terminal emulator shows after out: the screen's
// text, whether the program set the window's title, and whether a
// character on screen carries a hyperlink.
type rendered struct {
	text   string
	titled string
	linked string
}

func render(t *testing.T, out []byte) rendered {
	t.Helper()
	e := vt.NewEmulator(screenCols, screenRows)
	var r rendered
	e.SetCallbacks(vt.Callbacks{Title: func(s string) { r.titled = s }})
	drained := make(chan struct{})
	go func() { // the emulator's answers to queries, which nobody reads
		defer close(drained)
		io.Copy(io.Discard, e)
	}()
	e.Write(out)
	if n := e.ScrollbackLen(); n > 0 {
		t.Fatalf("%d lines scrolled off the %d-row screen; make it taller", n, screenRows)
	}
	for y := 0; y < screenRows && r.linked == ""; y++ {
		for x := 0; x < screenCols; x++ {
			if c := e.CellAt(x, y); c != nil && c.Link.URL != "" {
				r.linked = c.Link.URL
				break
			}
		}
	}
	r.text = strings.TrimRight(e.String(), " \n")
	// The reader ends at the pipe's end, before Close: Close and Read
	// of an Emulator are not safe together.
	e.InputPipe().(*io.PipeWriter).CloseWithError(io.EOF)
	<-drained
	e.Close()
	return r
}

// What a person sees of cchub's answers on a terminal is what the
// workspace holds: every mark, cursor movement and title escape shown as
// text, nothing erased, overwritten, retitled or linked. Each command
// runs as the real binary on a pseudo-terminal and its output is drawn by
// a terminal emulator (TestScreenShowsWhatUnescapedOutputHides shows
// that the same emulator does hide what these escapes would).
func TestScreenShowsWhatTheRepositoryHolds(t *testing.T) {
	ws, id := hostileWorkspace(t)
	// Quoted where a tool quotes a path (ShowPath), bare where not.
	escShown := `esc\x1b[1A\x1b[2Kname.go`
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"grep", []string{"grep", "MARK"}, append([]string{"hostile.go"}, marksShown...)},
		{"read", []string{"read", "hostile.go"}, marksShown},
		{"glob", []string{"glob", "*.go"}, []string{`"` + escShown + `"`, `"bidi\u202eog.go"`, `"bad\xffname.go"`, "hostile.go"}},
		{"outline", []string{"outline", "--detail", "."}, []string{escShown, `bidi\u202eog.go`, `bad\xffname.go`, "hostile"}},
		{"search", []string{"search", "-p", "mark($S)", "hostile.go"}, []string{`mark("MARK-S \x1b[1A\x1b[2K gone")`}},
		{"graph", []string{"graph", "symbols", "named"}, []string{escShown}},
		{"blast", []string{"blast", "--base", "HEAD"}, []string{"named", escShown}},
		{"staged", []string{"staged"}, []string{id, `unwrap(\x1b[1A\x1b[2K$X)`}},
		{"error line", []string{"read", "nope\x1b[1A\x1b[2K.go"}, []string{`cchub: no such file: nope\x1b[1A\x1b[2K.go`}},
		{"json", []string{"grep", "--json", "MARK"}, []string{"MARK-A keep me", `MARK-B \u001b[1A\u001b[2K overwrote`,
			`MARK-C visible\rHIDDEN-CR`, `MARK-F \u009b2J c1`, `MARK-G \u202eevil\u202c bidi`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := render(t, runInPty(t, asCchub(ws, tc.args...)))
			checkScreen(t, r, tc.want)
		})
	}
	t.Run("review prompt", func(t *testing.T) {
		r := render(t, []byte(reviewInPty(t, ws, id, 100, "q")))
		checkScreen(t, r, []string{
			`unwrap(\x1b[1A\x1b[2K$X)`,                         // the title
			"-func hostile() int { return wrap(1) + len(mark(", // the line the added one would erase
			`+func hostile() int { return unwrap(\x1b[1A\x1b[2K1)`,
			"kept " + id,
		})
	})
}

// checkScreen fails unless the screen shows every line of want and the
// program neither retitled the window nor linked text.
func checkScreen(t *testing.T, r rendered, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(r.text, w) {
			t.Errorf("the screen does not show %q:\n%s", w, r.text)
		}
	}
	if r.titled != "" {
		t.Errorf("the window's title was set to %q", r.titled)
	}
	if r.linked != "" {
		t.Errorf("text on the screen links to %q", r.linked)
	}
}

// The control: the same file shown as it is (cat, on the same kind of
// terminal, drawn by the same emulator) loses its marks. Were cchub's
// escaping gone, TestScreenShowsWhatTheRepositoryHolds would see this.
func TestScreenShowsWhatUnescapedOutputHides(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hostile.go"), []byte(hostileGo), 0o644); err != nil {
		t.Fatal(err)
	}
	cat := exec.Command("cat", "hostile.go")
	cat.Dir = dir
	r := render(t, runInPty(t, cat))
	for _, gone := range []string{"MARK-A keep me", "MARK-C visible", "http://evil.example", "MARK-H bad"} {
		if strings.Contains(r.text, gone) {
			t.Errorf("unescaped, %q is still on the screen: the emulator does not obey what cchub escapes\n%s", gone, r.text)
		}
	}
	if r.titled != "pwned" {
		t.Errorf("unescaped, the title is %q, want pwned", r.titled)
	}
	if r.linked != "http://evil.example/" {
		t.Errorf("unescaped, the link is %q", r.linked)
	}
	if !strings.Contains(r.text, "HIDDEN-CR") || !strings.Contains(r.text, "overwrote") {
		t.Errorf("the emulator shows nothing of the file:\n%s", r.text)
	}
}

// JSON reaches the terminal with its C1 and bidirectional controls as \u
// escapes, and still parses to exactly what the repository holds: the
// staged change's diff (what a tool would give git apply) and a grep
// match's line.
func TestJSONKeepsTheBytes(t *testing.T) {
	ws, id := hostileWorkspace(t)
	out, err := asCchub(ws, "review", "--json", id).Output()
	if err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	if strings.ContainsAny(string(out), "\x1b\u009b\u202e") {
		t.Errorf("review --json writes a control as it is:\n%q", out)
	}
	var staged struct {
		Files []struct{ Diff string } `json:"files"`
	}
	if err := json.Unmarshal(out, &staged); err != nil || len(staged.Files) != 1 {
		t.Fatalf("review --json: %v, %d files\n%s", err, len(staged.Files), out)
	}
	if want := "+func hostile() int { return unwrap(\x1b[1A\x1b[2K1) + len(mark(\"MARK-S \x1b[1A\x1b[2K gone\")) }\n"; !strings.Contains(staged.Files[0].Diff, want) {
		t.Errorf("the diff in JSON is not the change's bytes:\n%q", staged.Files[0].Diff)
	}
	out, err = asCchub(ws, "grep", "--json", "MARK-G").Output()
	if err != nil {
		t.Fatalf("grep --json: %v\n%s", err, out)
	}
	var found struct {
		Matches []struct{ Text string } `json:"matches"`
	}
	if err := json.Unmarshal(out, &found); err != nil || len(found.Matches) != 1 || found.Matches[0].Text != "// MARK-G \u202eevil\u202c bidi" {
		t.Errorf("grep --json: %v, %+v\n%s", err, found, out)
	}
}
