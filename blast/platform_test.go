package blast

import (
	"strings"
	"testing"
)

// go build's rules, by file name and constraint line, for a target.
func TestGoBuilds(t *testing.T) {
	linux := Platform{GOOS: "linux", GOARCH: "amd64"}
	windows := Platform{GOOS: "windows", GOARCH: "arm64"}
	android := Platform{GOOS: "android", GOARCH: "arm64", Tags: []string{"integration"}}
	cases := []struct {
		name, src               string
		linux, windows, android bool
	}{
		{"a.go", "package a\n", true, true, true},
		{"a_windows.go", "package a\n", false, true, false},
		{"a_linux_test.go", "package a\n", true, false, true},
		{"a_linux.go", "package a\n", true, false, true}, // android builds _linux files
		{"a_windows_arm64.go", "package a\n", false, true, false},
		{"a_arm64.go", "package a\n", false, true, true},
		{"linux.go", "package a\n", true, true, true}, // no underscore: no rule
		{"u.go", "//go:build unix\n\npackage a\n", true, false, true},
		{"w.go", "// Copyright\n\n//go:build windows || darwin\n\npackage a\n", false, true, false},
		{"p.go", "// +build !windows\n\npackage a\n", true, false, true},
		{"i.go", "//go:build integration\n\npackage a\n", false, false, true},
		{"c.go", "//go:build !cgo\n\npackage a\n", true, true, true}, // cgo may be off: built either way
		{"c2.go", "//go:build cgo && windows\n\npackage a\n", false, true, false},
		{"late.go", "package a\n\n//go:build windows\n", true, true, true}, // after the package clause: a comment
	}
	for _, c := range cases {
		for _, want := range []struct {
			p    Platform
			want bool
		}{{linux, c.linux}, {windows, c.windows}, {android, c.android}} {
			if got := want.p.goBuilds("pkg/"+c.name, []byte(c.src)); got != want.want {
				t.Errorf("%s for %s: builds %v, want %v", c.name, want.p, got, want.want)
			}
		}
	}
	if err := (Platform{GOOS: "linx"}).Check(); err == nil || !strings.Contains(err.Error(), "linux") {
		t.Errorf("an unknown GOOS: %v", err)
	}
}

