package main

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// selection is the answer of `cchub blast --tests --tests-format json`,
// schema version 1 (docs: the test selection JSON).
type selection struct {
	Version int `json:"version"`
	All     *struct {
		Why string `json:"why"`
	} `json:"all"`
	Groups []group `json:"groups"`
	Counts struct {
		Selected int `json:"selected"`
		Cautious int `json:"cautious"`
		Suite    int `json:"suite"`
	} `json:"counts"`
}

// group is one package's (go) or one file's (pytest) selected tests.
type group struct {
	Runner   string   `json:"runner"`
	Dir      string   `json:"dir"`
	Package  string   `json:"package"`
	File     string   `json:"file"`
	Tests    []string `json:"tests"`
	Unittest []string `json:"unittest"`
	Whole    bool     `json:"whole"`
	Cautious bool     `json:"cautious"`
	Why      string   `json:"why"`
	Command  string   `json:"command"`
}

func parseSelection(b []byte) (*selection, error) {
	var s selection
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("the selector's output is not the test selection JSON (%v); it must print one JSON object, schema version 1", err)
	}
	if s.Version != 1 {
		return nil, fmt.Errorf("the selector's output has version %d; this benchmark reads version 1: update bench/testsel with the schema", s.Version)
	}
	return &s, nil
}

// testID is one test of a corpus's suite. For Go, Pkg is the package's
// directory relative to the module root ("." for the root) and Name the
// top-level test (TestX, ExampleX, FuzzX). For Python, File is the test
// module's path ("test/test_json/test_decode.py"), Name its unittest id
// ("test.test_json.test_decode.TestPyDecode.test_float").
type testID struct {
	Pkg  string `json:"pkg,omitempty"`
	File string `json:"file,omitempty"`
	Name string `json:"name"`
	// Sub is, for a Go test that runs a suite, one of the suite's
	// methods that failed: check.v1's "Suite.Method", testify's
	// "Method". The selection must run it: its group's filter
	// (-check.f, -testify.m) must match it.
	Sub string `json:"sub,omitempty"`
}

func (t testID) String() string {
	if t.File != "" {
		return t.Name
	}
	if t.Sub != "" {
		return t.Pkg + " " + t.Name + " " + t.Sub
	}
	return t.Pkg + " " + t.Name
}

// nodeID is the pytest node id of a Python test: its file, then its
// class and method after the module's dotted name. A test of a pytest
// corpus is named by its node id already: without its parameters
// ("[1-2]"), which a selection names no test by.
func (t testID) nodeID() string {
	if strings.Contains(t.Name, "::") {
		id := t.Name
		if i := strings.LastIndex(id, "::"); i >= 0 {
			if j := strings.IndexByte(id[i:], '['); j >= 0 {
				id = id[:i+j]
			}
		}
		return id
	}
	mod := strings.TrimSuffix(t.File, ".py")
	mod = strings.ReplaceAll(mod, "/", ".")
	rest := strings.TrimPrefix(strings.TrimPrefix(t.Name, mod), ".")
	return t.File + "::" + strings.ReplaceAll(rest, ".", "::")
}

// cleanDir makes "./pkg/sub", "pkg/sub/" and "" comparable ("pkg/sub", ".").
func cleanDir(d string) string {
	d = path.Clean(strings.TrimPrefix(d, "./"))
	if d == "" {
		return "."
	}
	return d
}

// covers says whether running the selection runs test t; sureOnly
// leaves out the cautious groups. A whole-suite answer (all) covers
// everything.
func (s *selection) covers(t testID, sureOnly bool) bool {
	if s.All != nil {
		return true
	}
	for _, g := range s.Groups {
		if sureOnly && g.Cautious {
			continue
		}
		if g.matches(t) {
			return true
		}
	}
	return false
}

func (g *group) matches(t testID) bool {
	if t.File == "" { // go
		if g.Runner != "" && g.Runner != "go" {
			return false
		}
		pkg := g.Package
		if pkg == "" {
			pkg = g.Dir
		}
		if cleanDir(pkg) != cleanDir(t.Pkg) {
			return false
		}
		if g.Whole {
			return true
		}
		return slices.Contains(g.Tests, t.Name) && g.suiteRuns(t.Sub)
	}
	if g.Runner == "go" {
		return false
	}
	if jsRunners[g.Runner] {
		return g.jsMatches(t)
	}
	if g.File != "" {
		if path.Clean(g.File) != t.File {
			return false
		}
		if g.Whole {
			return true
		}
	} else if g.Whole {
		d := cleanDir(g.Dir)
		return d == "." || strings.HasPrefix(t.File, d+"/")
	}
	return slices.Contains(g.Unittest, t.Name) || slices.Contains(g.Tests, t.nodeID())
}

// suiteFlag finds a suite framework's filter in a go test command.
var suiteFlag = regexp.MustCompile(`-(check\.f|testify\.m) '((?:[^']|'\\'')*)'`)

