package textedit

import (
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
