package structsearch

import (
	"context"
	"strings"
	"testing"
	"time"

	"cchub/syntax"
)

// Sources in the shape of real code, for patterns of several statements.

const goSeqSrc = `package cache

import "sync"

type Cache struct {
	mu    sync.Mutex
	items map[string]string
	hits  int
}

func (c *Cache) Get(k string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.items[k]
	return v, ok
}

func (c *Cache) Put(k, v string) {
	c.mu.Lock()
	// The map is made on first use.
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[string]string{}
	}
	c.items[k] = v
}

func (c *Cache) Hit(other *Cache) {
	c.mu.Lock()
	defer other.mu.Unlock()
	c.hits++
	c.mu.Unlock()
}

func (c *Cache) Len() int {
	c.mu.Lock()
	n := len(c.items)
	c.mu.Unlock()
	return n
}

func (c *Cache) Drain(ch chan string) {
	for {
		select {
		case k := <-ch:
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.items, k)
		default:
			return
		}
	}
}
`

func TestGoSequences(t *testing.T) {
	runLangCases(t, []langCase{
		// Two statements: consecutive statements of one block, a
		// comment between them or not, in a function body or a case;
		// $A must be the same in both.
		{name: "lock defer unlock", language: "go", pattern: "$A.mu.Lock()\ndefer $A.mu.Unlock()", src: goSeqSrc, context: "statement",
			want: []string{"12:2 $A=c", "19:2 $A=c", "46:4 $A=c"}},
		// One statement between: lock, anything, unlock.
		{name: "lock anything unlock", language: "go", pattern: "$A.mu.Lock()\n$$$BODY\n$A.mu.Unlock()", src: goSeqSrc,
			want: []string{"29:2 $A=c $$$BODY=defer other.mu.Unlock() c.hits++", "36:2 $A=c $$$BODY=n := len(c.items)"}},
		// Written on one line with `;`, the same.
		{name: "semicolons", language: "go", pattern: "$A.mu.Lock(); defer $A.mu.Unlock()", src: goSeqSrc,
			want: []string{"12:2 $A=c", "19:2 $A=c", "46:4 $A=c"}},
		// A statement and what follows it, to the end of the block.
		{name: "trailing rest", language: "go", pattern: "defer $A.mu.Unlock()\n$$$REST", src: goSeqSrc,
			want: []string{"13:2 $A=c $$$REST=v, ok := c.items[k] return v, ok",
				"21:2 $A=c $$$REST=if c.items == nil { c.items = map[string]string{} } c.items[k] = v",
				"30:2 $A=other $$$REST=c.hits++ c.mu.Unlock()", "47:4 $A=c $$$REST=delete(c.items, k)"}},
		// What comes before a statement, from the start of the block.
		{name: "leading rest", language: "go", pattern: "$$$BEFORE\nreturn $X", src: goSeqSrc,
			want: []string{"12:2 $$$BEFORE=c.mu.Lock() defer c.mu.Unlock() v, ok := c.items[k] $X=v, ok",
				"36:2 $$$BEFORE=c.mu.Lock() n := len(c.items) c.mu.Unlock() $X=n"}},
		// Top-level declarations are a sequence of the file.
		{name: "declarations", language: "go", pattern: "package $P\n\nimport \"sync\"", src: goSeqSrc,
			want: []string{"1:1 $P=cache"}},
		// Struct fields are a sequence of the struct.
		{name: "fields", language: "go", pattern: "items map[string]string\nhits int", src: goSeqSrc, context: "struct member",
			want: []string{"7:2"}},
	})
}

// Runs are found leftmost first and do not overlap: four statements hold
// two pairs and no third, and a lock whose unlock is missing is passed
// over.
func TestSequencesDoNotOverlap(t *testing.T) {
	src := "package p\n\nfunc f() {\n\ta()\n\ta()\n\ta()\n\ta()\n\ta()\n}\n"
	if got := found(t, "go", "a()\na()", src); strings.Join(got, " ") != "4:2 6:2" {
		t.Errorf("a() a() in five calls: found %q, want [4:2 6:2]", got)
	}
	// Two of any statements: two pairs in the body, and the package
	// clause and the function, a pair of the file.
	if got := found(t, "go", "$_\n$_", src); strings.Join(got, " ") != "1:1 4:2 6:2" {
		t.Errorf("$_ $_ in five statements: found %q, want [1:1 4:2 6:2]", got)
	}
	src = "package p\n\nfunc f() {\n\tm.Lock()\n\tx()\n\tn.Lock()\n\ty()\n\tn.Unlock()\n\tm.Unlock()\n}\n"
	if got := found(t, "go", "$A.Lock()\n$$$\n$A.Unlock()", src); strings.Join(got, " ") != "4:2 $A=m" {
		t.Errorf("nested locks: found %q, want the outer run only", got)
	}
}

