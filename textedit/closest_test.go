package textedit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cobraCommand is cobra's command.go, from the module cache (cobra is a
// dependency of this module, so the go command finds it offline).
func cobraCommand(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/spf13/cobra").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/spf13/cobra: %v (run go mod download)", err)
	}
	data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "command.go"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// funcLines is where the function starting with sig begins and ends
// (its closing brace at the start of a line).
func funcLines(t *testing.T, body, sig string) (first, last int, text string) {
	t.Helper()
	at := mustOnce(t, body, "\n"+sig) + 1
	end := strings.Index(body[at:], "\n}\n")
	if end < 0 {
		t.Fatalf("no end of %s", sig)
	}
	text = body[at : at+end+2]
	first = lineOf(body, at)
	return first, first + strings.Count(text, "\n") - 1, text
}

var closestPlace = regexp.MustCompile(`The closest text is at f:(\d+)(?:-(\d+))?`)

// hintPlace is the place an ErrNotFound names, ok false when none.
func hintPlace(t *testing.T, err error) (first, last int, ok bool) {
	t.Helper()
	m := closestPlace.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, 0, false
	}
	first, _ = strconv.Atoi(m[1])
	last = first
	if m[2] != "" {
		last, _ = strconv.Atoi(m[2])
	}
	return first, last, true
}

// notFoundHint is the error an edit of old_string gets when no layer
// takes it. (Given a new_string, the forgiving layers take several of
// the cases below; the hint is for when they do not.)
func notFoundHint(body, old string) error {
	return notFound(newEffort(context.Background()), body, "f", old)
}

// The ways a model misremembers a function it read a while ago: each
// must be refused, and the hint must name the lines of that function,
// listed, with the line that differs.
func TestClosestTextIsTheFunctionMeant(t *testing.T) {
	body := cobraCommand(t)
	first, last, fn := funcLines(t, body, "func (c *Command) ExecuteC() (cmd *Command, err error) {")
	ls := strings.Split(strings.TrimSuffix(fn, "\n"), "\n")
	head := strings.Join(ls[:18], "\n") // the signature and the start of the body
	replaceLine := func(s, from, to string) string {
		if strings.Count(s, from) != 1 {
			t.Fatalf("premise: %q not once in the old_string", from)
		}
		return strings.Replace(s, from, to, 1)
	}
	cases := map[string]struct {
		old    string
		differ string // a line the hint must say is not in old_string ("" none)
	}{
		"renamed variable": {old: replaceLine(fn, "\targs := c.args\n", "\tcmdArgs := c.args\n"), differ: "args := c.args"},
		"dropped line":     {old: replaceLine(fn, "\tc.checkCommandGroups()\n", ""), differ: "c.checkCommandGroups()"},
		"added line":       {old: replaceLine(fn, "\tc.InitDefaultHelpCmd()\n", "\tc.InitDefaultHelpCmd()\n\tc.InitDefaultVersionFlag()\n")},
		"indentation and a renamed call": {
			old:    replaceLine(strings.ReplaceAll(fn, "\t", "    "), "c.initCompleteCmd(args)", "c.initCompletionCmd(args)"),
			differ: "c.initCompleteCmd(args)",
		},
		"different comment": {old: replaceLine(fn, "// windows hook", "// run the Windows hook first"), differ: "// windows hook"},
		"older signature": {
			old:    replaceLine(head, "func (c *Command) ExecuteC() (cmd *Command, err error) {", "func (c *Command) ExecuteC() (*Command, error) {"),
			differ: "func (c *Command) ExecuteC() (cmd *Command, err error) {",
		},
		"two lines swapped": {old: replaceLine(head, "\t// windows hook\n\tif preExecHookFn != nil {\n", "\tif preExecHookFn != nil {\n\t// windows hook\n")},
		// The receiver renamed throughout and the comments left out: no
		// line of it is the file's whole.
		"receiver renamed throughout": {old: renamedThroughout(head)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := notFoundHint(body, tc.old)
			f, l, ok := hintPlace(t, err)
			if !ok {
				t.Fatalf("no place named:\n%v", err)
			}
			if f < first || l > last+3 || f > first+2 {
				t.Errorf("place %d-%d, want ExecuteC's lines %d-%d:\n%v", f, l, first, last, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "\n"+strconv.Itoa(f)+"\t") {
				t.Errorf("the place's first line is not listed numbered:\n%v", msg)
			}
			if tc.differ != "" {
				n := first + indexLine(t, ls, tc.differ)
				if !strings.Contains(msg, "not in old_string: ") || !regexp.MustCompile(`not in old_string: [^.]*\b`+strconv.Itoa(n)+`\b`).MatchString(msg) {
					t.Errorf("line %d (%s) not said to differ:\n%v", n, tc.differ, msg)
				}
				if !strings.Contains(msg, "\n"+strconv.Itoa(n)+"\t") {
					t.Errorf("differing line %d not listed:\n%v", n, msg)
				}
			}
			if len(msg) > 3000 {
				t.Errorf("hint of %d bytes would be clipped", len(msg))
			}
		})
	}
}

