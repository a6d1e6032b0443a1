package blast

import (
	"fmt"
	"go/build/constraint"
	"path"
	"runtime"
	"slices"
	"strings"
)

// Platform is the target a test selection is for: the GOOS, GOARCH and
// build tags go test will build with. A Go file that target does not
// build neither widens nor narrows its selection: no test there runs its
// top-level code, or sees it changed. The zero value is the platform
// cchub runs on, with no tags.
type Platform struct {
	GOOS, GOARCH string
	Tags         []string
}

func (p Platform) orDefault() Platform {
	if p.GOOS == "" {
		p.GOOS = runtime.GOOS
	}
	if p.GOARCH == "" {
		p.GOARCH = runtime.GOARCH
	}
	return p
}

// Check says what is wrong with a GOOS or GOARCH go does not know.
func (p Platform) Check() error {
	if p.GOOS != "" && !slices.Contains(goOS, p.GOOS) {
		return fmt.Errorf("GOOS %q is not one go knows (%s)", p.GOOS, strings.Join(goOS, ", "))
	}
	if p.GOARCH != "" && !slices.Contains(goArch, p.GOARCH) {
		return fmt.Errorf("GOARCH %q is not one go knows (%s)", p.GOARCH, strings.Join(goArch, ", "))
	}
	return nil
}

// String is "linux/amd64", with ",tags" when there are tags.
func (p Platform) String() string {
	p = p.orDefault()
	s := p.GOOS + "/" + p.GOARCH
	if len(p.Tags) > 0 {
		s += " (tags " + strings.Join(p.Tags, ",") + ")"
	}
	return s
}

// unixOS are the GOOS values the "unix" constraint holds for.
var unixOS = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "linux", "netbsd", "openbsd", "solaris"}

// goBuilds says whether go build, for p, builds the Go file named name
// with content src: its name's _GOOS/_GOARCH and its //go:build (or
// // +build) line. What p does not fix (cgo) counts as either: a file
// that builds either way builds.
func (p Platform) goBuilds(name string, src []byte) bool {
	p = p.orDefault()
	if !p.nameMatches(path.Base(name)) {
		return false
	}
	expr := buildExpr(src)
	if expr == nil {
		return true
	}
	for _, cgo := range []bool{true, false} {
		if expr.Eval(func(tag string) bool { return p.tag(tag, cgo) }) {
			return true
		}
	}
	return false
}

func (p Platform) tag(tag string, cgo bool) bool {
	switch {
	case tag == p.GOOS, tag == p.GOARCH, slices.Contains(p.Tags, tag):
		return true
	case tag == "unix":
		return slices.Contains(unixOS, p.GOOS)
	case tag == "linux":
		return p.GOOS == "android"
	case tag == "darwin":
		return p.GOOS == "ios"
	case tag == "solaris":
		return p.GOOS == "illumos"
	case tag == "cgo":
		return cgo
	case tag == "gc":
		return true
	case strings.HasPrefix(tag, "go1."):
		return true // the release tags of any toolchain that builds the module
	}
	return false
}

// nameMatches applies go build's file name rule: *_GOOS, *_GOARCH and
// *_GOOS_GOARCH (before _test) build only there.
func (p Platform) nameMatches(base string) bool {
	name, _, _ := strings.Cut(base, ".")
	i := strings.Index(name, "_")
	if i < 0 {
		return true
	}
	l := strings.Split(name[i:], "_")
	if n := len(l); n > 0 && l[n-1] == "test" {
		l = l[:n-1]
	}
	n := len(l)
	if n >= 2 && slices.Contains(goOS, l[n-2]) && slices.Contains(goArch, l[n-1]) {
		return p.tag(l[n-2], true) && l[n-1] == p.GOARCH
	}
	if n >= 1 && slices.Contains(goOS, l[n-1]) {
		return p.tag(l[n-1], true)
	}
	if n >= 1 && slices.Contains(goArch, l[n-1]) {
		return l[n-1] == p.GOARCH
	}
	return true
}

// buildExpr is the file's build constraint, nil when it has none: its
// //go:build line, else its // +build lines, before the package clause.
func buildExpr(src []byte) constraint.Expr {
	var plus []constraint.Expr
	for _, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "package ") {
			break
		}
		if !constraint.IsGoBuild(t) && !constraint.IsPlusBuild(t) {
			continue
		}
		x, err := constraint.Parse(t)
		if err != nil {
			continue // go build refuses the file; the rest of the selection says so
		}
		if constraint.IsGoBuild(t) {
			return x
		}
		plus = append(plus, x)
	}
	if len(plus) == 0 {
		return nil
	}
	x := plus[0]
	for _, y := range plus[1:] {
		x = &constraint.AndExpr{X: x, Y: y}
	}
	return x
}