const pySeqSrc = `import threading


class Counter:
    def __init__(self):
        self._lock = threading.Lock()
        self.n = 0

    def incr(self):
        self._lock.acquire()
        try:
            self.n += 1
        finally:
            self._lock.release()

    def reset(self):
        self._lock.acquire()
        # no try here
        self.n = 0
        self._lock.release()
`

func TestPythonSequences(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "acquire try", language: "python", pattern: "$L.acquire()\ntry:\n    $$$\nfinally:\n    $L.release()", src: pySeqSrc, context: "statement",
			want: []string{"10:9 $L=self._lock"}},
		{name: "acquire anything release", language: "python", pattern: "$L.acquire()\n$$$BODY\n$L.release()", src: pySeqSrc,
			want: []string{"17:9 $L=self._lock $$$BODY=self.n = 0"}},
		// Lines copied with their indentation are dedented first.
		{name: "pasted indented", language: "python", pattern: "        $L.acquire()\n        self.n = 0", src: pySeqSrc,
			want: []string{"17:9 $L=self._lock"}},
		{name: "assignments", language: "python", pattern: "self.$A = $X\nself.$B = 0", src: pySeqSrc,
			want: []string{"6:9 $A=_lock $X=threading.Lock() $B=n"}},
	})
}

const jsSeqSrc = `function draw(ctx, shapes) {
  ctx.save();
  ctx.translate(10, 10);
  for (const s of shapes) {
    s.paint(ctx);
  }
  ctx.restore();
}

function clear(ctx) {
  ctx.save();
  ctx.restore();
}

switch (mode) {
  case "fast":
    ctx.save();
    ctx.restore();
    break;
}
`

func TestJavaScriptSequences(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "save restore", language: "javascript", pattern: "$C.save();\n$$$BODY\n$C.restore();", src: jsSeqSrc, context: "statement",
			want: []string{"2:3 $C=ctx $$$BODY=ctx.translate(10, 10); for (const s of shapes) { s.paint(ctx); }",
				"11:3 $C=ctx $$$BODY=", "17:5 $C=ctx $$$BODY="}},
		// Without semicolons, the same statements.
		{name: "no semicolons", language: "javascript", pattern: "$C.save()\n$C.restore()", src: jsSeqSrc,
			want: []string{"11:3 $C=ctx", "17:5 $C=ctx"}},
		// Class members are a sequence of the class body.
		{name: "members", language: "javascript", pattern: "async $M() { $$$ }\nrender() { $$$ }", src: jsSrc, context: "class member",
			want: []string{"18:3 $M=load"}},
		{name: "typescript", language: "typescript", pattern: "$C.save();\n$C.restore();", src: jsSeqSrc,
			want: []string{"11:3 $C=ctx", "17:5 $C=ctx"}},
		{name: "tsx", language: "tsx", pattern: "const [$V, $SET] = useState($I);\nuseEffect($$$);",
			src:  "function App() {\n  const [n, setN] = useState(0);\n  useEffect(() => { document.title = `${n}`; }, [n]);\n  return <p>{n}</p>;\n}\n",
			want: []string{"2:3 $V=n $SET=setN $I=0"}},
	})
}

const rustSeqSrc = `use std::sync::Mutex;

fn bump(m: &Mutex<u32>) -> u32 {
    let mut g = m.lock().unwrap();
    *g += 1;
    drop(g);
    0
}

fn peek(m: &Mutex<u32>) -> u32 {
    let g = m.lock().unwrap();
    *g
}
`

func TestRustSequences(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "lock drop", language: "rust", pattern: "let mut $G = $M.lock().unwrap();\n$$$\ndrop($G);", src: rustSeqSrc, context: "statement",
			want: []string{"4:5 $G=g $M=m"}},
		// The last line of a block is an expression, not a statement.
		{name: "tail expression", language: "rust", pattern: "let $G = $M.lock().unwrap();\n*$G", src: rustSeqSrc,
			want: []string{"11:5 $G=g $M=m"}},
		{name: "fields", language: "rust", pattern: "pub name: String,\npub $F: $T,", src: rustSrc, context: "struct member",
			want: []string{"4:5 $F=port $T=u16"}},
		// An expression written last in the pattern matches a statement
		// that is that expression too.
		{name: "expression as statement", language: "rust", pattern: "*$G += 1;\ndrop($G)", src: rustSeqSrc,
			want: []string{"5:5 $G=g"}},
	})
}

const javaSeqSrc = `class Account {
    private final java.util.concurrent.locks.Lock lock = new java.util.concurrent.locks.ReentrantLock();
    private long balance;

    void deposit(long n) {
        lock.lock();
        try {
            balance += n;
        } finally {
            lock.unlock();
        }
    }

    long read() {
        lock.lock();
        long b = balance;
        lock.unlock();
        return b;
    }
}
`