// A top-level call in a file the target does not build selects nothing
// for that target, and everything its package's importers have for one
// that builds it; a top-level call that reaches the change only through
// a name-only call makes a cautious group, not a sure one, and says
// which evidence (the weakest call of the chain) made it.
func TestSelectionForAPlatform(t *testing.T) {
	r := newRepoOf(t, map[string]string{
		"go.mod":          "module example.com/plat\n\ngo 1.22\n",
		"p/p.go":          "package p\n\nfunc Limit() int {\n\treturn 1\n}\n",
		"p/win.go":        "//go:build windows\n\npackage p\n\nvar winLimit = Limit()\n",
		"p/p_test.go":     "package p\n\nimport \"testing\"\n\nfunc TestLimit(t *testing.T) { _ = Limit() }\n\nfunc TestOther(t *testing.T) {}\n",
		"app/app.go":      "package app\n\nimport \"example.com/plat/p\"\n\nfunc Run() int { return p.Limit() }\n",
		"app/app_test.go": "package app\n\nimport \"testing\"\n\nfunc TestApp(t *testing.T) {}\n",
		"n/n.go":          "package n\n\ntype Shaper interface{ Area() int }\n\ntype T struct{}\n\nfunc (T) Area() int {\n\treturn 1\n}\n\nfunc pick() Shaper { return T{} }\n\nfunc Total() int { return pick().Area() }\n",
		"m/m.go":          "package m\n\nimport \"example.com/plat/n\"\n\nvar start = n.Total()\n",
		"m/m_test.go":     "package m\n\nimport \"testing\"\n\nfunc TestM(t *testing.T) {}\n",
	})
	r.git("checkout", "-q", "-b", "limit", "base")
	r.edit("p/p.go", "return 1", "return 2")
	r.commit("limit")
	r.git("checkout", "-q", "base")
	forOS := func(goos string) *Selection {
		return r.run(Options{Base: "base", Head: "limit", Tests: true, Platform: Platform{GOOS: goos, GOARCH: "amd64"}}).Selection
	}
	s := forOS("linux")
	if got, want := commandsOf(t, s), "go test ./p -run '^(TestLimit)$'\n"; got != want {
		t.Errorf("for linux: %q, want %q\n%s", got, want, selJSON(t, s))
	}
	if s.Platform != "linux/amd64" || len(s.NotBuilt) != 1 || s.NotBuilt[0] != "p/win.go" {
		t.Errorf("for linux: platform %q, not built %q", s.Platform, s.NotBuilt)
	}
	s = forOS("windows")
	if got, want := commandsOf(t, s), "go test ./app\ngo test ./p\n"; got != want {
		t.Errorf("for windows: %q, want %q\n%s", got, want, selJSON(t, s))
	}

	// A matrix in one run: each further target's selection, and how it
	// differs from the first's.
	linux := Platform{GOOS: "linux", GOARCH: "amd64"}
	s = r.run(Options{Base: "base", Head: "limit", Tests: true, Platform: linux, Matrix: []Platform{{GOOS: "windows", GOARCH: "amd64"}, {GOOS: "darwin", GOARCH: "arm64"}}}).Selection
	if got, want := commandsOf(t, s), "go test ./p -run '^(TestLimit)$'\n"; got != want {
		t.Errorf("the matrix's first target: %q, want %q", got, want)
	}
	if len(s.Matrix) != 2 {
		t.Fatalf("matrix of 2 more targets: %s", selJSON(t, s))
	}
	win, mac := s.Matrix[0], s.Matrix[1]
	if win.Platform != "windows/amd64" || win.Same || strings.Join(win.Added, "|") != "go test ./app|go test ./p" ||
		strings.Join(win.Dropped, "|") != "go test ./p -run '^(TestLimit)$'" || len(win.Groups) != 2 || len(win.NotBuilt) != 0 {
		t.Errorf("windows differs by two whole packages: %+v", win)
	}
	if mac.Platform != "darwin/arm64" || !mac.Same || len(mac.Groups) != 0 || len(mac.NotBuilt) != 1 {
		t.Errorf("darwin selects as linux does: %+v", mac)
	}
	var text strings.Builder
	s.WriteText(&text, "base..limit")
	for _, want := range []string{"windows/amd64 differs from linux/amd64: ", "  + go test ./app\n", "  - go test ./p -run '^(TestLimit)$'\n", "darwin/arm64: the same tests as linux/amd64\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, text.String())
		}
	}

	// T.Area reaches n.Total only through pick().Area(), a name-only
	// call; m calls n.Total at its top level, an imported call.
	s = r.selectOn("size", func() { r.edit("n/n.go", "return 1\n}\n\nfunc pick", "return 2\n}\n\nfunc pick") })
	if len(s.Groups) != 1 || s.Groups[0].Dir != "m" || !s.Groups[0].Whole || !s.Groups[0].Cautious || !strings.Contains(s.Groups[0].Why, "at the top level [name-only]") {
		t.Errorf("a top-level call reached only through a name-only call: %s", selJSON(t, s))
	}
	if c := s.Counts; c.Whole != 1 || c.WholeBy["name-only"] != 1 {
		t.Errorf("the whole group is counted by its evidence: %+v", c)
	}
	text.Reset()
	s.WriteText(&text, "base..size")
	if !strings.Contains(text.String(), "; 1 group(s) whole (1 through name-only calls)\n") {
		t.Errorf("the summary counts the whole group by its evidence:\n%s", text.String())
	}
}

// A Go test runs only what its binary links: a package that reaches the
// change through a call by name (name-only, possible) but imports no
// changed package, neither itself nor through its tests, is left out
// and counted; one that links it keeps its cautious group. A top-level
// line of such a package widens nothing.
func TestSelectionLeavesOutTestsThatDoNotLinkTheChange(t *testing.T) {
	r := newRepoOf(t, map[string]string{
		"go.mod":         "module example.com/link\n\ngo 1.22\n",
		"p/p.go":         "package p\n\ntype T struct{}\n\nfunc (T) Area() int {\n\treturn 1\n}\n",
		"q/q.go":         "package q\n\ntype Shaper interface{ Area() int }\n\nfunc Total(s Shaper) int { return s.Area() }\n",
		"q/q_test.go":    "package q\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) { _ = Total(nil) }\n",
		"w/w.go":         "package w\n\nimport \"example.com/link/q\"\n\nvar start = q.Total(nil)\n",
		"w/w_test.go":    "package w\n\nimport \"testing\"\n\nfunc TestW(t *testing.T) {}\n",
		"r/r.go":         "package r\n\nimport (\n\t\"example.com/link/p\"\n\t\"example.com/link/q\"\n)\n\nfunc Run() int { return q.Total(p.T{}) }\n",
		"r/r_test.go":    "package r\n\nimport \"testing\"\n\nfunc TestRun(t *testing.T) { _ = Run() }\n",
		"x/x.go":         "package x\n\nimport \"example.com/link/q\"\n\nfunc Use() int { return q.Total(nil) }\n",
		"x/x_test.go":    "package x\n\nimport (\n\t\"testing\"\n\n\t\"example.com/link/p\"\n)\n\nfunc TestUse(t *testing.T) { _, _ = Use(), p.T{} }\n",
		"p/p_test.go":    "package p\n\nimport \"testing\"\n\nfunc TestArea(t *testing.T) { _ = T{}.Area() }\n",
		"w/w2/w2.go":     "package w2\n\nimport _ \"example.com/link/w\"\n",
		"w/w2/w_test.go": "package w2\n\nimport \"testing\"\n\nfunc TestW2(t *testing.T) {}\n",
	})
	s := r.selectOn("size", func() { r.edit("p/p.go", "return 1", "return 2") })
	got := commandsOf(t, s)
	// p's own test, sure; r (imports p) and x (its test imports p)
	// cautiously; q, w and w2 link no changed package.
	want := "go test ./p -run '^(TestArea)$'\ngo test ./r -run '^(TestRun)$'\ngo test ./x -run '^(TestUse)$'\n"
	if got != want {
		t.Errorf("selected %q, want %q\n%s", got, want, selJSON(t, s))
	}
	if s.Counts.Unlinked != 2 {
		t.Errorf("left out q and w (w2 is never reached): %d\n%s", s.Counts.Unlinked, selJSON(t, s))
	}
	var text strings.Builder
	s.WriteText(&text, "base..size")
	if !strings.Contains(text.String(), "left out: 2 package(s) reached only through name-only or possible calls whose test binaries do not link a changed package\n") {
		t.Errorf("the text says what was left out:\n%s", text.String())
	}
}

