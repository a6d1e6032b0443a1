package structsearch

import "testing"

const jsSrc = `import x from './x.js';

if (a != null) a.dispose();
if (a != null) b.dispose();
if (a.b != null) a.b.dispose();
if (a != null) { a.dispose(); }
console.log(a);
console.log(
  a,
  b,
);
const s = "console.log(a)"; // console.log(a)
/* if (a != null) a.dispose(); */
function named(a, b) { return a + b; }
const anon = function (a) { return a; };
const o = { a: 1 };
class K {
  async load() { await this.fetch(); }
  render() { return this.html; }
}
`

const tsSrc = `let n: number = 1;
const o = { a: 1 };
function f(): void {
  a: 1;
}
if (a != null) a.dispose();
if (a != null) b.dispose();
class K {
  private n: number;
  private s: string = "";
}
interface I { a: number; b: string }
const t = x as string;
`

const tsxSrc = `const o = { a: 1 };
const el = <Button onClick={save} label="ok" />;
const other = <Button onClick={cancel} />;
if (a != null) a.dispose();
`

func TestJavaScript(t *testing.T) {
	guard := `if ($X != null) $X.dispose()`
	runLangCases(t, []langCase{
		{name: "guard", language: "javascript", pattern: guard, src: jsSrc, context: "statement",
			want: []string{"3:1 $X=a", "5:1 $X=a.b"}},
		{name: "guard block", language: "javascript", pattern: `if ($X != null) { $X.dispose() }`, src: jsSrc,
			want: []string{"6:1 $X=a"}},
		{name: "call", language: "javascript", pattern: `console.log($A)`, src: jsSrc, context: "expression",
			want: []string{"7:1 $A=a"}},
		{name: "args", language: "javascript", pattern: `console.log($$$ARGS)`, src: jsSrc,
			want: []string{"7:1 $$$ARGS=a", "8:1 $$$ARGS=a, b"}},
		{name: "two args", language: "javascript", pattern: `console.log($A, $B)`, src: jsSrc,
			want: []string{"8:1 $A=a $B=b"}},
		// A function pattern is a declaration, not a function expression.
		{name: "function", language: "javascript", pattern: `function $F($$$P) { $$$ }`, src: jsSrc, context: "statement",
			want: []string{"14:1 $F=named $$$P=a, b"}},
		{name: "anonymous function", language: "javascript", pattern: `function ($A) { $$$ }`, src: jsSrc, context: "expression",
			want: []string{"15:14 $A=a"}},
		{name: "object", language: "javascript", pattern: `{ a: $X }`, src: jsSrc, context: "expression",
			want: []string{"16:11 $X=1"}},
		{name: "method", language: "javascript", pattern: `async $M() { $$$ }`, src: jsSrc, context: "class member",
			want: []string{"18:3 $M=load"}},
		{name: "import", language: "javascript", pattern: `import $X from '$S'`, src: jsSrc,
			want: []string{"1:1 $X=x $S=./x.js"}},
	})
}

func TestTypeScript(t *testing.T) {
	runLangCases(t, []langCase{
		// An object literal, not a block holding a labelled statement.
		{name: "object", language: "typescript", pattern: `{ a: $X }`, src: tsSrc, context: "expression",
			want: []string{"2:11 $X=1"}},
		{name: "guard", language: "typescript", pattern: `if ($X != null) $X.dispose()`, src: tsSrc,
			want: []string{"6:1 $X=a"}},
		{name: "typed let", language: "typescript", pattern: `let $X: $T = $V`, src: tsSrc, context: "statement",
			want: []string{"1:1 $X=n $T=number $V=1"}},
		{name: "field", language: "typescript", pattern: `private $F: $T;`, src: tsSrc, context: "class member",
			want: []string{"9:3 $F=n $T=number"}},
		{name: "interface", language: "typescript", pattern: `interface $I { $$$M }`, src: tsSrc,
			want: []string{"12:1 $I=I $$$M=a: number; b: string"}},
		{name: "as", language: "typescript", pattern: `$X as string`, src: tsSrc, want: []string{"13:11 $X=x"}},
	})
}

func TestTSX(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "object", language: "tsx", pattern: `{ a: $X }`, src: tsxSrc, context: "expression",
			want: []string{"1:11 $X=1"}},
		{name: "element", language: "tsx", pattern: `<Button onClick={$H} $$$ />`, src: tsxSrc,
			want: []string{"2:12 $H=save", "3:15 $H=cancel"}},
		{name: "guard", language: "tsx", pattern: `if ($X != null) $X.dispose()`, src: tsxSrc,
			want: []string{"4:1 $X=a"}},
	})
}
