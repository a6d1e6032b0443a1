package textedit

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// new_string written in the file's own form while old_string was quoted
// from a faulty memory: the file's form is kept, not carried again.
func TestNewStringInTheFilesForm(t *testing.T) {
	py := "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
	for _, c := range []struct {
		name, file, old, new, want string
	}{
		{"python, old indented two more, new in the file's form", py,
			"      def f(self):\n          return 1\n",
			"    def f(self):\n        return 1\n        # edited\n",
			"class A:\n    def f(self):\n        return 1\n        # edited\n\n    def g(self):\n        return 2\n"},
		{"python, old indented two more, new in old's form", py,
			"      def f(self):\n          return 1\n",
			"      def f(self):\n          return 1\n          # edited\n",
			"class A:\n    def f(self):\n        return 1\n        # edited\n\n    def g(self):\n        return 2\n"},
		{"go, old with spaces, new with the file's tabs", "package p\n\nfunc f() {\n\tx := 1\n\ty := 2\n}\n",
			"    x := 1\n    y := 2\n",
			"\tx := 1\n\ty := 3\n",
			"package p\n\nfunc f() {\n\tx := 1\n\ty := 3\n}\n"},
		{"go, a changed line in the file's form among lines in old's", "package p\n\nfunc f() {\n\tx := 1\n\ty := 2\n\tz := 3\n}\n",
			"    x := 1\n    y := 2\n    z := 3\n",
			"    x := 1\n\ty := 20\n    z := 3\n",
			"package p\n\nfunc f() {\n\tx := 1\n\ty := 20\n\tz := 3\n}\n"},
		{"go, old with tabs as spaces and two more, new from the file with a line added", "package p\n\nfunc f() {\n\tif ok {\n\t\tx := 1\n\t}\n}\n",
			"      if ok {\n          x := 1\n      }\n",
			"\tif ok {\n\t\tx := 1\n\t\ty := 2\n\t}\n",
			"package p\n\nfunc f() {\n\tif ok {\n\t\tx := 1\n\t\ty := 2\n\t}\n}\n"},
		{"go, the same with new in old's form", "package p\n\nfunc f() {\n\tif ok {\n\t\tx := 1\n\t}\n}\n",
			"      if ok {\n          x := 1\n      }\n",
			"      if ok {\n          x := 1\n          y := 2\n      }\n",
			"package p\n\nfunc f() {\n\tif ok {\n\t\tx := 1\n\t\ty := 2\n\t}\n}\n"},
		{"python, new mixes the file's lines and old's", py,
			"      def f(self):\n          return 1\n",
			"    def f(self):\n          return 3\n",
			"class A:\n    def f(self):\n        return 3\n\n    def g(self):\n        return 2\n"},
		{"a match after the line's indentation, new with it", "func f() {\n\tx := 1\n}\n",
			"x := 1", "\tx := 2",
			"func f() {\n\tx := 2\n}\n"},
		{"a match before the line's trailing blanks, new with them", "a = 1  \nb = 2\n",
			"a = 1", "a = 3  ",
			"a = 3  \nb = 2\n"},
		{"blank lines at old's edges, fewer in new's", "import os\n\n\nimport itertools\n\nx = 1\n",
			"\n\nimport itertools\n\n", "\nimport itertools  # edited\n",
			"import os\n\n\nimport itertools  # edited\n\nx = 1\n"},
		{"blank lines at old's edges, none in new's", "import os\n\nimport itertools\n\nx = 1\n",
			"\n\nimport itertools\n\n",
			"import itertools  # edited",
			"import os\n\nimport itertools  # edited\n\nx = 1\n"},
		{"a final newline in old, none in new", "a = 1\nb = 2\n",
			"a = 1\n", "a = 3",
			"a = 3\nb = 2\n"},
		{"an empty new deletes the line, its break too", "a = 1\nb = 2\n",
			"a = 1\n", "",
			"b = 2\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := Apply([]byte(c.file), "f", Change{Old: c.old, New: c.new})
			if err != nil {
				t.Fatal(err)
			}
			if got := string(a.Data); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// An old_string escaped twice, with new_string in the file's form (its
// escapes single) or in old's (double): the file's form is kept as it is,
// old's is unescaped; never a real line break where the file had `\n`.
func TestEscapedOldNewInEitherForm(t *testing.T) {
	file := "package p\n\nfunc f() {\n\tfmt.Printf(\"a\\n\")\n\tg()\n}\n"
	for _, c := range []struct{ name, old, new string }{
		{"new in the file's form", "\tfmt.Printf(\"a\\\\n\")\n", "\tfmt.Printf(\"b\\n\")\n"},
		{"new in old's form", "\tfmt.Printf(\"a\\\\n\")\n", "\tfmt.Printf(\"b\\\\n\")\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := Apply([]byte(file), "f.go", Change{Old: c.old, New: c.new})
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(file, `"a\n"`, `"b\n"`, 1)
			if got := string(a.Data); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// A forgiving edit whose result would have a syntax error the file does
// not have is refused, the file untouched, with the lines it matched and
// what to send; the same change given exactly is the caller's to make,
// and a file of no known language is not checked.
func TestSyntaxGuardRefusesABreakingForgivingEdit(t *testing.T) {
	file := "package p\n\nfunc f() {\n\tif ok {\n\t\tx()\n\t}\n}\n"
	// Spaces for the file's tabs (forgiven), and the `if` line deleted:
	// the block's closing brace is left without its opening one.
	old, nw := "    if ok {\n        x()\n    }\n", "        x()\n    }\n"
	_, err := Apply([]byte(file), "f.go", Change{Old: old, New: nw})
	if !errors.Is(err, ErrBreaksSyntax) {
		t.Fatalf("Apply = %v, want ErrBreaksSyntax", err)
	}
	for _, w := range []string{"old_string is not in f.go as given; it matched f.go:4-6 loosely", "leaves a syntax error the file does not have. Nothing was changed", "Send old_string exactly as these lines are", "4\t\tif ok {\n5\t\t\tx()\n"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	// Exact: applied as asked.
	if _, err := Apply([]byte(file), "f.go", Change{Old: "\tif ok {\n\t\tx()\n\t}\n", New: "\t\tx()\n\t}\n"}); err != nil {
		t.Errorf("an exact edit was refused: %v", err)
	}
	// No grammar for it: not checked.
	if _, err := Apply([]byte(file), "f.txt", Change{Old: old, New: nw}); err != nil {
		t.Errorf("an edit of a file of no known language was refused: %v", err)
	}
}

// When the reading of new_string chosen by evidence breaks the file, the
// other readings are tried, and the first that keeps its syntax is taken.
func TestSyntaxGuardTriesTheOtherReadings(t *testing.T) {
	body := "def f():\n    if x:\n        return 1\n    return 2\n"
	old := "      if x:\n          return 1\n" // two columns too deep
	nw := "    if x:\n        return 3\n"      // the file's form
	cs := findCandidates(unbounded(), body, old)
	if len(cs) != 1 {
		t.Fatalf("%d candidates", len(cs))
	}
	tabs := func() bool { return false }
	g := newGuard(context.Background(), "f.py", []byte(body))
	defer g.close()
	// As if evidence had carried new_string a second time: the block
	// dedented two columns, which Python does not accept.
	wrong := "def f():\n  if x:\n      return 3\n    return 2\n"
	got, _, err := guarded(g, body, "f.py", nw, old, cs, tabs, wrong, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "def f():\n    if x:\n        return 3\n    return 2\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A file too large to parse cannot be checked, so a loose match is not
// applied: the answer names the lines it matched and asks for them
// exactly, and the exact edit is made.
func TestLooseEditOfAFileTooLargeToParse(t *testing.T) {
	file := "def f():\n    if ok:\n        x()\n" + strings.Repeat("y\n", 700_000)
	old, nw := "def f():\n  if ok:\n    x()\n", "def f():\n  if ok:\n    z()\n" // two spaces for the file's four
	_, err := Apply([]byte(file), "big.py", Change{Old: old, New: nw})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Apply = %v, want ErrTooLarge", err)
	}
	for _, w := range []string{"it matched big.py:1-3 loosely", "too large to parse", "Nothing was changed", "Send old_string exactly", "2\t    if ok:\n"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	got, err := Apply([]byte(file), "big.py", Change{Old: "    if ok:\n        x()\n", New: "    if ok:\n        z()\n"})
	if err != nil || !strings.HasPrefix(string(got.Data), "def f():\n    if ok:\n        z()\n") {
		t.Errorf("the exact edit: %v", err)
	}
}
