package codegraph

import "testing"

// A TypeScript, TSX and JavaScript workspace: add in two modules, a
// default export, named imports with and without an alias, a namespace
// import, an index file that re-exports (by name, renamed, and export *
// from a directory's index), CommonJS require (whole and destructured,
// renamed; of a module that is a function), TypeScript's ./math.js for
// math.ts, imports of a package, this.method, a static method of an
// imported class, a construction, recursion, a cycle, a call in a
// closure, and it/test/describe blocks.
func TestJavaScriptEdges(t *testing.T) {
	x := index(t, jsWorkspace)
	same(t, "callers of math.add", callersOf(t, x, "src/math.ts:add"), []string{
		"src/app.tsx:run -> src/math.ts:add (import)",             // plus(1, 2): import {add as plus}
		"src/app.tsx:run -> src/math.ts:add (import)",             // ix.add(1, 1): re-exported by index.ts
		"src/app.tsx:run -> src/math.ts:add (import)",             // plus in the closure passed to map
		`src/calc.test.ts:it("adds") -> src/math.ts:add (import)`, // './math.js' is math.ts
		"src/math.ts:sub -> src/math.ts:add (exact)",
		"src/math.ts:Calc.push -> src/math.ts:add (exact)",
	})
	same(t, "callees of run", calleesOf(t, x, "run"), []string{
		"src/app.tsx:run -> src/math.ts:add (import)",
		"src/app.tsx:run -> src/math.ts:mul (import)",         // the default export
		"src/app.tsx:run -> src/math.ts:add (import)",         // ix.add
		"src/app.tsx:run -> src/math.ts:sub (import)",         // minus: export {sub as minus}
		"src/app.tsx:run -> src/util/index.ts:clamp (import)", // export * from './util'
		"src/app.tsx:run -> src/other.js:add (import)",        // o.add: the other add
		"src/app.tsx:run -> src/other.js:fact (import)",
		"src/app.tsx:run -> src/other.js:twice (import)", // {twice: double}, exports.twice
		"src/app.tsx:run -> src/math.ts:Calc.make (import)",
		"src/app.tsx:run -> src/math.ts:Calc (import)",
		"src/app.tsx:run -> src/math.ts:Calc.push (import)", // new Calc().push(1)
		"src/app.tsx:run -> ?createElement ()",              // react is a package
		"src/app.tsx:run -> ?useState ()",
		"src/app.tsx:run -> src/legacy.cjs:default (import)", // module.exports = function
		"src/app.tsx:run -> ?map ()",
		"src/app.tsx:run -> src/math.ts:add (import)",
	})
	same(t, "callees of Calc.push", calleesOf(t, x, "Calc.push"), []string{
		"src/math.ts:Calc.push -> src/math.ts:add (exact)",
		"src/math.ts:Calc.push -> src/math.ts:Calc.log (exact)",
	})
	same(t, "recursion", callersOf(t, x, "fact"), []string{
		"src/app.tsx:run -> src/other.js:fact (import)",
		"src/other.js:fact -> src/other.js:fact (exact)",
	})
	same(t, "cycle", calleesOf(t, x, "pong"), []string{"src/other.js:pong -> src/other.js:ping (exact)"})
	same(t, "the other add", callersOf(t, x, "src/other.js:add"), []string{
		"src/app.tsx:run -> src/other.js:add (import)",
		"src/other.js:twice -> src/other.js:add (exact)",
	})
	same(t, "tests", testsOf(t, x), []string{
		`src/calc.test.ts:describe("math")`,
		`src/calc.test.ts:it("adds")`,
		`src/calc.test.ts:test("runs")`,
	})
	// describe's callback declares the tests: it and test are its calls.
	same(t, "callees of describe", calleesOf(t, x, `describe("math")`), []string{
		`src/calc.test.ts:describe("math") -> ?it ()`,
		`src/calc.test.ts:describe("math") -> ?test ()`,
	})
	same(t, "callees of a test", calleesOf(t, x, `it("adds")`), []string{
		`src/calc.test.ts:it("adds") -> ?expect ()`,
		`src/calc.test.ts:it("adds") -> src/math.ts:add (import)`,
		`src/calc.test.ts:it("adds") -> ?toBe ()`,
	})
	same(t, "blast of add", blastOf(t, x, "src/math.ts:add", 2), []string{
		"> src/app.tsx:run import",
		`> src/calc.test.ts:it("adds") import test`,
		"> src/math.ts:sub exact",
		"> src/math.ts:Calc.push exact",
		`>> src/calc.test.ts:test("runs") import test`, // it calls run
	})
}