func TestJavaSequences(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "lock try", language: "java", pattern: "$L.lock();\ntry {\n    $$$\n} finally {\n    $L.unlock();\n}", src: javaSeqSrc, context: "statement",
			want: []string{"6:9 $L=lock"}},
		{name: "lock anything unlock", language: "java", pattern: "$L.lock();\n$$$BODY\n$L.unlock();", src: javaSeqSrc,
			want: []string{"15:9 $L=lock $$$BODY=long b = balance;"}},
		{name: "fields", language: "java", pattern: "private final $T $F = $V;\nprivate long $B;", src: javaSeqSrc, context: "class member",
			want: []string{"2:5 $T=java.util.concurrent.locks.Lock $F=lock $V=new java.util.concurrent.locks.ReentrantLock() $B=balance"}},
	})
}

const cSeqSrc = `#include <stdlib.h>
#include <string.h>

char *dup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p == NULL)
        return NULL;
    memcpy(p, s, n);
    return p;
}

void drop(char **pp) {
    free(*pp);
    *pp = NULL;
}

void run(int op, char *buf) {
    switch (op) {
    case 1:
        free(buf);
        buf = NULL;
        break;
    }
}
`

func TestCSequences(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "malloc check", language: "c", pattern: "$T *$P = malloc($N);\nif ($P == NULL)\n    return NULL;", src: cSeqSrc, context: "statement",
			want: []string{"6:5 $T=char $P=p $N=n"}},
		// A $$$ line is statements, never the type of a declaration.
		{name: "free then null", language: "c", pattern: "free($P);\n$$$\n$P = NULL;", src: cSeqSrc,
			want: []string{"14:5 $P=*pp", "21:9 $P=buf"}},
		{name: "includes", language: "c", pattern: "#include <stdlib.h>\n#include $H", src: cSeqSrc,
			want: []string{"1:1 $H=<string.h>"}},
	})
}

const cppSeqSrc = `#include <mutex>

class Queue {
    std::mutex mu_;
    int n_ = 0;

public:
    void push() {
        mu_.lock();
        ++n_;
        mu_.unlock();
    }
    int size() {
        std::lock_guard<std::mutex> g(mu_);
        return n_;
    }
};
`

func TestCppSequences(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "lock unlock", language: "cpp", pattern: "$M.lock();\n$$$BODY\n$M.unlock();", src: cppSeqSrc, context: "statement",
			want: []string{"9:9 $M=mu_ $$$BODY=++n_;"}},
		{name: "guard return", language: "cpp", pattern: "std::lock_guard<$T> $G($M);\nreturn $X;", src: cppSeqSrc,
			want: []string{"14:9 $T=std::mutex $G=g $M=mu_ $X=n_"}},
	})
}

// A line that is only a $$$, in a block written out over several lines,
// stands for any statements in every language, `;` or no `;`.
func TestGapLinesInBlocks(t *testing.T) {
	runLangCases(t, []langCase{
		{name: "function", language: "javascript", pattern: "function $F($$$P) {\n  $$$\n}", src: jsSeqSrc,
			want: []string{"1:1 $F=draw $$$P=ctx, shapes", "10:1 $F=clear $$$P=ctx"}},
		{name: "function with ;", language: "javascript", pattern: "function $F($$$P) {\n  $$$;\n}", src: jsSeqSrc,
			want: []string{"1:1 $F=draw $$$P=ctx, shapes", "10:1 $F=clear $$$P=ctx"}},
		{name: "block", language: "c", pattern: "void $F(char **$P) {\n    $$$\n}", src: cSeqSrc,
			want: []string{"13:1 $F=drop $P=pp"}},
		{name: "block then return", language: "c", pattern: "char *$F(const char *$S) {\n    $$$\n    return $R;\n}", src: cSeqSrc,
			want: []string{"4:1 $F=dup $S=s $R=p"}},
		{name: "method", language: "java", pattern: "void $M(long $N) {\n    $$$\n}", src: javaSeqSrc,
			want: []string{"5:5 $M=deposit $N=n"}},
		{name: "fn", language: "rust", pattern: "fn $F(m: &Mutex<u32>) -> u32 {\n    $$$\n    *$G\n}", src: rustSeqSrc,
			want: []string{"10:1 $F=peek $G=g"}},
	})
}