// Under vendor/ a package goes by another import path than its
// directory says: the imports cannot tell who links a change there, so
// nothing is left out.
func TestSelectionLinksEverythingForAVendoredChange(t *testing.T) {
	r := newRepoOf(t, map[string]string{
		"go.mod":                        "module example.com/v\n\ngo 1.22\n",
		"vendor/example.com/dep/d/d.go": "package d\n\ntype T struct{}\n\nfunc (T) Area() int {\n\treturn 1\n}\n",
		"vendor/modules.txt":            "# example.com/dep v1.0.0\n## explicit\nexample.com/dep/d\n",
		"q/q.go":                        "package q\n\ntype Shaper interface{ Area() int }\n\nfunc Total(s Shaper) int { return s.Area() }\n",
		"q/q_test.go":                   "package q\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) { _ = Total(nil) }\n",
	})
	s := r.selectOn("dep", func() { r.edit("vendor/example.com/dep/d/d.go", "return 1", "return 2") })
	if !strings.Contains(commandsOf(t, s), "go test ./q") || s.Counts.Unlinked != 0 {
		t.Errorf("a vendored change leaves nothing out: %s", selJSON(t, s))
	}
}

// A method named as one the standard library calls through an interface
// (sort.Interface's Len) may run from code the graph does not see:
// sort.Sort(byName(x)) runs byName.Len. Changed, it selects its
// package's tests and its importers', cautiously; a method of another
// name does not.
func TestSelectionWidensForMethodsTheStandardLibraryCalls(t *testing.T) {
	r := newRepoOf(t, map[string]string{
		"go.mod":          "module example.com/s\n\ngo 1.22\n",
		"doc/util.go":     "package doc\n\ntype byName []string\n\nfunc (s byName) Len() int {\n\treturn len(s)\n}\n\nfunc (s byName) Less(i, j int) bool { return s[i] < s[j] }\n\nfunc (s byName) Swap(i, j int) { s[i], s[j] = s[j], s[i] }\n\nfunc (s byName) first() string {\n\treturn s[0]\n}\n",
		"doc/gen.go":      "package doc\n\nimport \"sort\"\n\nfunc Gen(names []string) []string {\n\tsort.Sort(byName(names))\n\treturn names\n}\n",
		"doc/gen_test.go": "package doc\n\nimport \"testing\"\n\nfunc TestGen(t *testing.T) { _ = Gen([]string{\"b\", \"a\"}) }\n\nfunc TestFirst(t *testing.T) { _ = byName{\"a\"}.first() }\n",
		"app/app.go":      "package app\n\nimport \"example.com/s/doc\"\n\nfunc Run() []string { return doc.Gen(nil) }\n",
		"app/app_test.go": "package app\n\nimport \"testing\"\n\nfunc TestApp(t *testing.T) {}\n",
		"other/o_test.go": "package other\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) {}\n",
	})
	s := r.selectOn("len", func() { r.edit("doc/util.go", "return len(s)", "return len(s) + 0") })
	if got, want := commandsOf(t, s), "go test ./app\ngo test ./doc\n"; got != want || !s.Groups[0].Cautious || !strings.Contains(s.Groups[1].Why, "the standard library may call it (sort.Interface)") {
		t.Errorf("a changed Len: %q, want %q\n%s", got, want, selJSON(t, s))
	}
	s = r.selectOn("first", func() { r.edit("doc/util.go", "return s[0]", "return s[len(s)-1]") })
	if got, want := commandsOf(t, s), "go test ./doc -run '^(TestFirst)$'\n"; got != want {
		t.Errorf("a changed method of no such name: %q, want %q\n%s", got, want, selJSON(t, s))
	}
}
