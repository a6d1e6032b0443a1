package structsearch

import "testing"

const goCalls = `package p

import "fmt"

func calls(a, b int, long string) {
	fmt.Println(a)
	fmt.Println(a, b)
	fmt.Printf("%d", a)
	fmt.Println(
		long,
	)
	fmt.Println /* spaced */ ( b )
	fmt.Println()
	s := "fmt.Println(a)" // fmt.Println(b)
	_ = s
	/* fmt.Println(a) */
	fmt.Println(fmt.Sprint(a))
}
`

const goGuards = `package p

func guards(b *buf, g func() error) error {
	if err != nil { return err }
	if b.err != nil {
		return b.err // the buffer's own error
	}
	if err != nil {
		return other
	}
	if err := g(); err != nil {
		return err
	}
	if err != nil {
		return err
	} else {
		b.n++
	}
	if err != nil {
		log(err)
		return err
	}
	if err != nil { return nil, err }
	if (err) != nil { return err }
	return nil
}
`

const goMisc = `package p

type T struct {
	n    int
	name string ` + "`json:\"name\"`" + `
	m    map[string]int
}

func (t *T) Close() error { return nil }

func (t T) Open() error { return nil }

func misc(x, y int, env map[string]string) {
	x = x + y
	x = (x + y)
	x = y + x
	_ = os.Getenv("HOME")
	_ = os.Getenv("HOMEDIR")
	_ = os.Getenv("PA TH")
	_ = os.Getenv(key)
	_ = os.Getenv("a\tb")
	switch x {
	case 1:
		y++
	case 2, 3:
	}
	var m map[string]int
	_ = m
	mu.Lock()
	defer mu.Unlock()
	t.mu.Lock()
}
`

func TestGo(t *testing.T) {
	runLangCases(t, []langCase{
		// fmt.Println($A) is a call, never a type conversion.
		{name: "call", language: "go", pattern: `fmt.Println($A)`, src: goCalls, context: "expression",
			want: []string{"6:2 $A=a", "9:2 $A=long", "12:2 $A=b", "17:2 $A=fmt.Sprint(a)"}},
		{name: "args", language: "go", pattern: `fmt.Println($$$ARGS)`, src: goCalls,
			want: []string{"6:2 $$$ARGS=a", "7:2 $$$ARGS=a, b", "9:2 $$$ARGS=long", "12:2 $$$ARGS=b", "13:2 $$$ARGS=", "17:2 $$$ARGS=fmt.Sprint(a)"}},
		{name: "args around", language: "go", pattern: `fmt.Println($A, $$$REST)`, src: goCalls,
			want: []string{"6:2 $A=a $$$REST=", "7:2 $A=a $$$REST=b", "9:2 $A=long $$$REST=", "12:2 $A=b $$$REST=", "17:2 $A=fmt.Sprint(a) $$$REST="}},
		{name: "wildcard", language: "go", pattern: `fmt.$_($$$)`, src: goCalls,
			want: []string{"6:2", "7:2", "8:2", "9:2", "12:2", "13:2", "17:2", "17:14"}},
		{name: "string arg", language: "go", pattern: `fmt.Printf("%d", $A)`, src: goCalls, want: []string{"8:2 $A=a"}},

		// A repeated name must capture the same tokens; the block must
		// hold exactly the one statement; init, else and parentheses
		// are extra children.
		{name: "guard", language: "go", pattern: `if $X != nil { return $X }`, src: goGuards, context: "statement",
			want: []string{"4:2 $X=err", "5:2 $X=b.err"}},
		{name: "guard spread", language: "go", pattern: "if $X != nil {\n\treturn $X\n}", src: goGuards,
			want: []string{"4:2 $X=err", "5:2 $X=b.err"}},
		{name: "guard with more", language: "go", pattern: `if $X != nil { $$$; return $X }`, src: goGuards,
			want: []string{"4:2 $X=err", "5:2 $X=b.err", "19:2 $X=err"}},
		{name: "any guard", language: "go", pattern: `if $X != nil { $$$BODY }`, src: goGuards,
			want: []string{"4:2 $X=err $$$BODY=return err", "5:2 $X=b.err $$$BODY=return b.err",
				"8:2 $X=err $$$BODY=return other", "19:2 $X=err $$$BODY=log(err) return err",
				"23:2 $X=err $$$BODY=return nil, err", "24:2 $X=(err) $$$BODY=return err"}},
		{name: "guard with init", language: "go", pattern: `if $I; $X != nil { return $X }`, src: goGuards,
			want: []string{"11:2 $I=err := g() $X=err"}},
		{name: "guard with else", language: "go", pattern: `if $X != nil { return $X } else { $$$ }`, src: goGuards,
			want: []string{"14:2 $X=err"}},

		// Parentheses are tokens.
		{name: "parens", language: "go", pattern: `$X = $X + $Y`, src: goMisc, want: []string{"14:2 $X=x $Y=y"}},
		{name: "parens written", language: "go", pattern: `$X = ($X + $Y)`, src: goMisc, want: []string{"15:2 $X=x $Y=y"}},

		// Strings are compared by content; a metavariable that is a
		// string's whole content captures it.
		{name: "string", language: "go", pattern: `os.Getenv("HOME")`, src: goMisc, want: []string{"17:6"}},
		{name: "string with space", language: "go", pattern: `os.Getenv("PA TH")`, src: goMisc, want: []string{"19:6"}},
		{name: "string content", language: "go", pattern: `os.Getenv("$K")`, src: goMisc,
			want: []string{"17:6 $K=HOME", "18:6 $K=HOMEDIR", "19:6 $K=PA TH"}},
		{name: "string pieces", language: "go", pattern: `os.Getenv("$$$K")`, src: goMisc,
			want: []string{"17:6 $$$K=HOME", "18:6 $$$K=HOMEDIR", "19:6 $$$K=PA TH", `21:6 $$$K=a\tb`}},

		{name: "method", language: "go", pattern: `$A.Lock()`, src: goMisc, want: []string{"29:2 $A=mu", "31:2 $A=t.mu"}},
		{name: "defer", language: "go", pattern: `defer $A.Unlock()`, src: goMisc, context: "statement", want: []string{"30:2 $A=mu"}},

		// Each wrapping context, with a pattern that needs it.
		{name: "type", language: "go", pattern: `map[string]$T`, src: goMisc, context: "type",
			want: []string{"6:7 $T=int", "13:25 $T=string", "27:8 $T=int"}},
		{name: "struct member", language: "go", pattern: `$F $T`, src: goMisc, context: "struct member",
			want: []string{"4:2 $F=n $T=int", "6:2 $F=m $T=map[string]int"}},
		{name: "top level", language: "go", pattern: `func ($R *$T) Close() error { $$$ }`, src: goMisc, context: "top level",
			want: []string{"9:1 $R=t $T=T"}},
		{name: "package", language: "go", pattern: `package $P`, src: goMisc, want: []string{"1:1 $P=p"}},
		{name: "switch case", language: "go", pattern: `case $$$V: $$$`, src: goMisc, context: "switch case",
			want: []string{"23:2 $$$V=1", "25:2 $$$V=2, 3"}},
	})
}