// renamedThroughout is code as a model remembers it with its receiver
// named cmd instead of c, and without its comments.
func renamedThroughout(code string) string {
	var out []string
	for _, l := range strings.Split(code, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "//") {
			continue
		}
		l = strings.ReplaceAll(l, "(c *Command)", "(cmd *Command)")
		out = append(out, regexp.MustCompile(`\bc\.`).ReplaceAllString(l, "cmd."))
	}
	return strings.Join(out, "\n")
}

func indexLine(t *testing.T, ls []string, s string) int {
	t.Helper()
	for i, l := range ls {
		if strings.TrimSpace(l) == s {
			return i
		}
	}
	t.Fatalf("premise: %q not a line of the function", s)
	return 0
}

// The reported case: a short old_string whose every line but the
// signature says little still lands on ExecuteC, not on a setter that
// shares its words (`func (c *Command)`).
func TestClosestTextNotASetterSharingWords(t *testing.T) {
	body := cobraCommand(t)
	first, _, _ := funcLines(t, body, "func (c *Command) ExecuteC() (cmd *Command, err error) {")
	old := "func (c *Command) ExecuteC() (*Command, error) {\n\t// Regardless of what command execute is called on, run on Root only\n\tif c.HasParent() {\n\t\treturn c.Root().ExecuteC()\n\t}\n"
	err := refused(t, body, Change{Old: old, New: "x"}, ErrNotFound)
	f, _, ok := hintPlace(t, err)
	if !ok || f < first || f > first+6 {
		t.Errorf("want a place in ExecuteC (line %d):\n%v", first, err)
	}
}

// When no line of old_string is in the file, no place is invented: the
// error says so and names the calls that find code.
func TestClosestTextNoneWhenNothingShared(t *testing.T) {
	body := cobraCommand(t)
	for _, old := range []string{
		"func (c *Command) RunAllHooksTwice() error {\n\tfor _, h := range c.hooksTwice {\n\t\th.fire(c.ctxTwice)\n\t}\n\treturn nil\n}",
		// Only lines every file has: they name no place.
		"\tif err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}",
	} {
		err := refused(t, body, Change{Old: old, New: "x"}, ErrNotFound)
		if _, _, ok := hintPlace(t, err); ok {
			t.Errorf("a place named for %q:\n%v", old, err)
		}
		if !strings.Contains(err.Error(), "read_symbol id=f:") || !strings.Contains(err.Error(), "grep pattern=") {
			t.Errorf("no read_symbol/grep suggested:\n%v", err)
		}
	}
}

// A one-line old_string with one word wrong shares no line, but text
// very like it is still shown.
func TestClosestTextOneLineTypo(t *testing.T) {
	body := cobraCommand(t)
	at := mustOnce(t, body, "\tc.InitDefaultHelpCmd()\n\n\targs := c.args\n")
	want := lineOf(body, at) + 2
	err := refused(t, body, Change{Old: "\targs := c.argz\n", New: "x"}, ErrNotFound)
	if f, _, ok := hintPlace(t, err); !ok || f != want {
		t.Errorf("want line %d:\n%v", want, err)
	}
}

