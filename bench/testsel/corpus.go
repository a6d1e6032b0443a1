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
	"cchub/proc"
)

// The corpora, pinned: four Go modules with fast suites from the module
// cache (two of them test with suite frameworks), and pure-Python modules of the standard library with their
// unittest suites (none of them imported by unittest or test.support,
// so a mutant reaches the tests only through the code under test).
var (
	goModules = []struct{ Name, Module string }{
		{"cobra", "github.com/spf13/cobra@v1.10.2"},
		{"pflag", "github.com/spf13/pflag@v1.1.0"},
		// Suites: check.v1 (yaml.v3's tests) and testify (testify's own
		// suite package runs testify suites).
		{"yaml.v3", "gopkg.in/yaml.v3@v3.0.1"},
		{"testify", "github.com/stretchr/testify@v1.11.1"},
		// check.v1 suites with a suite of minutes: only when named
		// (-corpora go-git).
		{"go-git", "github.com/go-git/go-git/v5@v5.19.3"},
	}
	// goOnRequest are the Go corpora run only when -corpora names them.
	goOnRequest = map[string]bool{"go-git": true}
	pyModules   = []string{"json", "html", "fractions.py", "shlex.py", "graphlib.py", "configparser.py", "colorsys.py"}
	pyTests     = []string{"test_json", "test_html.py", "test_htmlparser.py", "test_fractions.py", "test_shlex.py", "test_graphlib.py", "test_configparser.py", "test_colorsys.py"}
	// The data test_configparser reads: under configdata/ in newer 3.11s,
	// beside it in older ones.
	pyTestData = []string{"configdata", "cfgparser.1", "cfgparser.2", "cfgparser.3"}
)

// makeGoCorpus copies module@version from the module cache into dir.
func makeGoCorpus(ctx context.Context, modVersion, dir string, env []string) error {
	src, err := corpus.GoModDir(ctx, modVersion, env)
	if err != nil {
		return err
	}
	if err := corpus.CopyTree(src, dir, corpus.Copy{Skip: func(rel string, d fs.DirEntry) bool { return d.IsDir() && (rel == "site" || rel == "assets") }}); err != nil {
		return err
	}
	if out, err := corpus.RunOut(ctx, 5*time.Minute, dir, env, "go", "mod", "download"); err != nil {
		return fmt.Errorf("go mod download in the copy of %s: %v %s", modVersion, err, out)
	}
	// A module published without a go.sum (yaml.v3) gets one, so that
	// its tests build.
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err != nil {
		if out, err := corpus.RunOut(ctx, 5*time.Minute, dir, env, "go", "mod", "tidy"); err != nil {
			return fmt.Errorf("go mod tidy in the copy of %s: %v %s", modVersion, err, out)
		}
	}
	return gitInit(ctx, dir)
}