var jsWorkspace = map[string]string{
	"src/math.ts": `export function add(a: number, b: number): number { return a + b }

export function sub(a: number, b: number) { return add(a, -b) }

export default function mul(a: number, b: number) { return a * b }

export class Calc {
  total = 0
  push(x: number) { this.total = add(this.total, x); this.log() }
  log() { return this.total }
  static make() { return new Calc() }
}
`,
	"src/other.js": `function add(a, b) { return a - b }

function fact(n) { return n <= 1 ? 1 : n * fact(n - 1) }

function ping(n) { return n && pong(n - 1) }
function pong(n) { return n && ping(n - 1) }

module.exports = { add, fact }

exports.twice = function (x) { return add(x, x) }
`,
	"src/index.ts": `export { add, sub as minus } from './math'
export * from './util'
`,
	"src/util/index.ts": `export const clamp = (x: number) => Math.max(0, x)
`,
	"src/app.tsx": `import mul, { add as plus, Calc } from './math'
import * as ix from './index'
import { minus, clamp } from '.'
import React, { useState } from 'react'
const o = require('./other.js')
const legacy = require('./legacy')
const { fact, twice: double } = require('./other')

export function run() {
  plus(1, 2)
  mul(2, 3)
  ix.add(1, 1)
  minus(3, 1)
  clamp(5)
  o.add(1, 2)
  fact(3)
  double(2)
  Calc.make()
  new Calc().push(1)
  React.createElement('div')
  useState(0)
  legacy()
  return [1].map(x => plus(x, 1))
}
`,
	"src/legacy.cjs": `module.exports = function legacy() { return 1 }
`,
	"src/calc.test.ts": `import { add } from './math.js'
import { run } from './app'

describe('math', () => {
  it('adds', () => {
    expect(add(1, 2)).toBe(3)
  })
  test('runs', () => { run() })
})
`,
}

