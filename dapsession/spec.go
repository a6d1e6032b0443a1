package dapsession

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"cchub/lang"
	"cchub/textfmt"
	"cchub/workspace"
)

// BreakpointSpec is one breakpoint as a model asks for it.
type BreakpointSpec struct {
	// At is path:line, or a function (Name, Type.Method, pkg.Func);
	// either may be followed by " if CONDITION".
	At string
	// Text is the line's expected text: a line breakpoint whose line
	// holds other text (compared trimmed, spaces collapsed) is refused,
	// saying where that text is now.
	Text string
	If   string // stop only when this condition holds
	Log  string // a logpoint: print this, {expr} replaced by its value, instead of stopping
}

// parseBreakpoints reads breakpoints as a model wrote them, paths
// resolved in root. A line breakpoint whose line does not hold its
// expected text is refused: it comes back in refused, saying where that
// text is now, and not in bps.
func parseBreakpoints(root *workspace.Root, specs []BreakpointSpec) (bps []Breakpoint, refused []ShownBreakpoint, err error) {
	for _, spec := range specs {
		at, cond, _ := strings.Cut(strings.TrimSpace(spec.At), " if ")
		at = strings.TrimSpace(at)
		if c := strings.TrimSpace(spec.If); c != "" {
			cond = c
		}
		b := Breakpoint{Condition: strings.TrimSpace(cond), Log: spec.Log}
		i := strings.LastIndexByte(at, ':')
		line, lerr := strconv.Atoi(strings.TrimSpace(at[i+1:]))
		switch {
		case i > 0 && lerr == nil && line >= 1:
			abs, rel, err := root.Resolve(strings.TrimSpace(at[:i]))
			if err != nil {
				return nil, nil, err
			}
			b.Path, b.Line = abs, line
			if why := staleLine(root, rel, line, spec.Text); why != "" {
				refused = append(refused, ShownBreakpoint{Breakpoint: b, Refused: why})
				continue
			}
		case isFunctionName(at):
			if spec.Log != "" {
				return nil, nil, fmt.Errorf("breakpoint %q: a logpoint goes on a line: give at as path:line", at)
			}
			b.Function = at
		default:
			return nil, nil, fmt.Errorf("breakpoint %q: write it as path:line or a function name (Name, Type.Method, pkg.Func), optionally followed by ' if CONDITION' (e.g. main.go:20 if i > 3)", spec.At)
		}
		bps = append(bps, b)
	}
	return bps, refused, nil
}

// isFunctionName says at names a function, not a file without a line:
// one word, dots, a receiver's parentheses and star, C++'s "::", but no
// source file's extension.
func isFunctionName(at string) bool {
	if at == "" || strings.ContainsAny(at, " \t\\") || strings.Contains(at, ":") && !strings.Contains(at, "::") {
		return false
	}
	if c := rune(at[0]); c != '_' && c != '(' && c != '*' && !unicode.IsLetter(c) {
		return false
	}
	if lang.IsSource(at) {
		return false
	}
	return !strings.Contains(at, "/") || strings.Contains(at[strings.LastIndexByte(at, '/'):], ".")
}

// staleLine says why a breakpoint at line of the file at rel is refused,
// or "" when text (if given) is on that line: where the text is now, the
// nearest line holding it, or that the file lacks it.
func staleLine(root *workspace.Root, rel string, line int, text string) string {
	want := collapse(text)
	if want == "" {
		return ""
	}
	data, err := root.ReadText(rel)
	if err != nil {
		return fmt.Sprintf("%s cannot be read (%v); give an existing file", rel, err)
	}
	lines := textfmt.SplitLines(string(data))
	if line <= len(lines) && holds(lines[line-1], want) {
		return ""
	}
	what := fmt.Sprintf("%s has %d lines", rel, len(lines))
	if line <= len(lines) {
		what = fmt.Sprintf("line %d is %s", line, clipEcho(lines[line-1]))
	}
	best := 0
	for n := range lines {
		if holds(lines[n], want) && (best == 0 || distance(n+1, line) < distance(best, line)) {
			best = n + 1
		}
	}
	if best == 0 {
		return fmt.Sprintf("%s; the expected text is not in %s: read it (read path=%s) and give the line again", what, rel, rel)
	}
	return fmt.Sprintf("%s; the expected text is at %s:%d now; use %s:%d", what, rel, best, rel, best)
}