// Search finds sequences like any pattern, and shows the whole run.
func TestSearchSequence(t *testing.T) {
	root := writeTree(t, map[string]string{"cache.go": goSeqSrc})
	r, err := Search(context.Background(), root, Options{Pattern: "$A.mu.Lock()\ndefer $A.mu.Unlock()"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Matches) != 3 {
		t.Fatalf("found %d, want 3:\n%s", len(r.Matches), r.Text(TextOptions{}))
	}
	m := r.Matches[1]
	if m.StartLine != 19 || m.EndLine != 21 || !strings.HasSuffix(m.Text, "defer c.mu.Unlock()") {
		t.Errorf("second match spans %d-%d %q, want lines 19-21 ending with the defer", m.StartLine, m.EndLine, m.Text)
	}
	text := r.Text(TextOptions{})
	for _, w := range []string{"cache.go:19:2  $A = c\n19\t\tc.mu.Lock()\n20\t\t// The map is made on first use.\n21\t\tdefer c.mu.Unlock()\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

// Several $$$ could share out a long block in more ways than there are
// atoms: the matcher remembers the splits that failed, so a pattern that
// does not match gives up in time polynomial in the block, sequence or
// argument list alike.
func TestManyGapsDoNotExplode(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nfunc f() {\n")
	for i := 0; i < 300; i++ {
		b.WriteString("\tx()\n")
	}
	b.WriteString("\tg(")
	for i := 0; i < 300; i++ {
		b.WriteString("a, ")
	}
	b.WriteString(")\n}\n")
	tree, err := syntax.ParseOnce(context.Background(), syntax.LanguageByName("go"), []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Release()
	for _, pattern := range []string{
		"$$$\n$_\n$$$\n$_\n$$$\n$_\n$$$\n$_\n$$$\ny()",
		"x()\n$$$\n$_\n$$$\n$_\n$$$\n$_\n$$$\ny()",
		"$$$A\n$_\n$$$B\n$_\n$$$C\n$_\n$$$D\n$_\n$$$E\ny()",
		"g($$$, $_, $$$, $_, $$$, $_, $$$, $_, $$$, b)",
	} {
		p := compile(t, "go", pattern)
		start := time.Now()
		// Every candidate, whatever the prefilter says.
		if got := everyCandidate(t, p, tree.RootNode(), tree.Source); len(got) != 0 {
			t.Errorf("%q: %d matches in a block without one", pattern, len(got))
		}
		t.Logf("%q: %v", pattern, time.Since(start))
		p.Close()
	}
}

// On real source trees, a sequence's prefilter never refuses a file with
// a run (the tokens of consecutive statements stand next to each other
// but for layout, separators and comments), and the containers found from
// where its tokens occur give the runs that every container gives.
func TestSequencesPrefilterSound(t *testing.T) {
	if testing.Short() {
		t.Skip("parses real source trees")
	}
	for _, s := range []struct {
		language string
		dirs     func(tb testing.TB) []string
		patterns []string
	}{
		{"go", gorootDirs("net/http", "sync", "os"), []string{
			"$A.Lock()\ndefer $A.Unlock()", "$A.Lock()\n$$$\n$A.Unlock()", "if err != nil {\n\treturn $$$\n}\nreturn $X",
			"$$$B\nreturn nil", "defer $F()\n$$$R", "$_\n$_", "$X := $Y\nif $X == nil { $$$ }",
		}},
		{"python", pythonDirs("json", "email", "logging"), []string{
			"$L.acquire()\ntry:\n    $$$\nfinally:\n    $L.release()", "self.$A = $A\nself.$B = $B", "import $A\nimport $B", "$X = $Y\nreturn $X",
		}},
		{"c", gorootDirs("runtime/cgo"), []string{"$X = $Y;\n$Z = $W;", "$$$\nreturn $X;", "#include $H\n#include $I"}},
		{"javascript", gorootDirs("../lib/wasm", "../misc/chrome"), []string{"const $A = $B;\nconst $C = $D;", "$$$\nreturn $X;"}},
	} {
		t.Run(s.language, func(t *testing.T) {
			language := syntax.LanguageByName(s.language)
			var files []file
			for _, d := range s.dirs(t) {
				files = append(files, corpus(t, d, s.language)...)
			}
			for _, src := range s.patterns {
				p := compile(t, s.language, src)
				if !p.seq {
					t.Fatalf("%q is no sequence: %s", src, p)
				}
				found := 0
				for _, f := range files {
					tree, err := syntax.ParseOnce(context.Background(), language, f.src)
					if err != nil {
						t.Fatal(err)
					}
					got := matchOf(t, p, tree.RootNode(), f.src)
					all := everyCandidate(t, p, tree.RootNode(), f.src)
					if !sameMatches(got, all) {
						t.Errorf("%q in %s: anchored search found %d runs, every container %d", src, f.rel, len(got), len(all))
					}
					if len(all) > 0 && !p.MayMatch(f.src) {
						t.Errorf("%q: MayMatch refused %s, which has %d runs (first at %d:%d)", src, f.rel, len(all), all[0].StartLine, all[0].StartCol)
					}
					found += len(all)
					tree.Release()
				}
				t.Logf("%-50q %5d runs in %d files", src, found, len(files))
				p.Close()
			}
		})
	}
}
