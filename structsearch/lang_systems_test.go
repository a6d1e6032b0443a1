package structsearch

import "testing"

const rustSrc = `use std::io;

pub struct Conf {
    pub name: String,
    pub port: u16,
    size: usize,
}

impl Conf {
    pub fn name(&self) -> &str {
        &self.name
    }
}

fn main() {
    let a = a.clone();
    let a = b.clone();
    let v = read()
        .unwrap();
    let w = read().unwrap(); // read().unwrap()
    let s = "read().unwrap()";
    println!("{} {}", v, w);
    if let Some(x) = maybe { use_it(x); }
    match v {
        1 => {}
        _ => {}
    }
}
`

const javaSrc = `import java.util.List;

class Shop {
    private int count;
    private String name = "";
    int plain;

    public void close(Item a, Item b) {
        if (a != null) a.dispose();
        if (a != null) b.dispose();
        if (a.inner != null) a.inner.dispose();
        System.out.println(a);
        System.out.println("System.out.println(a)"); // System.out.println(b)
        count = count + 1;
        count = (count + 1);
    }

    @Override
    public String toString() { return name; }
}
`

const cSrc = `#include <stdio.h>
#define LIMIT 10

struct point { int x; int y; };

void release(char *p, char *q) {
    if (p != NULL) free(p);
    if (p != NULL) free(q);
    printf("%d\n", LIMIT);
    printf(
        "%s %s\n",
        p,
        q
    );
    /* printf("no"); */
    const char *s = "printf(p)";
}
`

const cppSrc = `#include <memory>

class Shape {
public:
    virtual double area() const = 0;
    virtual void draw() = 0;
    int sides;
};

template <typename T>
T twice(T v) { return v + v; }

void use(Shape *s, Shape *t) {
    if (s != nullptr) delete s;
    if (s != nullptr) delete t;
    std::cout << s->area();
    auto p = std::make_unique<Shape>(1, 2);
}
`

func TestRust(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "method", language: "rust", pattern: `$A.unwrap()`, src: rustSrc, context: "expression",
			want: []string{"18:13 $A=read()", "20:13 $A=read()"}},
		{name: "shadowing clone", language: "rust", pattern: `let $X = $X.clone();`, src: rustSrc, context: "statement",
			want: []string{"16:5 $X=a"}},
		{name: "macro", language: "rust", pattern: `println!($$$)`, src: rustSrc, want: []string{"22:5"}},
		{name: "if let", language: "rust", pattern: `if let Some($X) = $Y { $$$ }`, src: rustSrc,
			want: []string{"23:5 $X=x $Y=maybe"}},
		{name: "match", language: "rust", pattern: `match $X { $$$ARMS }`, src: rustSrc,
			want: []string{"24:5 $X=v $$$ARMS=1 => {} _ => {}"}},
		{name: "field", language: "rust", pattern: `pub $F: $T,`, src: rustSrc, context: "struct member",
			want: []string{"4:5 $F=name $T=String", "5:5 $F=port $T=u16"}},
		{name: "impl", language: "rust", pattern: `impl $T { $$$ }`, src: rustSrc, want: []string{"9:1 $T=Conf"}},
	})
}

func TestJava(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "guard", language: "java", pattern: `if ($X != null) $X.dispose();`, src: javaSrc, context: "statement",
			want: []string{"9:9 $X=a", "11:9 $X=a.inner"}},
		{name: "call", language: "java", pattern: `System.out.println($A)`, src: javaSrc, context: "expression",
			want: []string{"12:9 $A=a", `13:9 $A="System.out.println(a)"`}},
		// A field, not a local variable. $F is one node: the whole
		// declarator, initialiser included.
		{name: "field", language: "java", pattern: `private $T $F;`, src: javaSrc, context: "class member",
			want: []string{"4:5 $T=int $F=count", `5:5 $T=String $F=name = ""`}},
		{name: "method", language: "java", pattern: `public void $M($$$P) { $$$ }`, src: javaSrc, context: "class member",
			want: []string{"8:5 $M=close $$$P=Item a, Item b"}},
		{name: "annotated", language: "java", pattern: "@Override\npublic String $M() { $$$ }", src: javaSrc,
			want: []string{"18:5 $M=toString"}},
		{name: "class", language: "java", pattern: `class $C { $$$ }`, src: javaSrc, want: []string{"3:1 $C=Shop"}},
		{name: "parens", language: "java", pattern: `$X = $X + $Y;`, src: javaSrc, want: []string{"14:9 $X=count $Y=1"}},
	})
}

func TestC(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "guard", language: "c", pattern: `if ($X != NULL) free($X);`, src: cSrc, context: "statement",
			want: []string{"7:5 $X=p"}},
		{name: "printf", language: "c", pattern: `printf($FMT, $$$ARGS)`, src: cSrc, context: "expression",
			want: []string{`9:5 $FMT="%d\n" $$$ARGS=LIMIT`, `10:5 $FMT="%s %s\n" $$$ARGS=p, q`}},
		{name: "struct", language: "c", pattern: `struct $S { $$$F };`, src: cSrc,
			want: []string{"4:1 $S=point $$$F=int x; int y;"}},
		{name: "define", language: "c", pattern: `#define $M $V`, src: cSrc, want: []string{"2:1 $M=LIMIT $V=10"}},
		{name: "include", language: "c", pattern: `#include <stdio.h>`, src: cSrc, want: []string{"1:1"}},
	})
}

func TestCpp(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "guard", language: "cpp", pattern: `if ($X != nullptr) delete $X;`, src: cppSrc, context: "statement",
			want: []string{"14:5 $X=s"}},
		{name: "stream", language: "cpp", pattern: `std::cout << $X`, src: cppSrc, context: "expression",
			want: []string{"16:5 $X=s->area()"}},
		// A pure virtual member, not a declaration at block scope.
		{name: "pure virtual", language: "cpp", pattern: `virtual $T $M() = 0;`, src: cppSrc, context: "class member",
			want: []string{"6:5 $T=void $M=draw"}},
		{name: "template", language: "cpp", pattern: `template <typename $T> $$$`, src: cppSrc,
			want: []string{"10:1 $T=T"}},
		{name: "make_unique", language: "cpp", pattern: `std::make_unique<$T>($$$A)`, src: cppSrc,
			want: []string{"17:14 $T=Shape $$$A=1, 2"}},
	})
}

// Comments between tokens are filler, nested Rust comments included; the
// prefilter must see past them too.
func TestCommentsBetweenTokens(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "nested comment", language: "rust", pattern: `$A.unwrap()`, src: "fn f() { x. /* a /* b */ c */ unwrap(); }\n",
			want: []string{"1:10 $A=x"}},
		{name: "block comment", language: "c", pattern: `free($P);`, src: "void f(void) { free /* x */ ( p ) /* y */ ; }\n",
			want: []string{"1:16 $P=p"}},
		{name: "hash comment", language: "python", pattern: `f($A, $B)`, src: "f(a,  # first\n  b)\n",
			want: []string{"1:1 $A=a $B=b"}},
	})
}