// TypeScript's module resolution and classes, one small project each:
// what run calls, as the TypeScript checker resolves it.
func TestTypeScriptResolution(t *testing.T) {
	geo := `export function area(r: number) { return r * r }
export function unused() {}
`
	for _, tc := range []struct {
		name, caller string // caller: run when not said
		files        map[string]string
		want         []string
	}{{
		// A tsconfig with comments and trailing commas extends a base
		// that sets baseUrl and paths: a wildcard alias, an exact one, a
		// substitution tried after one that names no file, and a bare
		// specifier through baseUrl alone. A package stays a package.
		name: "paths alias",
		files: map[string]string{
			"tsconfig.base.json": `{
  // shared
  "compilerOptions": {
    "baseUrl": ".",
    "paths": {
      "@/*": ["gen/*", "src/*"], /* generated code first */
      "*": ["vendor/*"],
      "geo": ["src/geo.ts"],
    },
  },
}`,
			"tsconfig.json": `{"extends": "./tsconfig.base", "compilerOptions": {"strict": true}}`,
			"src/geo.ts":    geo,
			"src/shape/circle.ts": `export function circle() {}
`,
			"src/app.ts": `import { area } from '@/geo'
import { area as a2 } from 'geo'
import { circle } from 'src/shape/circle'
import { render } from 'react'
export function run() { area(1); a2(2); circle(); render() }
`,
		},
		want: []string{
			"src/app.ts:run -> src/geo.ts:area (import)",
			"src/app.ts:run -> src/geo.ts:area (import)",
			"src/app.ts:run -> src/shape/circle.ts:circle (import)",
			"src/app.ts:run -> ?render ()",
		},
	}, {
		// The nearest configuration governs a file: one below that sets
		// no paths leaves the alias unresolved, as tsserver does.
		name: "nearest tsconfig",
		files: map[string]string{
			"tsconfig.json":     `{"compilerOptions": {"paths": {"@/*": ["src/*"]}}}`,
			"src/geo.ts":        geo,
			"pkg/tsconfig.json": `{"compilerOptions": {"strict": true}}`,
			"pkg/app.ts": `import { area } from '@/geo'
export function run() { area(1) }
`,
		},
		want: []string{"pkg/app.ts:run -> ?area ()"}, // a package, for all the graph knows
	}, {
		// extends as a list: the later configuration's paths win, and a
		// baseUrl of the first is kept (the paths relative to it).
		name: "extends list",
		files: map[string]string{
			"tsconfig.json":       `{"extends": ["./cfg/tsconfig.a.json", "./cfg/tsconfig.b"]}`,
			"cfg/tsconfig.a.json": `{"compilerOptions": {"baseUrl": "..", "paths": {"@/*": ["old/*"]}}}`,
			"cfg/tsconfig.b.json": `{"compilerOptions": {"paths": {"@/*": ["src/*"]}}}`,
			"src/geo.ts":          geo,
			"old/geo.ts":          geo,
			"src/shape/sq.ts":     "export function sq() {}\n",
			"src/app.ts": `import { area } from '@/geo'
import { sq } from 'src/shape/sq'
export function run() { area(1); sq() }
`,
		},
		want: []string{
			"src/app.ts:run -> src/geo.ts:area (import)",
			"src/app.ts:run -> src/shape/sq.ts:sq (import)",
		},
	}, {
		// jsconfig.json serves JavaScript as tsconfig.json TypeScript.
		name: "jsconfig alias",
		files: map[string]string{
			"jsconfig.json": `{"compilerOptions": {"baseUrl": "lib", "paths": {"~/*": ["./*"]}}}`,
			"lib/geo.js":    "export function area(r) { return r * r }\n",
			"app.js":        "import { area } from '~/geo'\nexport function run() { area(1) }\n",
		},
		want: []string{"app.js:run -> lib/geo.js:area (import)"},
	}, {
		// An index.ts barrel: export * from, export { a as b } from, and
		// a default re-exported by name; the directory imported by name.
		name: "barrel",
		files: map[string]string{
			"src/geo.ts": geo,
			"src/circle.ts": `export default class Circle { grow() {} }
`,
			"src/lib/square.ts": `export const square = (x: number) => x * x
`,
			"src/lib/index.ts": `export * from './square'
export { area as surface } from '../geo'
export { default as Circle } from '../circle'
`,
			"src/app.ts": `import { square, surface, Circle } from './lib'
export function run() { square(2); surface(1); new Circle(); Circle.grow() }
`,
		},
		want: []string{
			"src/app.ts:run -> src/lib/square.ts:square (import)",
			"src/app.ts:run -> src/geo.ts:area (import)",
			"src/app.ts:run -> src/circle.ts:Circle (import)",
			"src/app.ts:run -> src/circle.ts:Circle.grow (import)",
		},
	}, {
		// Default exports: a function, a class, a name exported as
		// default; imported under other names.
		name: "default export",
		files: map[string]string{
			"src/f.ts": "export default function build() {}\n",
			"src/k.ts": "export default class Store { save() {} }\n",
			"src/v.ts": "function helper() {}\nexport default helper\n",
			"src/app.ts": `import make from './f'
import Shop from './k'
import h from './v'
export function run() { make(); new Shop().save(); h() }
`,
		},
		want: []string{
			"src/app.ts:run -> src/f.ts:build (import)",
			"src/app.ts:run -> src/k.ts:Store (import)",
			"src/app.ts:run -> src/k.ts:Store.save (import)",
			"src/app.ts:run -> src/v.ts:helper (import)",
		},
	}, {
		// this.m() reaches the class's own method, or the one of the
		// class it extends (imported, through two levels); super.m() the
		// base's, not the override.
		name: "this and super", caller: "Store.run",
		files: map[string]string{
			"src/base.ts": `export class Root { id() { return 1 } }
export class Base<T extends () => void = () => void> extends Root {
  save() {}
  log() {}
}
`,
			"src/app.ts": `import { Base } from './base'
class Other { save() {} log() {} id() {} }
export class Store extends Base<() => void> {
  log() {}
  run() { this.save(); this.log(); this.id(); super.log() }
}
`,
		},
		want: []string{
			"src/app.ts:Store.run -> src/base.ts:Base.save (import)",
			"src/app.ts:Store.run -> src/app.ts:Store.log (exact)",
			"src/app.ts:Store.run -> src/base.ts:Root.id (import)",
			"src/app.ts:Store.run -> src/base.ts:Base.log (import)",
		},
	}, {
		// new X().m() and x = new X(); x.m(), X imported or of the file,
		// and a variable of the same name in another function that holds
		// another class.
		name: "constructed",
		files: map[string]string{
			"src/k.ts": "export class Store { save() {} }\n",
			"src/app.ts": `import { Store } from './k'
import * as ns from './k'
class Cart { save() {} }
export function run() {
  new Store().save()
  const s = new Store()
  s.save()
  const t = new ns.Store()
  t.save()
}
export function other() {
  const s = new Cart()
  s.save()
}
`,
		},
		want: []string{
			"src/app.ts:run -> src/k.ts:Store (import)",
			"src/app.ts:run -> src/k.ts:Store.save (import)",
			"src/app.ts:run -> src/k.ts:Store (import)",
			"src/app.ts:run -> src/k.ts:Store.save (import)",
			"src/app.ts:run -> src/k.ts:Store (import)",
			"src/app.ts:run -> src/k.ts:Store.save (import)",
		},
	}, {
		// A parameter or variable declared of a class (generic or not)
		// reaches its methods; one of an interface, by name only.
		name: "typed",
		files: map[string]string{
			"src/k.ts": "export class Store<T = number> { save() {} }\nexport interface Saver { save(): void }\n",
			"src/app.ts": `import { Store, Saver } from './k'
class Cart { save() {} }
export function run(s: Store, v: Saver, o?: Store<string>) {
  s.save()
  o.save()
  v.save()
  const t: Store = s
  t.save()
}
`,
		},
		want: []string{
			"src/app.ts:run -> src/k.ts:Store.save (import)",
			"src/app.ts:run -> src/k.ts:Store.save (import)",
			"src/app.ts:run -> src/app.ts:Cart.save (name-only)",
			"src/app.ts:run -> src/k.ts:Saver.save (name-only)",
			"src/app.ts:run -> src/k.ts:Store.save (name-only)",
			"src/app.ts:run -> src/k.ts:Store.save (import)",
		},
	}, {
		// A TypeScript namespace's members, through a named import and
		// through a namespace import of the module that exports it.
		name: "namespace",
		files: map[string]string{
			"src/util.ts": `export namespace util {
  export const assertEqual = (a: unknown) => {}
  export function joinValues(xs: string[]) { return xs.join() }
}
`,
			"src/index.ts": "export * from './util'\n",
			"src/app.ts": `import { util } from './util'
import * as z from './index'
export function run() { util.assertEqual(1); z.util.joinValues([]) }
`,
		},
		want: []string{
			"src/app.ts:run -> src/util.ts:assertEqual (import)",
			"src/app.ts:run -> src/util.ts:joinValues (import)",
		},
	}, {
		// A namespace import's member the module exports as a value the
		// graph cannot follow (a method read into a const) is no method
		// of any class: unlinked, or a function of the name.
		name: "namespace import of a value",
		files: map[string]string{
			"src/k.ts": `export class Arr { static create() {} array() {} }
const arrayType = Arr.create
export { arrayType as array }
`,
			"src/f.ts": "export function other() {}\n",
			"src/app.ts": `import * as z from './k'
export function run() { z.array(); z.other() }
`,
		},
		want: []string{
			"src/app.ts:run -> ?array ()",
			"src/app.ts:run -> src/f.ts:other (name-only)",
		},
	}, {
		// CommonJS: a class as module.exports, required and constructed;
		// exports.f destructured.
		name: "commonjs",
		files: map[string]string{
			"lib/store.js": "module.exports = class Store { save() {} }\n",
			"lib/util.js":  "exports.clean = function () {}\n",
			"app.js": `const Store = require('./lib/store')
const { clean } = require('./lib/util')
function run() { new Store().save(); clean() }
`,
		},
		want: []string{
			"app.js:run -> lib/store.js:default (import)",
			"app.js:run -> lib/store.js:default.save (import)",
			"app.js:run -> lib/util.js:clean (import)",
		},
	}, {
		// A CommonJS class extending a required one: this.m() reaches
		// the base's method.
		name: "commonjs base", caller: "default.save",
		files: map[string]string{
			"lib/base.js": "exports.Base = class Base { log() {} }\n",
			"lib/store.js": `const { Base } = require('./base')
module.exports = class Store extends Base { save() { this.log() } }
`,
		},
		want: []string{"lib/store.js:default.save -> lib/base.js:Base.log (import)"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			x := index(t, tc.files)
			caller := tc.caller
			if caller == "" {
				caller = "run"
			}
			same(t, "callees of "+caller, calleesOf(t, x, caller), tc.want)
		})
	}
}

// The class an outline signature says a class extends: past type
// parameters that say extends themselves (and hold a function type's =>),
// without type arguments; none for an expression or an implements alone.
func TestJSBase(t *testing.T) {
	for sig, want := range map[string]string{
		"extends Base":                                        "Base",
		"extends ns.Base<T> implements I":                     "ns.Base",
		"<T extends () => void = () => void> extends Base<T>": "Base",
		"<T extends Base> implements I":                       "",
		"extends mixin(Base)":                                 "",
		"<T":                                                  "",
		"":                                                    "",
	} {
		if got := jsBase(sig); got != want {
			t.Errorf("jsBase(%q) = %q, want %q", sig, got, want)
		}
	}
}