// holds says a line holds the expected text: the same, whitespace aside,
// or, for a text long enough not to be anywhere, a part of it.
func holds(line, want string) bool {
	got := collapse(line)
	return got == want || len(want) >= 8 && strings.Contains(got, want)
}

// collapse is s trimmed, its runs of white space made one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// distance is how many lines apart a and b are.
func distance(a, b int) int {
	if a < b {
		return b - a
	}
	return a - b
}

// clipEcho is a line's text as answers quote it: trimmed, at most 100
// characters.
func clipEcho(s string) string { return textfmt.Clip(strings.TrimSpace(s), 100) }

// changeBreakpoints is the breakpoints op: the files req's breakpoints
// name get those breakpoints instead of theirs, function breakpoints
// replace the function breakpoints, and req.Path clears a file's or one
// function's. A refused breakpoint changes nothing: one the session has
// at its place stays, and a file all of whose breakpoints were refused is
// left as it is.
func (s *Session) changeBreakpoints(ctx context.Context, root *workspace.Root, req Request, res *Result) (*Result, error) {
	bps, refused, err := parseBreakpoints(root, req.Breakpoints)
	if err != nil {
		return nil, err
	}
	byFile := map[string][]Breakpoint{}
	var order []string
	var fbps []Breakpoint
	for _, b := range bps {
		if b.Function != "" {
			fbps = append(fbps, b)
			continue
		}
		if _, ok := byFile[b.Path]; !ok {
			order = append(order, b.Path)
		}
		byFile[b.Path] = append(byFile[b.Path], b)
	}
	for _, r := range refused {
		if _, ok := byFile[r.Path]; !ok {
			continue
		}
		for _, old := range s.Breakpoints() {
			if old.Function == "" && old.Path == r.Path && old.Line == r.Line {
				byFile[r.Path] = append(byFile[r.Path], old)
			}
		}
	}
	clearFunc := false
	if req.Path != "" {
		abs, rel, err := root.Resolve(req.Path)
		missing := err
		if err == nil {
			_, missing = root.Stat(rel)
		}
		if fn := strings.TrimSpace(req.Path); missing != nil && isFunctionName(fn) {
			// A function's breakpoint to clear: the others stay, unless
			// breakpoints gives functions, which replace them all.
			clearFunc = true
			if len(fbps) == 0 {
				if fbps, err = s.functionsBut(fn); err != nil {
					return nil, err
				}
				res.Cleared = append(res.Cleared, fn)
			}
		} else if err != nil {
			return nil, err
		} else if _, ok := byFile[abs]; !ok {
			byFile[abs] = nil
			order = append(order, abs)
		}
	}
	if len(order) == 0 && len(fbps) == 0 && len(refused) == 0 && !clearFunc {
		return nil, errors.New("breakpoints needs breakpoints (path:line or a function ...) or a path to clear (a file or a function)")
	}
	for _, file := range order {
		got, err := s.SetBreakpoints(ctx, file, byFile[file])
		if err != nil {
			return nil, err
		}
		if len(got) == 0 {
			res.Cleared = append(res.Cleared, root.Rel(file))
		}
	}
	if len(fbps) > 0 || clearFunc {
		if _, err := s.SetFunctionBreakpoints(ctx, fbps); err != nil {
			return nil, err
		}
	}
	res.Breakpoints = append(showBreakpoints(root, refused), showBreakpoints(root, wrap(s.Breakpoints()))...)
	return res, nil
}

// functionsBut is the session's function breakpoints without the one on
// fn, which must be there.
func (s *Session) functionsBut(fn string) ([]Breakpoint, error) {
	var keep []Breakpoint
	found := false
	for _, old := range s.Breakpoints() {
		if old.Function == "" {
			continue
		}
		if old.Function == fn {
			found = true
		} else {
			keep = append(keep, old)
		}
	}
	if !found {
		return nil, fmt.Errorf("no breakpoint on function %s to clear: name it as the answer that set it does", fn)
	}
	return keep, nil
}
