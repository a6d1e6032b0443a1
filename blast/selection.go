package blast

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// TestsVersion is the version of the JSON form of a Selection.
const TestsVersion = 1

// Selection is the tests a change can break, to run in CI instead of the
// whole suite (cchub blast --tests). Its JSON form (--tests-format json)
// is a stable schema, version 1:
//
//	{
//	  "version": 1,
//	  "all": {"why": "go.mod changed: every package may build differently"} | null,
//	  "groups": [Group, …],
//	  "counts": {"selected": 3, "cautious": 2, "suite": 140}
//	}
//
// all is set when the whole suite must run; groups is then empty. With
// more than one target (--goos/--goarch/--tags given more than once),
// "matrix" holds each further target's MatrixEntry. A Group
// is one command:
//
//	{"runner": "go", "dir": "pkg/sub", "package": "./pkg/sub", "tests": ["TestA"],
//	 "whole": false, "cautious": false, "why": "…", "command": "go test ./pkg/sub -run '^(TestA)$'"}
//	{"runner": "pytest", "dir": "tests", "file": "tests/test_a.py",
//	 "tests": ["tests/test_a.py::TestX::test_y"], "unittest": ["tests.test_a.TestX.test_y"],
//	 "whole": false, "cautious": true, "why": "…", "command": "python -m pytest 'tests/test_a.py::TestX::test_y'"}
//
// whole: every test of the Go package, the Python file (file set) or the
// Python directory (file absent), tests empty. cautious: reached only
// through name-only or possible calls (a name the graph could not tie to
// one definition); a test is in at most one group, and a sure group wins.
// counts.selected is the tests the groups run that the graph knows
// (a whole group counts every known test of its package, file or
// directory), counts.cautious those of cautious groups, counts.suite the
// test functions the graph knows in the workspace.
type Selection struct {
	Version int             `json:"version"`
	All     *AllTests       `json:"all"`
	Groups  []TestGroup     `json:"groups"`
	Counts  SelectionCounts `json:"counts"`
	// Platform is the target the selection is for (GOOS/GOARCH, tags),
	// and NotBuilt the Go files the change touched or reached that it
	// does not build: they select nothing.
	Platform string   `json:"platform"`
	NotBuilt []string `json:"not_built,omitempty"`
	// Time is the expected time, with --durations.
	Time *SelectionTime `json:"time,omitempty"`
	// Matrix is, for each more target asked for (Options.Matrix), its own
	// selection and how it differs from this one.
	Matrix []MatrixEntry `json:"matrix,omitempty"`
	// Suite is the commands that run every test the graph knows of (one
	// go test ./... per Go module, pytest when there are Python tests):
	// what to run when All is set.
	Suite []string `json:"-"`
}

// MatrixEntry is one more target's selection, compared with the first
// target's: Same when both run the same commands; else the entry's own
// selection (All or Groups: what that target's CI job runs), the
// commands only it runs (Added) and those it does not (Dropped).
type MatrixEntry struct {
	Platform string          `json:"platform"`
	Same     bool            `json:"same"`
	All      *AllTests       `json:"all,omitempty"`
	Groups   []TestGroup     `json:"groups,omitempty"`
	Added    []string        `json:"added,omitempty"`
	Dropped  []string        `json:"dropped,omitempty"`
	Counts   SelectionCounts `json:"counts"`
	NotBuilt []string        `json:"not_built,omitempty"`
	Time     *SelectionTime  `json:"time,omitempty"`
}

// compare is o's entry against s: what o runs that s does not, and the
// reverse, command by command (a whole suite is the suite's commands).
func (s *Selection) compare(o *Selection) MatrixEntry {
	e := MatrixEntry{Platform: o.Platform, Counts: o.Counts, NotBuilt: o.NotBuilt}
	mine, theirs := s.Commands(), o.Commands()
	for _, c := range theirs {
		if !slices.Contains(mine, c) {
			e.Added = append(e.Added, c)
		}
	}
	for _, c := range mine {
		if !slices.Contains(theirs, c) {
			e.Dropped = append(e.Dropped, c)
		}
	}
	e.Same = len(e.Added) == 0 && len(e.Dropped) == 0 && (s.All == nil) == (o.All == nil)
	if !e.Same {
		e.All, e.Groups = o.All, o.Groups
	}
	return e
}

// AllTests says why the whole suite must run.
type AllTests struct {
	Why string `json:"why"`
}

// TestGroup is the tests of one Go package or one Python file or
// directory that the change can break, and the command that runs them.
type TestGroup struct {
	Runner   string   `json:"runner"` // go or pytest
	Dir      string   `json:"dir"`
	Package  string   `json:"package,omitempty"` // go: ./dir, relative to its module's root
	File     string   `json:"file,omitempty"`    // pytest: the test file; absent for a whole directory
	Tests    []string `json:"tests"`
	Unittest []string `json:"unittest,omitempty"` // pytest: the same tests as unittest ids, where unittest can run them
	Whole    bool     `json:"whole"`
	Cautious bool     `json:"cautious"`
	Why      string   `json:"why"`
	Command  string   `json:"command"`
	// Seconds is how long the group's tests took in the run --durations
	// recorded; absent without one, or when it has none of them.
	Seconds *float64 `json:"seconds,omitempty"`

	importPath string // go: the package's import path (durations)
}

// SelectionTime is the selection's expected time, from --durations.
type SelectionTime struct {
	Selected float64 `json:"selected_seconds"` // the groups' (the suite's under all)
	Suite    float64 `json:"suite_seconds"`    // the whole recorded run's
	Unknown  int     `json:"groups_without_record"`
}

