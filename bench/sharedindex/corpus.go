package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cchub/bench/corpus"
)

// A corpus is a real tree made a git repository of two commits: the
// tree, then a small change to a few functions (what a pull request
// brings), so that `cchub blast --base HEAD~1` has something to answer.
type corpusSpec struct {
	Name string // goroot, pystdlib
	// source finds the tree to copy (and says which version it is).
	source func(ctx context.Context) (dir, version string, err error)
	skip   func(rel string, d fs.DirEntry) bool
	// changes are the functions changed by commit 2, as file and the
	// start of the line that opens them; those not found are left out.
	// They are called from few places, as most changes are: blast
	// --tests on a function half the tree reaches runs for minutes.
	changes []change
	// names are the definitions whose callers are compared (path:Name,
	// as `cchub graph callers` takes them): the first is the one the
	// first-query figure times. Each has callers in many files.
	names []string
	// noTests says why `blast --tests` is not measured on the corpus
	// ("" measures it).
	noTests string
}

type change struct {
	File, Opening string
}

var corpora = []corpusSpec{
	{
		Name: "goroot",
		source: func(ctx context.Context) (string, string, error) {
			out, err := corpus.RunOut(ctx, time.Minute, os.TempDir(), nil, "go", "env", "GOROOT", "GOVERSION")
			f := strings.Fields(string(out))
			if err != nil || len(f) != 2 {
				return "", "", fmt.Errorf("go env GOROOT GOVERSION: %v %s (is go on PATH?)", err, out)
			}
			return filepath.Join(f[0], "src"), f[1], nil
		},
		changes: []change{
			{"strings/strings.go", "func Fields("},
			{"bytes/buffer.go", "func (b *Buffer) WriteString("},
			{"path/path.go", "func Clean("},
		},
		names: []string{
			"sync/mutex.go:Mutex.Lock",
			"fmt/errors.go:Errorf",
			"bytes/buffer.go:Buffer.WriteString",
			"strings/strings.go:Index",
		},
	},
	{
		// The standard library as sysconfig's "stdlib" path holds it
		// (with pyenv, site-packages too), its Python sources only.
		Name: "pystdlib",
		source: func(ctx context.Context) (string, string, error) {
			out, err := corpus.RunOut(ctx, time.Minute, os.TempDir(), nil, "python3", "-c",
				"import sysconfig, sys; print(sysconfig.get_path('stdlib')); print(sys.version.split()[0])")
			f := strings.Fields(string(out))
			if err != nil || len(f) != 2 {
				return "", "", fmt.Errorf("python3 cannot say where its standard library is (%v): %s; install python3", err, out)
			}
			return f[0], "Python " + f[1], nil
		},
		skip: func(rel string, d fs.DirEntry) bool {
			if d.IsDir() {
				return d.Name() == "__pycache__"
			}
			return !strings.HasSuffix(rel, ".py") && !strings.HasSuffix(rel, ".pyi")
		},
		changes: []change{
			{"colorsys.py", "def rgb_to_hls("},
			{"graphlib.py", "    def static_order("},
			{"fractions.py", "    def limit_denominator("},
		},
		names: []string{
			"posixpath.py:join",
			"re/__init__.py:compile",
			"textwrap.py:dedent",
			"warnings.py:warn",
		},
	},
}

// makeRepo copies the corpus into dir and commits it, then commits the
// change. It returns the version of the source and how many functions
// the change touched.
func makeRepo(ctx context.Context, c corpusSpec, dir string) (version string, changed []string, err error) {
	src, version, err := c.source(ctx)
	if err != nil {
		return "", nil, err
	}
	if err := corpus.CopyTree(src, dir, corpus.Copy{Skip: c.skip, Old: true}); err != nil {
		return "", nil, fmt.Errorf("copy %s: %w", src, err)
	}
	if err := git(ctx, dir, "init", "-q"); err != nil {
		return "", nil, err
	}
	if err := commitAll(ctx, dir, "the corpus"); err != nil {
		return "", nil, err
	}
	for _, ch := range c.changes {
		ok, err := changeFunc(filepath.Join(dir, ch.File), ch.Opening)
		if err != nil {
			return "", nil, err
		}
		if ok {
			changed = append(changed, ch.File+": "+strings.TrimSuffix(strings.TrimSpace(ch.Opening), "("))
		}
	}
	if len(changed) == 0 {
		return "", nil, fmt.Errorf("none of the functions to change is in %s (another version?): update the changes of corpus %s in bench/sharedindex/corpus.go", src, c.Name)
	}
	return version, changed, commitAll(ctx, dir, "a change to "+fmt.Sprint(len(changed))+" functions")
}

// changeFunc adds a statement at the top of the body of the function
// whose opening line starts with opening: a line indented as the body's
// first line is. It says whether it found the function.
func changeFunc(file, opening string) (bool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		if os.IsNotExist(err) {
			return false, nil
		}
		return false, err
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i, l := range lines {
		if !bytes.HasPrefix(l, []byte(opening)) {
			continue
		}
		// The body starts after the line that ends the signature.
		j := i
		for j < len(lines) && !bytes.HasSuffix(bytes.TrimRight(lines[j], " \r\n"), []byte("{")) && !bytes.HasSuffix(bytes.TrimRight(lines[j], " \r\n"), []byte(":")) {
			j++
		}
		k := j + 1
		for k < len(lines) && len(bytes.TrimSpace(lines[k])) == 0 {
			k++
		}
		if k >= len(lines) {
			return false, nil
		}
		indent := lines[k][:len(lines[k])-len(bytes.TrimLeft(lines[k], " \t"))]
		stmt := "_ = len(\"a changed line\")\n"
		if strings.HasSuffix(file, ".py") {
			stmt = "_changed = len(\"a changed line\")\n"
		}
		add := append(append([]byte(nil), indent...), stmt...)
		out := bytes.Join(lines[:j+1], nil)
		out = append(out, add...)
		out = append(out, bytes.Join(lines[j+1:], nil)...)
		return true, os.WriteFile(file, out, 0o644)
	}
	return false, nil
}

func commitAll(ctx context.Context, dir, msg string) error {
	if err := git(ctx, dir, "add", "-A"); err != nil {
		return err
	}
	return git(ctx, dir, "-c", "user.name=sharedindex", "-c", "user.email=sharedindex@example.invalid",
		"commit", "-q", "--no-gpg-sign", "-m", msg)
}

// clone makes a fresh clone of repo at dir, as a CI runner's checkout.
func clone(ctx context.Context, repo, dir string) error {
	if out, err := corpus.RunOut(ctx, 10*time.Minute, filepath.Dir(dir), nil, "git", "clone", "-q", repo, dir); err != nil {
		return fmt.Errorf("git clone %s %s: %v %s", repo, dir, err, out)
	}
	return nil
}

func git(ctx context.Context, dir string, args ...string) error {
	if out, err := corpus.RunOut(ctx, 10*time.Minute, dir, nil, "git", args...); err != nil {
		return fmt.Errorf("git %s in %s: %v %s", strings.Join(args, " "), dir, err, out)
	}
	return nil
}
