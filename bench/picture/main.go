// Command picture measures cchub blast --format markdown on the largest
// blasts of real trees (issue 43): for each of a few widely called
// functions of Go's own source and of go-git, it changes one line of the
// function's body in a git copy of the tree, and reports how many
// definitions the change reaches, how many the Mermaid picture draws,
// the picture's characters (GitHub renders Mermaid up to 50,000) and the
// whole document's bytes (a step summary holds 1 MiB). It is a
// benchmark, run by make bench; it asserts nothing.
//
//	go run ./bench/picture [-cchub PATH] [-keep]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"cchub/bench/corpus"
)

// tree is a corpus and the functions whose change is measured: a file
// and the line its declaration begins with.
type tree struct {
	name  string
	src   func(ctx context.Context) (string, error)
	funcs [][2]string
}

var trees = []tree{
	{"GOROOT/src", func(ctx context.Context) (string, error) {
		out, err := corpus.RunOut(ctx, time.Minute, os.TempDir(), nil, "go", "env", "GOROOT")
		return filepath.Join(strings.TrimSpace(string(out)), "src"), err
	}, [][2]string{
		{"errors/errors.go", "func New("},
		{"fmt/print.go", "func Sprintf("},
		{"fmt/errors.go", "func Errorf("},
		{"strings/strings.go", "func Index("},
	}},
	{"go-git v5.19.3", func(ctx context.Context) (string, error) {
		return corpus.GoModDir(ctx, "github.com/go-git/go-git/v5@v5.19.3", os.Environ())
	}, [][2]string{
		{"plumbing/hash.go", "func NewHash("},
		{"plumbing/hash.go", "func (h Hash) String("},
		{"plumbing/hash.go", "func (h Hash) IsZero("},
		{"storage/filesystem/object.go", "func (s *ObjectStorage) EncodedObject("},
	}},
}

type row struct {
	tree, fn                      string
	reached, drawn, mermaid, size int
	withTests                     int // the document's bytes with --tests
	seconds                       float64
}

func main() {
	cchub := flag.String("cchub", ".tools/bin/cchub", "the cchub binary")
	keep := flag.Bool("keep", false, "keep the git copies (their path is printed)")
	flag.Parse()
	ctx := context.Background()
	bin, err := filepath.Abs(*cchub)
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "picture: no cchub binary (run make build, or give -cchub):", err)
		os.Exit(1)
	}
	tmp, err := os.MkdirTemp("", "picture-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "picture:", err)
		os.Exit(1)
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "picture: the copies are kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	env := append(os.Environ(), "CCHUB_CONFIG_DIR="+filepath.Join(tmp, "config"), "CCHUB_STATE_HOME="+filepath.Join(tmp, "state"), "CCHUB_NO_SHARE=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	var rows []row
	for i, t := range trees {
		rs, err := measure(ctx, bin, filepath.Join(tmp, fmt.Sprint(i)), t, env)
		if err != nil {
			fmt.Fprintf(os.Stderr, "picture: %s: %v\n", t.name, err)
			os.Exit(1)
		}
		rows = append(rows, rs...)
	}
	fmt.Println("cchub blast --format markdown on a one-line change of widely called functions")
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tree\tfunction\treached\tdrawn\tmermaid chars\tdocument bytes\twith --tests\tseconds\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.1f\t\n", r.tree, r.fn, r.reached, r.drawn, r.mermaid, r.size, r.withTests, r.seconds)
	}
	tw.Flush()
	fmt.Println("\nreached: definitions the change reaches (json); drawn: boxes in the Mermaid picture (at most 30 and the changed ones); mermaid chars: the flowchart's characters (GitHub's limit 50,000); document bytes: the whole markdown (at most 1 MiB), and with the tests to run (--tests).")
}

// measure copies t into dir as a git repository, indexes it once, and
// measures each of its functions' changes.
func measure(ctx context.Context, bin, dir string, t tree, env []string) ([]row, error) {
	src, err := t.src(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "picture: copying %s…\n", t.name)
	if err := corpus.CopyTree(src, dir, corpus.Copy{}); err != nil {
		return nil, err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=picture", "-c", "user.email=picture@example.invalid", "commit", "-q", "--no-gpg-sign", "-m", "tree"}} {
		if out, err := corpus.RunOut(ctx, 5*time.Minute, dir, env, "git", args...); err != nil {
			return nil, fmt.Errorf("git %s: %v %s", args[0], err, out)
		}
	}
	if out, err := corpus.RunOut(ctx, 20*time.Minute, dir, env, bin, "index"); err != nil {
		return nil, fmt.Errorf("cchub index: %v %s", err, out)
	}
	var rows []row
	for _, f := range t.funcs {
		r, err := one(ctx, bin, dir, t.name, f[0], f[1], env)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// one changes the line after decl's in file, measures the blast and
// restores the file.
func one(ctx context.Context, bin, dir, name, file, decl string, env []string) (row, error) {
	p := filepath.Join(dir, filepath.FromSlash(file))
	orig, err := os.ReadFile(p)
	if err != nil {
		return row{}, err
	}
	defer os.WriteFile(p, orig, 0o644)
	lines := strings.SplitAfter(string(orig), "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, decl) {
			at = i
			break
		}
	}
	if at < 0 {
		return row{}, fmt.Errorf("%s: no line begins with %q", file, decl)
	}
	changed := strings.Join(lines[:at+1], "") + "\t_ = 0 // changed\n" + strings.Join(lines[at+1:], "")
	if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
		return row{}, err
	}
	r := row{tree: name, fn: file + ": " + strings.TrimSuffix(strings.TrimPrefix(decl, "func "), "(")}
	out, err := cchubOut(ctx, bin, dir, env, "blast", "--base", "HEAD", "--format", "json")
	if err != nil {
		return r, err
	}
	var rep struct {
		Reached []json.RawMessage `json:"reached"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return r, fmt.Errorf("blast --format json: %v", err)
	}
	r.reached = len(rep.Reached)
	t0 := time.Now()
	md, err := cchubOut(ctx, bin, dir, env, "blast", "--base", "HEAD", "--format", "markdown")
	r.seconds = time.Since(t0).Seconds()
	if err != nil {
		return r, err
	}
	r.size = len(md)
	withTests, err := cchubOut(ctx, bin, dir, env, "blast", "--base", "HEAD", "--format", "markdown", "--tests")
	if err != nil {
		return r, err
	}
	r.withTests = len(withTests)
	if _, rest, ok := strings.Cut(string(md), "```mermaid\n"); ok {
		chart, _, _ := strings.Cut(rest, "```")
		r.mermaid = len([]rune(chart))
		for _, l := range strings.Split(chart, "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "n") && strings.Contains(l, "[\"") {
				r.drawn++
			}
		}
	}
	return r, nil
}

func cchubOut(ctx context.Context, bin, dir string, env []string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("cchub %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}
