package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"cchub/proc"
)

// key is how a diagnostic is compared between the checker and a server's
// answer: the file (relative to the root, with /) and the normalized
// message. Severity and code are left out on purpose: the command-line
// checkers and the servers name them differently (go vet has no
// severity, tsc says TS2554 where the server says 2554, gopls files a
// compiler error under "compiler"), while the message text is the same
// checker's in both.
type key struct {
	Path, Msg string
}

// normMsg is the one normalization of a message, for both sides: its
// first line only (the compiler's "have/want" lines, pyright's and tsc's
// elaboration chains are laid out differently by CLI and server), with
// no-break spaces as spaces, runs of white space as one space, trimmed.
func normMsg(m string) string {
	m = strings.ReplaceAll(m, "\r\n", "\n")
	if i := strings.IndexByte(m, '\n'); i >= 0 {
		m = m[:i]
	}
	m = strings.ReplaceAll(m, "\u00a0", " ")
	return strings.Join(strings.Fields(m), " ")
}

// counts is a multiset of keys: a second copy of a message is a second
// diagnostic.
type counts map[key]int

func (c counts) total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// diff is what after has more of than before, per key.
func diff(before, after counts) counts {
	out := counts{}
	for k, a := range after {
		if d := a - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// checker runs a language's own command-line checker over the whole
// project and returns its errors and warnings.
type checker func(ctx context.Context, root string, env []string) (counts, error)

// run runs a checker's command in root and returns its output (stdout and
// stderr together). A non-zero exit is how the checkers say "problems
// found", so it is not an error; a program that cannot start is.
func run(ctx context.Context, root string, env []string, name string, args ...string) ([]byte, error) {
	var out bytes.Buffer
	cmd := proc.Command(name, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = root, env, &out, &out
	p, err := cmd.Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", proc.CommandLine(name, args), err)
	}
	p.Wait()
	return out.Bytes(), ctx.Err()
}

// relPath makes a checker's path relative to root, with /.
func relPath(root, p string) string {
	if filepath.IsAbs(p) {
		if r, err := filepath.Rel(root, p); err == nil {
			p = r
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

var (
	goLine  = regexp.MustCompile(`^(?:vet: )?(\S+\.go):(\d+):(\d+)(?:-[\d:]+)?: (.*)$`)
	goBuild = regexp.MustCompile(` \[[a-z0-9_]+\]$`) // gopls check's " [windows]": the same file seen for another GOOS
)

// checkGo is the Go toolchain's view: `go build -gcflags=-e` (every
// compiler error, not the first ten), `go vet` (its analyzers' warnings)
// and `gopls check` on every .go file, a fresh gopls in batch mode,
// which type-checks test files even while their package's other files do
// not compile (the compiler stops there) and runs gopls's own analyzers
// (its default bound: warnings and errors). vet runs only when the
// build is clean (it would repeat the compiler's errors). Each tool's diagnostics are
// counted once by file, line, column and message (gopls check repeats a
// file's for each build configuration, " [windows]"); a key's count is
// the most any one of the tools has (the compiler and gopls place a
// call's error at different columns, so their lists are not merged).
func checkGo(gopls string) checker {
	return func(ctx context.Context, root string, env []string) (counts, error) {
		var files []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
				files = append(files, p)
			}
			return nil
		})
		c := counts{}
		for _, cmd := range [][]string{
			{"go", "build", "-gcflags=-e", "./..."},
			{"go", "vet", "./..."},
			append([]string{gopls, "check"}, files...),
		} {
			if cmd[1] == "vet" && len(c) > 0 {
				// The build failed: vet would print the compiler's errors
				// again, at other columns, and analyze nothing more.
				continue
			}
			out, err := run(ctx, root, env, cmd[0], cmd[1:]...)
			if err != nil {
				return nil, err
			}
			seen := map[string]bool{}
			one := counts{}
			for _, l := range strings.Split(string(out), "\n") {
				m := goLine.FindStringSubmatch(l)
				if m == nil || m[4] == "too many errors" {
					continue
				}
				k := key{relPath(root, m[1]), normMsg(goBuild.ReplaceAllString(m[4], ""))}
				id := k.Path + ":" + m[2] + ":" + m[3] + ":" + k.Msg
				if !seen[id] {
					seen[id] = true
					one[k]++
				}
			}
			for k, n := range one {
				c[k] = max(c[k], n)
			}
		}
		return c, nil
	}
}

// checkPython is `pyright --outputjson` on the project (its errors and
// warnings; "information" is left out, as the answers' infos are).
func checkPython(pyright string) checker {
	return func(ctx context.Context, root string, env []string) (counts, error) {
		out, err := run(ctx, root, env, pyright, "--outputjson")
		if err != nil {
			return nil, err
		}
		var res struct {
			Diags []struct {
				File, Severity, Message string
			} `json:"generalDiagnostics"`
		}
		if i := bytes.IndexByte(out, '{'); i > 0 {
			out = out[i:]
		}
		if err := json.Unmarshal(out, &res); err != nil {
			return nil, fmt.Errorf("pyright --outputjson in %s: %v: %.300s", root, err, out)
		}
		c := counts{}
		for _, d := range res.Diags {
			if d.Severity == "error" || d.Severity == "warning" {
				c[key{relPath(root, d.File), normMsg(d.Message)}]++
			}
		}
		return c, nil
	}
}

var tscLine = regexp.MustCompile(`^(.+)\((\d+),(\d+)\): (error|warning) TS\d+: (.*)$`)

// checkTS is `tsc --noEmit -p .` (the project's tsconfig.json).
func checkTS(tsc, project string) checker {
	return func(ctx context.Context, root string, env []string) (counts, error) {
		out, err := run(ctx, root, env, tsc, "--noEmit", "-p", project, "--pretty", "false")
		if err != nil {
			return nil, err
		}
		c := counts{}
		for _, l := range strings.Split(string(out), "\n") {
			if m := tscLine.FindStringSubmatch(l); m != nil {
				c[key{relPath(root, m[1]), normMsg(m[5])}]++
			}
		}
		return c, nil
	}
}

// answer is what one tool answer said about diagnostics, read from its
// text as an agent reads it (hub/afterwrite.go and ledger/text.go write
// it): "diagnostics: …" opens the block; a line without indent names a
// file; "  LINE:COL SEVERITY [TAG] MESSAGE (also L:C, … and N more
// places)" is one diagnostic, as many copies as places; "  (and N more:
// …)" and "; and N new diagnostics in M more files not listed" are what
// the bound cut; "gone: …" lines name what went away; "[…]" lines are
// notes (not ready, a server missing, …).
type answer struct {
	New   counts // errors and warnings the answer called new, with copies
	Hints int    // infos and hints called new (not judged: no checker reports them)
	Cut   int
	Notes []string
}

var (
	diagItem  = regexp.MustCompile(`^  (\d+):(\d+) (error|warning|info|information|hint)(?: \[[^\]]*\])? (.*)$`)
	alsoTail  = regexp.MustCompile(` \(also ([0-9:, ]+?)(?: and (\d+) more places?)?\)$`)
	moreLine  = regexp.MustCompile(`^  \(and (\d+) more`)
	moreFiles = regexp.MustCompile(`and (\d+) new (?:diagnostics? )?in \d+ more files? not listed`)
)

func parseAnswer(text string) answer {
	a := answer{New: counts{}}
	in := false
	file := ""
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "diagnostics: "):
			in = true
			if m := moreFiles.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				a.Cut += n
			}
		case strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]"):
			a.Notes = append(a.Notes, strings.Trim(l, "[]"))
		case !in || l == "" || strings.HasPrefix(l, "gone: "):
		case !strings.HasPrefix(l, " "):
			file = l
		case moreLine.MatchString(l):
			n, _ := strconv.Atoi(moreLine.FindStringSubmatch(l)[1])
			a.Cut += n
		default:
			m := diagItem.FindStringSubmatch(l)
			if m == nil {
				continue // a long message's further lines
			}
			msg, copies := m[4], 1
			if t := alsoTail.FindStringSubmatch(msg); t != nil {
				msg = msg[:len(msg)-len(t[0])]
				copies += len(strings.Split(t[1], ","))
				if t[2] != "" {
					n, _ := strconv.Atoi(t[2])
					copies += n
				}
			}
			if m[3] == "error" || m[3] == "warning" {
				a.New[key{file, normMsg(msg)}] += copies
			} else {
				a.Hints += copies
			}
		}
	}
	return a
}
