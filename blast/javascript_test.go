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
// title full of what a shell and a regular expression read, and a suite
// whose test a helper makes.
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

// A suite whose test a helper makes, with a title the scan cannot read.
function checks(name, f) {
  it(name, () => {
    ran(name)
    f(1, 1)
  })
}

describe('shared', () => {
  checks('shared sum', add)
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
				{fw + "-add", "a + b", "b + a", []string{"adds", "adds_again", "shared_sum"}, ""},
			} {
				s := r.selectOn(tc.branch, func() { r.edit(src, tc.old, tc.new) })
				for _, g := range s.Groups {
					if g.Runner != fw || g.Whole {
						t.Fatalf("%s: want groups of %s's tests by name:\n%s", tc.branch, fw, selJSON(t, s))
					}
				}
				if s.All != nil || len(s.Groups) == 0 {
					t.Fatalf("%s: want %s's tests by name:\n%s", tc.branch, fw, selJSON(t, s))
				}
				r.git("checkout", "-q", tc.branch)
				if got := r.runSelected(s, modules); !slices.Equal(got, tc.ran) {
					t.Errorf("%s: %q ran %q, want %q", tc.branch, s.Commands(), got, tc.ran)
				}
				r.git("checkout", "-q", "base")
			}
		})
	}
}

// jsProjects is a workspace of JavaScript projects, each found its own
// way: web by its dependency on vitest, with a config naming a setup file,
// snapshots and tests whose titles are made at run time; api by its
// package.json's jest field; lib by .mocharc.yml; tools by its test
// script (tape); both by dependencies on two runners.
var jsProjects = map[string]string{
	"web/package.json":      `{"name": "web", "types": "./dist/fmt.d.ts", "devDependencies": {"vitest": "3"}}` + "\n",
	"web/package-lock.json": `{"name": "web", "lockfileVersion": 3}` + "\n",
	"web/vitest.config.ts":  "import { plugins } from './build/plugins'\n\nexport default { plugins, test: { setupFiles: ['./test/setup.ts'] } }\n",
	"web/build/plugins.ts":  "export const plugins = []\n",
	"web/src/types.ts":      "export function isNum(x: unknown): boolean { return typeof x === 'number' }\n",
	"web/test/setup.ts":     "export const tz = 'UTC'\n",
	"web/src/fmt.ts":        "export function fmt(n: number): string { return String(n) }\n\nexport function pad(s: string): string { return s.padStart(4) }\n",
	"web/test/fmt.test.ts": `import { fmt, pad } from '../src/fmt'
import { describe, it, test, expect } from 'vitest'

describe('pad', () => {
  it('pads', () => {
    expect(pad('1')).toBe('   1')
  })
})

describe('fmt', () => {
  it(` + "`formats ${1}`" + `, () => {
    expect(fmt(1)).toMatchSnapshot()
  })
  test.each([1, 2])('each %s', (n) => {
    fmt(n)
  })
})
`,
	"web/test/__snapshots__/fmt.test.ts.snap": "exports[`fmt formats 1 1`] = `\"1\"`;\n",
	"api/package.json":                        `{"name": "api", "jest": {"testEnvironment": "node"}}` + "\n",
	"api/src/a.js":                            "function one() { return 1 }\nmodule.exports = { one }\n",
	"api/src/a.test.js": `const { one } = require('./a')

test('one is 1', () => {
  expect(one()).toBe(1)
})
`,
	"api/src/b.js":          "function b() { return 'b' }\nmodule.exports = { b }\n",
	"api/src/b.test.js":     "const { b } = require('./b')\n\ntest('with options', { timeout: 5 }, () => {\n  b()\n})\n",
	"api/src/box.js":        "class Box {\n  constructor(v) {\n    this.v = v\n  }\n\n  get size() {\n    return 1\n  }\n}\n\nmodule.exports = { Box }\n",
	"api/src/box.test.js":   "const { Box } = require('./box')\n\ntest('size', () => {\n  expect(new Box(1).size).toBe(1)\n})\n",
	"api/src/shape.js":      "class Shape {\n  describe() {\n    return 'area ' + this.area()\n  }\n\n  area() {\n    return 0\n  }\n}\n\nclass Square extends Shape {\n  area() {\n    return 4\n  }\n}\n\nmodule.exports = { Square }\n",
	"api/src/shape.test.js": "const { Square } = require('./shape')\n\ntest('describes a square', () => {\n  expect(new Square().describe()).toBe('area 4')\n})\n",
	"api/src/alias.js":      "function make() {\n  return 1\n}\n\nconst build = make\n\nmodule.exports = { build }\n",
	"api/src/alias.test.js": "const { build } = require('./alias')\n\ntest('builds', () => {\n  expect(build()).toBe(1)\n})\n",
	"lib/package.json":      `{"name": "lib"}` + "\n",
	"lib/.mocharc.yml":      "spec: test/*.js\n",
	"lib/index.js":          "exports.two = () => 2\n",
	"lib/test/index.js":     "const { two } = require('../index')\n\ndescribe('two', () => {\n  it('is 2', () => {\n    two()\n  })\n})\n",
	"tools/package.json":    `{"name": "tools", "scripts": {"test": "tape test/*.js"}}` + "\n",
	"tools/sum.js":          "exports.sum = (a, b) => a + b\n",
	"tools/test/sum.js":     "const test = require('tape')\nconst { sum } = require('../sum')\n\ntest('sums', (t) => {\n  t.equal(sum(1, 2), 3)\n  t.end()\n})\n",
	"both/package.json":     `{"name": "both", "devDependencies": {"jest": "30", "vitest": "3"}}` + "\n",
	"both/x.js":             "exports.x = () => 1\n",
	"both/x.test.js":        "const { x } = require('./x')\n\ntest('x', () => {\n  x()\n})\n",
}

