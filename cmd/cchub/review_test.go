//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

const (
	rwPattern  = "if $E != nil { return nil, $E }"
	rwTemplate = "if $E != nil {\n    return nil, fmt.Errorf(\"store: %w\", $E)\n}"
	rwQuestion = "Apply 1 change to 1 file?"
)

// asCchub is this test binary run as cchub (see TestMain).
func asCchub(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CCHUB_TEST_AS_CCHUB=1", "TERM=xterm")
	return cmd
}

// stageRewrite copies the bundled Go workspace and stages a rewrite in it
// without a terminal; it returns the workspace and the change's id.
func stageRewrite(t *testing.T) (string, string) {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join("..", "..", "testdata", "workspaces", "go"))); err != nil {
		t.Fatal(err)
	}
	out, err := asCchub(ws, "rewrite", "-p", rwPattern, "-r", rwTemplate).Output()
	if err != nil {
		t.Fatalf("rewrite: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^staged ([0-9a-f]+): `).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no id in:\n%s", out)
	}
	return ws, string(m[1])
}

// screen collects what a pseudo-terminal shows.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen holds want n times.
func (s *screen) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for strings.Count(s.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q %d time(s):\n%s", want, n, s.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// reviewInPty runs `cchub review ID` in a terminal cols wide, presses keys
// (each after the question shows once more), and returns the screen.
func reviewInPty(t *testing.T, ws, id string, cols uint16, keys ...string) string {
	t.Helper()
	cmd := asCchub(ws, "review", id)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: cols})
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
			if err != nil {
				return
			}
		}
	}()
	question := rwQuestion
	if cols < 60 {
		question = "Apply 1 change to 1"
	}
	for i, k := range keys {
		sc.waitFor(t, question, i+1)
		f.Write([]byte(k))
	}
	werr := make(chan error, 1)
	go func() { werr <- cmd.Wait() }()
	select {
	case err := <-werr:
		if err != nil {
			t.Errorf("cchub review: %v\n%s", err, sc.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("cchub review did not end:\n%s", sc.String())
	}
	f.Close()
	<-done
	return sc.String()
}

func persisted(t *testing.T, ws string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws, "store", "persist.go"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func stillStaged(t *testing.T, ws, id string) bool {
	t.Helper()
	out, err := asCchub(ws, "staged").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(out), id+"  rewrite")
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// A person reviews a staged rewrite in a terminal and answers with one
// key; the screen shows the diff with line numbers, and the files follow
// the answer.
func TestReviewInTerminal(t *testing.T) {
	const wrapped = `return nil, fmt.Errorf("store: %w", err)`
	for _, tc := range []struct {
		name    string
		keys    []string
		cols    uint16
		says    string
		applied bool
		staged  bool
	}{
		{"yes", []string{"y"}, 100, "applied ", true, false},
		{"no", []string{"n"}, 100, "discarded ", false, false},
		{"quit", []string{"q"}, 100, "kept ", false, true},
		{"ctrl-c", []string{"\x03"}, 100, "kept ", false, true},
		{"view again, then yes", []string{"v", "y"}, 100, "applied ", true, false},
		{"narrow terminal", []string{"y"}, 40, "applied ", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, id := stageRewrite(t)
			before := persisted(t, ws)
			sc := reviewInPty(t, ws, id, tc.cols, tc.keys...)
			plain := ansi.ReplaceAllString(sc, "")
			if !strings.Contains(plain, "25    │ -        return nil, err") && tc.cols >= 60 {
				t.Errorf("no numbered diff on the screen:\n%s", plain)
			}
			if !strings.Contains(sc, "\x1b[32m") {
				t.Errorf("no colour on a terminal:\n%q", sc)
			}
			if !strings.Contains(plain, tc.says+id) {
				t.Errorf("the screen does not say %q:\n%s", tc.says+id, plain)
			}
			if tc.cols < 60 {
				for _, line := range strings.FieldsFunc(plain, func(r rune) bool { return r == '\n' || r == '\r' }) {
					if n := len([]rune(line)); n > int(tc.cols) && !strings.HasPrefix(line, "applied ") && !strings.HasPrefix(line, "  store/") && !strings.HasPrefix(line, "[no gopls") {
						t.Errorf("a %d-column line on a %d-column terminal: %q", n, tc.cols, line)
					}
				}
			}
			if len(tc.keys) == 2 && strings.Count(plain, "── store/persist.go") < 2 {
				t.Errorf("v did not show the diff again:\n%s", plain)
			}
			after := persisted(t, ws)
			switch {
			case tc.applied && !strings.Contains(after, wrapped):
				t.Errorf("not applied:\n%s", after)
			case !tc.applied && after != before:
				t.Errorf("the file changed:\n%s", after)
			}
			if got := stillStaged(t, ws, id); got != tc.staged {
				t.Errorf("staged after %q: %v, want %v", tc.keys, got, tc.staged)
			}
		})
	}
}
