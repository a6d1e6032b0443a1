package blast

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"cchub/workspace/wstest"
)

// jsRunnerModules is where make test installs the pinned JavaScript test
// runners (scripts/js-runners): the test is skipped without them, or
// fails under CCHUB_REQUIRE_PEERS=1.
func jsRunnerModules(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".tools", "jsrunners", "node_modules"))
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, ".bin", "vitest"))
	}
	wstest.RequirePeer(t, "vitest, jest and mocha (make test installs them into .tools/jsrunners from scripts/js-runners)", err == nil)
	return dir
}

// jsProjectFiles is a project whose tests framework fw runs: src/math
// (add, mul), and a test file whose tests each write their name to $RAN
// when they run, in a suite, a nested suite and at the top, one with a
// title full of what a shell and a regular expression read.
func jsProjectOf(fw string) map[string]string {
	pkg := map[string]string{
		"vitest": `{"name": "p", "type": "module", "scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "3"}}`,
		"jest":   `{"name": "p", "scripts": {"test": "jest"}, "devDependencies": {"jest": "30"}}`,
		"mocha":  `{"name": "p", "scripts": {"test": "mocha 'test/**/*.js'"}}`,
		"node":   `{"name": "p", "scripts": {"test": "node --test test/"}}`,
	}[fw]
	src, imp, head := "function add(a, b) { return a + b }\nfunction mul(a, b) { return a * b }\nmodule.exports = { add, mul }\n",
		"const { add, mul } = require('../src/math')\n", ""
	file := "test/math.test.js"
	switch fw {
	case "vitest":
		src = "export function add(a: number, b: number): number { return a + b }\nexport function mul(a: number, b: number): number { return a * b }\n"
		imp = "import { add, mul } from '../src/math'\nimport { appendFileSync } from 'node:fs'\nimport { describe, it } from 'vitest'\n"
		file = "test/math.test.ts"
	case "node":
		head = "const { describe, it } = require('node:test')\n"
	}
	ran := "const ran = (name) => require('fs').appendFileSync(process.env.RAN, name + '\\n')\n"
	if fw == "vitest" {
		ran = "const ran = (name: string) => appendFileSync(process.env.RAN as string, name + '\\n')\n"
	}
	ext := filepath.Ext(file)
	return map[string]string{
		"package.json":   pkg + "\n",
		"src/math" + ext: src,
		file: head + imp + ran + `
describe('math', () => {
  it('adds', () => {
    ran('adds')
    add(1, 2)
  })
  it("multiplies (x*y) \"q\" it's $1 a/b|c", () => {
    ran('multiplies')
    mul(2, 3)
  })
  describe('nested', () => {
    it('adds again', () => {
      ran('adds again')
      add(2, 2)
    })
  })
})

it('top', () => {
  ran('top')
})
`,
	}
}

// runSelected runs the selection's commands in the repository, with the
// runners' modules as its node_modules, and returns the tests that ran.
func (r *repo) runSelected(s *Selection, modules string) []string {
	r.t.Helper()
	link := filepath.Join(r.dir, "node_modules")
	if modules != "" {
		if err := os.Symlink(modules, link); err != nil {
			r.t.Fatal(err)
		}
		defer os.Remove(link)
	}
	home := r.t.TempDir() // npx writes its logs under HOME, outside the repository
	ranFile := filepath.Join(home, "ran")
	for _, c := range s.Commands() {
		cmd := exec.Command("sh", "-c", c)
		cmd.Dir = r.dir
		cmd.Env = append(os.Environ(), "RAN="+ranFile, "HOME="+home, "CI=1", "NO_COLOR=1")
		if modules != "" {
			cmd.Env = append(cmd.Env, "PATH="+filepath.Join(modules, ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			r.t.Fatalf("%s: %v\n%s", c, err, out)
		}
	}
	b, err := os.ReadFile(ranFile)
	if err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	ran := strings.Fields(strings.ReplaceAll(string(b), " ", "_"))
	sort.Strings(ran)
	return ran
}

// TestJSRunnersRunExactlyTheSelected selects, for a change to a function,
// the tests that call it, by name, with the command of the project's
// runner, and runs the command for real: exactly those tests run, the
// one whose title holds quotes, an apostrophe, $, /, | and regular
// expression syntax included. node --test is node's own; vitest, jest
// and mocha are the pinned ones make test installs.
func TestJSRunnersRunExactlyTheSelected(t *testing.T) {
	wstest.RequireProgram(t, "node")
	for _, fw := range []string{"node", "vitest", "jest", "mocha"} {
		t.Run(fw, func(t *testing.T) {
			modules := ""
			if fw != "node" {
				modules = jsRunnerModules(t)
			}
			files := jsProjectOf(fw)
			src := "src/math.js"
			if fw == "vitest" {
				src = "src/math.ts"
			}
			r := newRepoOf(t, files)
			for _, tc := range []struct {
				branch, old, new string
				ran              []string
				command          string
			}{
				{fw + "-mul", "a * b", "b * a", []string{"multiplies"}, ""},
				{fw + "-add", "a + b", "b + a", []string{"adds", "adds_again"}, ""},
			} {
				s := r.selectOn(tc.branch, func() { r.edit(src, tc.old, tc.new) })
				if s.All != nil || len(s.Groups) != 1 || s.Groups[0].Runner != fw || s.Groups[0].Whole {
					t.Fatalf("%s: want one group of %s's tests by name:\n%s", tc.branch, fw, selJSON(t, s))
				}
				r.git("checkout", "-q", tc.branch)
				if got := r.runSelected(s, modules); !slices.Equal(got, tc.ran) {
					t.Errorf("%s: %q ran %q, want %q", tc.branch, s.Groups[0].Command, got, tc.ran)
				}
				r.git("checkout", "-q", "base")
			}
		})
	}
}