// makePyCorpus copies the standard library's modules and their tests
// (the interpreter's own test package when it has them, else Debian's
// libpython3.X-testsuite unpacked under tools) into dir.
func makePyCorpus(ctx context.Context, python, tools, dir string, env []string) (version string, err error) {
	out, err := corpus.RunOut(ctx, time.Minute, os.TempDir(), env, python, "-c",
		"import json, os, sys, test; print(os.path.dirname(os.path.dirname(json.__file__))); print(os.path.dirname(test.__file__)); print('%d.%d' % sys.version_info[:2]); print(sys.version.split()[0])")
	f := strings.Fields(string(out))
	if err != nil || len(f) != 4 {
		return "", fmt.Errorf("%s cannot tell where its standard library is (%v): %s; give a Python 3 with -python", python, err, out)
	}
	lib, testPkg, minor, version := f[0], f[1], f[2], f[3]
	tests := testPkg
	if !fileExists(filepath.Join(tests, "test_json", "__init__.py")) {
		if tests, err = fetchTestsuite(ctx, tools, minor, env); err != nil {
			return "", err
		}
		version += " (tests: Debian libpython" + minor + "-testsuite)"
	}
	for _, m := range pyModules {
		if err := corpus.CopyTree(filepath.Join(lib, m), filepath.Join(dir, m), corpus.Copy{Skip: skipCache}); err != nil {
			return "", fmt.Errorf("copy %s of the standard library: %w", m, err)
		}
	}
	if err := corpus.CopyTree(filepath.Join(testPkg, "__init__.py"), filepath.Join(dir, "test", "__init__.py"), corpus.Copy{}); err != nil {
		return "", err
	}
	if err := corpus.CopyTree(filepath.Join(testPkg, "support"), filepath.Join(dir, "test", "support"), corpus.Copy{Skip: skipCache}); err != nil {
		return "", err
	}
	for _, t := range pyTests {
		if err := corpus.CopyTree(filepath.Join(tests, t), filepath.Join(dir, "test", t), corpus.Copy{Skip: skipCache}); err != nil {
			return "", fmt.Errorf("copy the test %s: %w", t, err)
		}
	}
	for _, t := range pyTestData {
		if fileExists(filepath.Join(tests, t)) {
			if err := corpus.CopyTree(filepath.Join(tests, t), filepath.Join(dir, "test", t), corpus.Copy{Skip: skipCache}); err != nil {
				return "", err
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("__pycache__/\n"), 0o644); err != nil {
		return "", err
	}
	return version, gitInit(ctx, dir)
}

func skipCache(_ string, d fs.DirEntry) bool { return d.Name() == "__pycache__" }

// fetchTestsuite unpacks Debian's libpython3.X-testsuite under tools
// (once) and returns its test directory.
func fetchTestsuite(ctx context.Context, tools, minor string, env []string) (string, error) {
	pkg := "libpython" + minor + "-testsuite"
	root := filepath.Join(tools, "deb-"+pkg)
	dir := filepath.Join(root, "usr", "lib", "python"+minor, "test")
	if fileExists(filepath.Join(dir, "test_json", "__init__.py")) {
		return dir, nil
	}
	debs := filepath.Join(tools, "debs")
	os.MkdirAll(debs, 0o755)
	find := func() []string { m, _ := filepath.Glob(filepath.Join(debs, pkg+"_*.deb")); return m }
	if len(find()) == 0 {
		if corpus.RunOut(ctx, 5*time.Minute, debs, env, "apt-get", "download", pkg); len(find()) == 0 {
			corpus.RunOut(ctx, 5*time.Minute, debs, env, "apt-get", "update", "-qq")
			corpus.RunOut(ctx, 5*time.Minute, debs, env, "apt-get", "download", pkg)
		}
	}
	if m := find(); len(m) > 0 {
		corpus.RunOut(ctx, 5*time.Minute, debs, env, "dpkg", "-x", m[0], root)
	}
	if !fileExists(filepath.Join(dir, "test_json", "__init__.py")) {
		return "", fmt.Errorf("the interpreter has no test suite and apt-get download %s failed: install %s, or give a Python whose test package is complete with -python", pkg, pkg)
	}
	return dir, nil
}

// gitInit makes dir a git repository with its content committed.
func gitInit(ctx context.Context, dir string) error {
	if out, err := corpus.RunOut(ctx, time.Minute, dir, nil, "git", "init", "-q"); err != nil {
		return fmt.Errorf("git init in %s: %v %s", dir, err, out)
	}
	return gitCommitAll(ctx, dir, "the corpus, unmutated")
}

// gitCommitAll commits whatever changed in dir, if anything did.
func gitCommitAll(ctx context.Context, dir, msg string) error {
	status, err := corpus.RunOut(ctx, time.Minute, dir, nil, "git", "status", "--porcelain")
	if err != nil {
		return fmt.Errorf("git status in %s: %v %s", dir, err, status)
	}
	if len(bytes.TrimSpace(status)) == 0 {
		return nil
	}
	for _, args := range [][]string{
		{"add", "-A"},
		{"-c", "user.name=testsel", "-c", "user.email=testsel@example.invalid", "commit", "-q", "--no-gpg-sign", "-m", msg},
	} {
		if out, err := corpus.RunOut(ctx, time.Minute, dir, nil, "git", args...); err != nil {
			return fmt.Errorf("git %s in %s: %v %s", strings.Join(args, " "), dir, err, out)
		}
	}
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// runSplit is runOut with stdout and stderr apart.
func runSplit(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args ...string) (stdout, stderr []byte, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var o, e bytes.Buffer
	cmd := proc.Command(name, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &o, &e
	err = cmd.Run(ctx)
	if ctx.Err() != nil {
		err = fmt.Errorf("stopped after %v", timeout)
	}
	return o.Bytes(), e.Bytes(), err
}

func firstLines(b []byte, n int) string {
	lines := strings.SplitN(strings.TrimSpace(string(b)), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}
