package structsearch

import "testing"

const pySrc = `import os


def f(a, b, path):
    print(a)
    print(a, b)
    print(
        a,
    )
    s = "print(a)"  # print(b)
    """print(a)"""
    if a is None:
        return a
    if a is None: return a
    if a is None:
        return b
    if a is None:
        return a
    else:
        pass
    a = a + b
    a = (a + b)
    os.fsencode(path)
    open(path, "r")
    open(path, 'r')
    open(path, "w")


class K:
    def __init__(self, a, b):
        self.a = a
        self.b = a
        self.c = (c)

    @property
    def name(self):
        return self._name
`

func TestPython(t *testing.T) {
	runLangCases(t, []langCase{
		// print($A) is a call.
		{name: "call", language: "python", pattern: `print($A)`, src: pySrc, context: "expression",
			want: []string{"5:5 $A=a", "7:5 $A=a"}},
		{name: "args", language: "python", pattern: `print($$$ARGS)`, src: pySrc,
			want: []string{"5:5 $$$ARGS=a", "6:5 $$$ARGS=a, b", "7:5 $$$ARGS=a"}},
		{name: "guard", language: "python", pattern: `if $X is None: return $X`, src: pySrc, context: "statement",
			want: []string{"12:5 $X=a", "14:5 $X=a"}},
		{name: "guard written long", language: "python", pattern: "if $X is None:\n    return $X", src: pySrc,
			want: []string{"12:5 $X=a", "14:5 $X=a"}},
		{name: "guard with else", language: "python", pattern: "if $X is None:\n    return $X\nelse:\n    $$$", src: pySrc,
			want: []string{"17:5 $X=a"}},
		{name: "parens", language: "python", pattern: `$X = $X + $Y`, src: pySrc, want: []string{"21:5 $X=a $Y=b"}},
		{name: "fsencode", language: "python", pattern: `os.fsencode($A)`, src: pySrc, want: []string{"23:5 $A=path"}},
		// Quotes are tokens too: "r" and 'r' are different strings.
		{name: "string", language: "python", pattern: `open($F, "r")`, src: pySrc, want: []string{"24:5 $F=path"}},
		{name: "string content", language: "python", pattern: `open($F, "$MODE")`, src: pySrc,
			want: []string{"24:5 $F=path $MODE=r", "26:5 $F=path $MODE=w"}},
		{name: "same attribute", language: "python", pattern: `self.$A = $A`, src: pySrc,
			want: []string{"31:9 $A=a"}},
		{name: "decorated", language: "python", pattern: "@property\ndef $F(self):\n    $$$", src: pySrc, context: "statement",
			want: []string{"35:5 $F=name"}},
	})
}