// Seen keeps the contents it saw most recently, within its bound, for a
// stale place to be read back; a file forgotten or seen again is not
// kept twice.
func TestSeenKeepsRecentTexts(t *testing.T) {
	var s Seen
	big := strings.Repeat("x", seenTextFile)
	for i := 0; i < seenTextBytes/seenTextFile+2; i++ {
		s.Saw("f"+strconv.Itoa(i), []byte(big))
	}
	if _, ok := s.Text("f0"); ok {
		t.Error("the oldest content is kept beyond the bound")
	}
	last := "f" + strconv.Itoa(seenTextBytes/seenTextFile+1)
	if got, ok := s.Text(last); !ok || got != big {
		t.Error("the newest content is not kept")
	}
	s.Saw("small", []byte("a\nb\n"))
	s.Saw("small", []byte("a\nc\n"))
	if got, _ := s.Text("small"); got != "a\nc\n" {
		t.Errorf("Text = %q, want the last seen", got)
	}
	if !s.Changed("small", []byte("a\nb\n")) || s.Changed("small", []byte("a\nc\n")) || s.Changed("never", nil) {
		t.Error("Changed")
	}
	s.Forget("small")
	if _, ok := s.Text("small"); ok {
		t.Error("a forgotten file's content is kept")
	}
	if s.textBytes > seenTextBytes || len(s.texts) != len(s.textOrder) {
		t.Errorf("%d bytes kept in %d texts (%d in order)", s.textBytes, len(s.texts), len(s.textOrder))
	}
	s.Saw("huge", []byte(big+"y"))
	if _, ok := s.Text("huge"); ok {
		t.Error("a content over the per-file bound is kept")
	}
}

// A place of long lines is listed within the bound an error is shown
// whole in, and says how many lines it left out.
func TestClosestTextBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "\tvalue%03d := compute(%s)\n", i, strings.Repeat("argument, ", 15))
	}
	body := b.String()
	old := strings.Replace(strings.Join(strings.SplitAfter(body, "\n")[50:90], ""), "value060", "value60", 1)
	err := notFoundHint(body, old)
	f, l, ok := hintPlace(t, err)
	if !ok || f != 51 || l != 90 {
		t.Fatalf("place %d-%d, want 51-90:\n%v", f, l, err)
	}
	if msg := err.Error(); len(msg) > 3600 || !strings.Contains(msg, "\n61\t") || !strings.Contains(msg, "lines)") {
		t.Errorf("%d bytes, or line 61 not listed, or no count of lines left out:\n%s", len(msg), msg)
	}
}

// Whatever old_string is (a slice of a real file, mutated at random),
// the place named is inside the file, and the lines listed are the file's.
func TestClosestTextAlwaysInTheFile(t *testing.T) {
	body := readGo(t, "net/http/server.go")
	ls := strings.SplitAfter(body, "\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		from := rng.IntN(len(ls) - 1)
		part := slices.Clone(ls[from:min(len(ls), from+1+rng.IntN(40))])
		origin := len(part)
		for k := rng.IntN(4); k > 0; k-- {
			j := rng.IntN(len(part))
			switch rng.IntN(3) {
			case 0:
				part[j] = "\tmisremembered := " + strconv.Itoa(i) + "\n"
			case 1:
				part = slices.Delete(part, j, j+1)
			default:
				if j+1 < len(part) {
					part[j], part[j+1] = part[j+1], part[j]
				}
			}
			if len(part) == 0 {
				part = []string{"x\n"}
			}
		}
		err := notFoundHint(body, strings.Join(part, ""))
		f, l, ok := hintPlace(t, err)
		// A slice of a dozen lines or more, a few of them changed, is
		// found where it came from.
		if origin >= 12 && (!ok || l < from+1 || f > from+origin) {
			t.Errorf("lines %d-%d, a few changed, named %d-%d (%v):\n%v", from+1, from+origin, f, l, ok, err)
		}
		if !ok {
			continue
		}
		if f < 1 || l < f || l > len(ls) {
			t.Fatalf("place %d-%d outside the file of %d lines:\n%v", f, l, len(ls), err)
		}
		for _, m := range regexp.MustCompile(`\n(\d+)\t([^\n]*)`).FindAllStringSubmatch(err.Error(), -1) {
			n, _ := strconv.Atoi(m[1])
			if !strings.HasPrefix(ls[n-1], m[2]) && !strings.Contains(m[2], "bytes more)") {
				t.Fatalf("line %d listed as %q, is %q", n, m[2], ls[n-1])
			}
		}
	}
}