// TestJSSelectWhereTheGraphCannotSee pins each runner's detection and
// command, and the whole files and projects selected where a test's
// title, a snapshot, a setup file, the configuration, package.json or a
// lockfile decide what runs.
func TestJSSelectWhereTheGraphCannotSee(t *testing.T) {
	r := newRepoOf(t, jsProjects)
	for _, tc := range []struct {
		branch string
		change func()
		want   []string // the commands, one a line
		whys   []string // in all's why, or in the groups'
	}{
		{"by-name", func() { r.edit("web/src/fmt.ts", "padStart(4)", "padStart(4, ' ')") },
			[]string{`cd web && npx vitest run 'test/fmt.test.ts' -t 'pad pads$'`}, []string{"reached via pad <- "}},
		{"dynamic-titles", func() { r.edit("web/src/fmt.ts", "String(n)", "`${n}`") },
			[]string{`cd web && npx vitest run 'test/fmt.test.ts'`}, []string{"is made when the tests run"}},
		{"snapshot", func() { r.edit("web/test/__snapshots__/fmt.test.ts.snap", `"1"`, `"01"`) },
			[]string{`cd web && npx vitest run 'test/fmt.test.ts'`}, []string{"the snapshots of web/test/fmt.test.ts"}},
		{"setup-file", func() { r.edit("web/test/setup.ts", "UTC", "CET") },
			[]string{`cd web && npx vitest run`}, []string{"the project's test configuration names it"}},
		{"config-import", func() { r.edit("web/build/plugins.ts", "[]", "[{}]") },
			[]string{`cd web && npx vitest run`}, []string{"the project's test configuration names it"}},
		// "types" is a key of package.json, not a file it names.
		{"not-config", func() { r.edit("web/src/types.ts", "'number'", "\"number\"") }, nil, nil},
		{"config", func() { r.edit("web/vitest.config.ts", "setupFiles", "globals: true, setupFiles") },
			[]string{`cd web && npx vitest run`}, []string{"web/vitest.config.ts changed"}},
		{"lockfile", func() { r.edit("web/package-lock.json", "3}", "3, \"packages\": {}}") },
			[]string{`cd web && npx vitest run`}, []string{"web/package-lock.json changed"}},
		{"jest-field", func() { r.edit("api/src/a.js", "return 1", "return 2 - 1") },
			[]string{`cd api && npx jest 'src/a.test.js' -t 'one is 1$'`}, nil},
		// A test the graph does not make one of (options before its
		// callback): its calls are at the file's top level.
		{"unknown-test", func() { r.edit("api/src/b.js", "'b'", "'B'") },
			[]string{`cd api && npx jest 'src/b.test.js'`}, []string{"calls b at the top level"}},
		{"getter", func() { r.edit("api/src/box.js", "return 1", "return 2 - 1") },
			[]string{`cd api && npx jest 'src/box.test.js'`}, []string{"Box.size (api/src/box.js:6-8) is a constructor, getter or setter"}},
		{"constructor", func() { r.edit("api/src/box.js", "this.v = v", "this.v = v + 0") },
			[]string{`cd api && npx jest 'src/box.test.js'`}, []string{"is a constructor, getter or setter"}},
		// this.area() in Shape runs Square's area, which the graph does
		// not link: what reaches Shape.area reaches it, cautiously.
		{"override", func() { r.edit("api/src/shape.js", "return 4", "return 2 * 2") },
			[]string{`cd api && npx jest 'src/shape.test.js' -t 'describes a square$'`}, []string{"Square.area overrides <- Shape.area <- Shape.describe"}},
		// make is called as build, a name given at the top level.
		{"alias", func() { r.edit("api/src/alias.js", "return 1", "return 2 - 1") },
			[]string{`cd api && npx jest 'src/alias.test.js'`}, []string{"api/src/alias.js:5 names make"}},
		{"package-json", func() { r.edit("api/package.json", `"node"`, `"jsdom"`) },
			[]string{`cd api && npx jest`}, []string{"api/package.json changed"}},
		{"mocharc", func() { r.edit("lib/index.js", "2", "1 + 1") },
			[]string{`cd lib && npx mocha 'test/index.js' --grep 'two is 2$'`}, nil},
		{"tape", func() { r.edit("tools/sum.js", "a + b", "b + a") },
			[]string{`cd tools && node 'test/sum.js'`}, []string{"tape runs whole files"}},
		{"two-runners", func() { r.edit("both/x.js", "1", "2") },
			nil, []string{"both/package.json: it depends on jest and vitest, and cchub cannot tell which runs which file"}},
	} {
		t.Run(tc.branch, func(t *testing.T) {
			s := r.selectOn(tc.branch, tc.change)
			got := strings.Split(strings.TrimSuffix(commandsOf(t, s), "\n"), "\n")
			if s.All != nil || len(s.Groups) == 0 {
				got = nil
			}
			// No commands: everything when a why is given, else nothing.
			if !slices.Equal(got, tc.want) || tc.want == nil && (s.All != nil) != (tc.whys != nil) {
				t.Errorf("commands:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), selJSON(t, s))
			}
			why := ""
			if s.All != nil {
				why = s.All.Why
			}
			for _, g := range s.Groups {
				why += "\n" + g.Why
			}
			for _, w := range tc.whys {
				if !strings.Contains(why, w) {
					t.Errorf("no why has %q:\n%s", w, selJSON(t, s))
				}
			}
		})
	}
}

// TestScanJSTests reads the titles and nesting of test blocks as the
// runners name them, and marks the titles made at run time.
func TestScanJSTests(t *testing.T) {
	src := "describe('a \\'q\\'', () => {\n" + // 1
		"  it(\"b\\u0041\", async function () { const re = /[)]/; })\n" + // 2
		"  it(`c ${x}`, () => {})\n" + // 3
		"  test.each([[1, 2]])('d %s', (n) => {})\n" + // 4
		"  it.each`\n  a | b\n  ${1} | ${2}\n`('e $a', () => {})\n" + // 5-8
		"  describe.skip(`f`, () => { it('g', () => {}) })\n" + // 9
		"})\n" +
		"foo.it('not a test', () => {})\n" +
		"test(name, () => {})\n"
	blocks, ok := scanJSTests([]byte(src))
	if !ok {
		t.Fatal("the scan did not read the file")
	}
	type got struct {
		fn, title     string
		start, parent int
		dynamic       bool
	}
	var gs []got
	for _, b := range blocks {
		gs = append(gs, got{b.fn, b.title, b.start, b.parent, b.dynamic})
	}
	want := []got{
		{"describe", "a 'q'", 1, -1, false},
		{"it", "bA", 2, 0, false},
		{"it", "", 3, 0, true},
		{"test", "d %s", 4, 0, true},
		{"it", "e $a", 5, 0, true},
		{"describe", "f", 9, 0, false},
		{"it", "g", 9, 5, false},
		{"test", "", 12, -1, true},
	}
	if !slices.Equal(gs, want) {
		t.Errorf("blocks:\n%+v\nwant:\n%+v", gs, want)
	}
	if _, ok := scanJSTests([]byte("describe('x', () => {\n")); ok {
		t.Error("unbalanced brackets read as a file")
	}
}
