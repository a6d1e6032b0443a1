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
		"src/app.tsx:run -> src/math.ts:Calc.push (name-only)",
		"src/app.tsx:run -> ?createElement ()", // react is a package
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