// suiteRuns says whether the group's command runs suite method sub (""
// is no suite method): with no suite filter, every method runs; with
// -check.f, check.v1 runs what matches the method's name, its suite's
// or "Suite.Method"; with -testify.m, testify what matches the method's
// name.
func (g *group) suiteRuns(sub string) bool {
	if sub == "" {
		return true
	}
	ms := suiteFlag.FindAllStringSubmatch(g.Command, -1)
	if len(ms) == 0 {
		return true
	}
	suite, method, isCheck := strings.Cut(sub, ".")
	for _, m := range ms {
		re, err := regexp.Compile(strings.ReplaceAll(m[2], `'\''`, "'"))
		if err != nil {
			return true // the bench cannot judge it: not a miss of the filter
		}
		switch {
		case m[1] == "check.f" && isCheck:
			if re.MatchString(sub) || re.MatchString(suite) || re.MatchString(method) {
				return true
			}
		case m[1] == "testify.m" && !isCheck:
			if re.MatchString(sub) {
				return true
			}
		}
	}
	// A filter of the other framework only: this one's runs whole.
	for _, m := range ms {
		if (m[1] == "check.f") == isCheck {
			return false
		}
	}
	return true
}

// describe says what the selection holds for t's package or file, for
// a miss's report.
func (s *selection) describe(t testID) string {
	var parts []string
	for _, g := range s.Groups {
		same := false
		if t.File == "" {
			pkg := g.Package
			if pkg == "" {
				pkg = g.Dir
			}
			same = g.Runner == "go" && cleanDir(pkg) == cleanDir(t.Pkg)
		} else {
			same = g.Runner != "go" && path.Clean(g.File) == t.File
		}
		if same {
			kind := "sure"
			if g.Cautious {
				kind = "cautious"
			}
			parts = append(parts, fmt.Sprintf("%s group of %d test(s) (%s)", kind, len(g.Tests), g.Why))
		}
	}
	if len(parts) == 0 {
		where := "package " + t.Pkg
		if t.File != "" {
			where = "file " + t.File
		}
		return fmt.Sprintf("no group for %s (%d group(s) in all)", where, len(s.Groups))
	}
	return strings.Join(parts, "; ")
}

// jsRunners are the runners of JavaScript groups.
var jsRunners = map[string]bool{"vitest": true, "jest": true, "mocha": true, "node": true, "tape": true, "npm": true}

// jsMatches: a JavaScript group runs t when it is its file's, or its
// project's, whole, or when the name pattern of its command matches t's
// full name as the runner matches it: vitest, jest and mocha the full
// name; node a test's title or full name, and a suite that matches runs
// its tests (so a name's prefixes are tried too). A command whose
// pattern cannot be read falls back to the group's names (a suite's
// stands for the tests under it).
func (g *group) jsMatches(t testID) bool {
	if g.File == "" {
		d := cleanDir(g.Dir)
		return g.Whole && (d == "." || strings.HasPrefix(t.File, d+"/"))
	}
	if path.Clean(g.File) != t.File {
		return false
	}
	if g.Whole {
		return true
	}
	if re := jsPattern(g.Command); re != nil {
		names := []string{t.Name}
		if g.Runner == "node" {
			words := strings.Split(t.Name, " ")
			for i := 1; i < len(words); i++ {
				names = append(names, strings.Join(words[:i], " "))
			}
		}
		for _, n := range names {
			if re.MatchString(n) {
				return true
			}
		}
		return false
	}
	for _, name := range g.Tests {
		if t.Name == name || strings.HasPrefix(t.Name, name+" ") {
			return true
		}
	}
	return false
}

// jsPattern is the name pattern of a JavaScript runner's command (-t,
// --grep, --test-name-pattern), unquoted as sh would; nil when it has
// none or it cannot be read.
func jsPattern(command string) *regexp.Regexp {
	words, ok := shellWords(command)
	if !ok {
		return nil
	}
	for i, w := range words {
		if (w == "-t" || w == "--grep" || w == "--test-name-pattern") && i+1 < len(words) {
			re, err := regexp.Compile(words[i+1])
			if err != nil {
				return nil
			}
			return re
		}
	}
	return nil
}

// shellWords splits what cchub writes, words of plain characters and
// single-quoted parts; ok is false for anything else.
func shellWords(s string) ([]string, bool) {
	var words []string
	var b strings.Builder
	in, started := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\'':
			in = false
		case in:
			b.WriteByte(c)
		case c == '\'':
			in, started = true, true
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			started = true
		case c == ' ':
			if started {
				words = append(words, b.String())
				b.Reset()
				started = false
			}
		case c == '$' || c == '"' || c == '`':
			return nil, false
		default:
			b.WriteByte(c)
			started = true
		}
	}
	if in {
		return nil, false
	}
	if started {
		words = append(words, b.String())
	}
	return words, true
}