// SelectionCounts counts the tests selected, and the groups run whole
// by what made them whole: the weakest call of the chain that reached a
// top-level line (confirmed, exact, import, name-only, possible), or
// "unseen" for what calls do not say (a changed file, type, variable,
// helper, go.mod, …).
type SelectionCounts struct {
	Selected int            `json:"selected"`
	Cautious int            `json:"cautious"`
	Suite    int            `json:"suite"`
	Whole    int            `json:"whole,omitempty"`
	WholeBy  map[string]int `json:"whole_by,omitempty"`
	// Unlinked counts the packages the change reaches only by name
	// whose test binaries do not link a changed package: left out.
	Unlinked int `json:"unlinked,omitempty"`
}

// wholeEvidence is the evidence classes a whole group's why names, in
// the order the summary tells them.
var wholeEvidence = []string{"confirmed", "exact", "import", "name-only", "possible", "unseen"}

// evidenceOfWhy is the weakest evidence class a why names in brackets
// ("… at the top level [name-only]"), or unseen when it names none.
func evidenceOfWhy(why string) string {
	for i := len(wholeEvidence) - 2; i >= 0; i-- {
		if strings.Contains(why, "["+wholeEvidence[i]+"]") {
			return wholeEvidence[i]
		}
	}
	return "unseen"
}

// wholeLine is the summary's words for the whole groups, "" for none.
func (c SelectionCounts) wholeLine() string {
	if c.Whole == 0 {
		return ""
	}
	var parts []string
	for _, e := range wholeEvidence {
		if n := c.WholeBy[e]; n > 0 {
			if e == "unseen" {
				parts = append(parts, fmt.Sprintf("%d for what calls do not show", n))
			} else {
				parts = append(parts, fmt.Sprintf("%d through %s calls", n, e))
			}
		}
	}
	return fmt.Sprintf("; %d group(s) whole (%s)", c.Whole, strings.Join(parts, ", "))
}

// Commands is the shell commands that run the selection, one a line:
// the sure groups first, then the cautious ones; the whole suite's when
// All is set.
func (s *Selection) Commands() []string {
	if s.All != nil {
		return append([]string(nil), s.Suite...)
	}
	var out []string
	for _, g := range s.Groups {
		out = append(out, g.Command)
	}
	return out
}

// WriteJSON writes the selection's JSON form, indented.
func (s *Selection) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(s)
}

// WriteCommands writes Commands, one a line, and nothing else.
func (s *Selection) WriteCommands(w io.Writer) error {
	var b strings.Builder
	for _, c := range s.Commands() {
		b.WriteString(c + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes the selection for a person: why, and the commands.
func (s *Selection) WriteText(w io.Writer, title string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tests to run for %s\n", title)
	if s.All != nil {
		fmt.Fprintf(&b, "the whole suite: %s\n", s.All.Why)
		for _, c := range s.Suite {
			fmt.Fprintf(&b, "  %s\n", c)
		}
		if len(s.Suite) == 0 {
			b.WriteString("  (the graph knows no Go module or Python test here: run your suite as you do)\n")
		}
	} else {
		if len(s.Groups) == 0 {
			b.WriteString("no test is reached by the change\n")
		}
		for _, cautious := range []bool{false, true} {
			head := false
			for _, g := range s.Groups {
				if g.Cautious != cautious {
					continue
				}
				if !head {
					head = true
					if cautious {
						b.WriteString("cautious (reached only through name-only or possible calls, or by what Python may reach through an import):\n")
					} else {
						b.WriteString("sure:\n")
					}
				}
				fmt.Fprintf(&b, "  %s\n    why: %s\n", g.Command, g.Why)
			}
		}
	}
	if len(s.NotBuilt) > 0 {
		fmt.Fprintf(&b, "not built for %s, so left out: %s\n", s.Platform, strings.Join(s.NotBuilt, ", "))
	}
	fmt.Fprintf(&b, "summary: %d of %d known tests selected (%d cautious)%s\n", s.Counts.Selected, s.Counts.Suite, s.Counts.Cautious, s.Counts.wholeLine())
	if n := s.Counts.Unlinked; n > 0 {
		fmt.Fprintf(&b, "left out: %d package(s) reached only through name-only or possible calls whose test binaries do not link a changed package\n", n)
	}
	for _, e := range s.Matrix {
		if e.Same {
			fmt.Fprintf(&b, "%s: the same tests as %s\n", e.Platform, s.Platform)
			continue
		}
		fmt.Fprintf(&b, "%s differs from %s: %d of %d known tests selected (%d cautious)", e.Platform, s.Platform, e.Counts.Selected, e.Counts.Suite, e.Counts.Cautious)
		if e.All != nil {
			fmt.Fprintf(&b, "; the whole suite: %s", e.All.Why)
		}
		if t := e.Time; t != nil && t.Suite > 0 {
			fmt.Fprintf(&b, "; expected time %.1fs (%.0f%%)", t.Selected, 100*t.Selected/t.Suite)
		}
		b.WriteString("\n")
		for _, c := range e.Added {
			fmt.Fprintf(&b, "  + %s\n", c)
		}
		for _, c := range e.Dropped {
			fmt.Fprintf(&b, "  - %s\n", c)
		}
		if len(e.NotBuilt) > 0 {
			fmt.Fprintf(&b, "  not built for %s, so left out: %s\n", e.Platform, strings.Join(e.NotBuilt, ", "))
		}
	}
	if t := s.Time; t != nil {
		share := ""
		if t.Suite > 0 {
			share = fmt.Sprintf(" (%.0f%%)", 100*t.Selected/t.Suite)
		}
		fmt.Fprintf(&b, "expected time: %.1fs of the suite's %.1fs%s", t.Selected, t.Suite, share)
		if t.Unknown > 0 {
			fmt.Fprintf(&b, "; %d group(s) not in the record", t.Unknown)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
