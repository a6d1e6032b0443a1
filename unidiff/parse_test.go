package unidiff

import (
	"fmt"
	"strings"
	"testing"
)

// gitSample is what git 2.39 printed for `git diff --unified=0
// --find-renames --full-index` over a commit that touched every kind of
// file header: a binary change, a deletion, a pure rename of a name with a
// space, a new file, a mode change, a quoted name (tab, UTF-8) and
// ordinary hunks, one of them a pure deletion.
const gitSample = `diff --git a/b.bin b/b.bin
index 87ae6b695deceaf160611414f7dcd5c7366b2e79..88923a0fdcc53cff3a4139eda5e534c871408d2a 100644
Binary files a/b.bin and b/b.bin differ
diff --git a/d.go b/d.go
deleted file mode 100644
index a290ced577a334220f1105888796e3207122ee20..0000000000000000000000000000000000000000
--- a/d.go
+++ /dev/null
@@ -1,2 +0,0 @@
-del
-me
diff --git a/sp ace.py b/moved sp.py
similarity index 100%
rename from sp ace.py
rename to moved sp.py
diff --git a/n.go b/n.go
new file mode 100644
index 0000000000000000000000000000000000000000..8ba3a16384aacc37d01564b28401755ce8053f51
--- /dev/null
+++ b/n.go
@@ -0,0 +1 @@
+n
diff --git a/sub/k.go b/sub/k.go
old mode 100644
new mode 100755
diff --git "a/tab\t\303\251.go" "b/tab\t\303\251.go"
index bca70f35318f31dd1d1d1d2d2e64c19b880899ff..8a08eba85c872cd83776ed37dd9c6de453c789c2 100644
--- "a/tab\t\303\251.go"
+++ "b/tab\t\303\251.go"
@@ -1,0 +2 @@ q
+r
diff --git a/x.go b/x.go
index 71ac1b5791204c80666ab1a4f9886b79e982739c..8d13797e3d9be1963d1310cb35b72776df4b4c09 100644
--- a/x.go
+++ b/x.go
@@ -2 +2 @@ a
-b
+B
@@ -7 +6,0 @@ f
-g
@@ -8,0 +8 @@ h
+new
`

// summary writes files one fact a line, for tests to compare as text.
func summary(files []File) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s %q -> %q", f.Status, f.OldPath, f.NewPath)
		if f.OldBlob != "" || f.NewBlob != "" {
			fmt.Fprintf(&b, " index %.7s..%.7s", f.OldBlob, f.NewBlob)
		}
		if f.Binary {
			b.WriteString(" binary")
		}
		b.WriteByte('\n')
		for _, h := range f.Hunks {
			fmt.Fprintf(&b, "  -%d,%d +%d,%d %q\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines, h.Section)
			for _, l := range h.Lines {
				fmt.Fprintf(&b, "    %c%q old=%d new=%d", l.Kind.Op(), l.Text, l.Old, l.New)
				if l.NoNewline {
					b.WriteString(" no-newline")
				}
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

func TestParseGitSample(t *testing.T) {
	p := Parse(gitSample)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	want := `modified "b.bin" -> "b.bin" index 87ae6b6..88923a0 binary
deleted "d.go" -> "" index a290ced..0000000
  -1,2 +0,0 ""
    -"del" old=1 new=0
    -"me" old=2 new=0
renamed "sp ace.py" -> "moved sp.py"
added "" -> "n.go" index 0000000..8ba3a16
  -0,0 +1,1 ""
    +"n" old=0 new=1
modified "sub/k.go" -> "sub/k.go"
modified "tab\té.go" -> "tab\té.go" index bca70f3..8a08eba
  -1,0 +2,1 "q"
    +"r" old=0 new=2
modified "x.go" -> "x.go" index 71ac1b5..8d13797
  -2,1 +2,1 "a"
    -"b" old=2 new=0
    +"B" old=0 new=2
  -7,1 +6,0 "f"
    -"g" old=7 new=0
  -8,0 +8,1 "h"
    +"new" old=0 new=8
`
	if got := summary(p.Files); got != want {
		t.Errorf("Parse:\n%s\nwant\n%s", got, want)
	}
	if got := p.Files[6].Hunks[0].Header; got != "@@ -2 +2 @@ a" {
		t.Errorf("header as written = %q", got)
	}
}

func TestParseCases(t *testing.T) {
	for _, tc := range []struct {
		name, diff string
		want       string // summary
		problem    string // in the first problem
	}{{
		// A deleted line that reads like a file header is content: the
		// hunk still owes a line.
		name: "header-like content",
		diff: "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -3,2 +3 @@\n--- a/y\n-diff --git a/z b/z\n+ok\n",
		want: "modified \"x.go\" -> \"x.go\"\n  -3,2 +3,1 \"\"\n    -\"-- a/y\" old=3 new=0\n    -\"diff --git a/z b/z\" old=4 new=0\n    +\"ok\" old=0 new=3\n",
	}, {
		name: "context lines, a stripped blank one and no final newline",
		diff: "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,4 +1,4 @@ func\n a\n\n-b\n+c\n d\n\\ No newline at end of file",
		want: "modified \"x.go\" -> \"x.go\"\n  -1,4 +1,4 \"func\"\n     \"a\" old=1 new=1\n     \"\" old=2 new=2\n    -\"b\" old=3 new=0\n    +\"c\" old=0 new=3\n     \"d\" old=4 new=4 no-newline\n",
	}, {
		name: "a marker inside the hunk, after a deleted line",
		diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n",
		want: "modified \"x\" -> \"x\"\n  -1,1 +1,1 \"\"\n    -\"a\" old=1 new=0 no-newline\n    +\"a\" old=0 new=1\n",
	}, {
		// As git apply reads it: a diff that ends without a line end
		// leaves its last line without one.
		name: "the text ends without a line end",
		diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b",
		want: "modified \"x\" -> \"x\"\n  -1,1 +1,1 \"\"\n    -\"a\" old=1 new=0\n    +\"b\" old=0 new=1 no-newline\n",
	}, {
		name: "copy",
		diff: "diff --git a/a.go b/b.go\nsimilarity index 90%\ncopy from a.go\ncopy to b.go\n--- a/a.go\n+++ b/b.go\n@@ -1 +1 @@\n-x\n+y\n",
		want: "copied \"a.go\" -> \"b.go\"\n  -1,1 +1,1 \"\"\n    -\"x\" old=1 new=0\n    +\"y\" old=0 new=1\n",
	}, {
		name: "quoted rename",
		diff: "diff --git \"a/a\\\"q.go\" b/plain.go\nsimilarity index 100%\nrename from \"a\\\"q.go\"\nrename to plain.go\n",
		want: "renamed \"a\\\"q.go\" -> \"plain.go\"\n",
	}, {
		name: "a binary file with a space in its name",
		diff: "diff --git a/my file.bin b/my file.bin\nindex 1234567..89abcde 100644\nBinary files a/my file.bin and b/my file.bin differ\n",
		want: "modified \"my file.bin\" -> \"my file.bin\" index 1234567..89abcde binary\n",
	}, {
		name: "a git binary patch",
		diff: "diff --git a/b.bin b/b.bin\nindex 1234567..89abcde 100644\nGIT binary patch\nliteral 5\nMcmZQzWMXCp000310RR91\n\nliteral 0\nHcmV?d00001\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		want: "modified \"b.bin\" -> \"b.bin\" index 1234567..89abcde binary\nmodified \"x\" -> \"x\"\n  -1,1 +1,1 \"\"\n    -\"a\" old=1 new=0\n    +\"b\" old=0 new=1\n",
	}, {
		name: "text before the first file",
		diff: "commit 123\nAuthor: x\n\n    @@ -1 +1 @@ in a message\n@@ not a header\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		want: "modified \"x\" -> \"x\"\n  -1,1 +1,1 \"\"\n    -\"a\" old=1 new=0\n    +\"b\" old=0 new=1\n",
	}, {
		name: "diff -u with timestamps, one of them the epoch",
		diff: "--- old.txt\t2024-05-01 10:00:00.000000000 +0200\n+++ new.txt\t2024-05-02 10:00:00.000000000 +0200\n@@ -1 +1 @@\n-a\n+b\n" +
			"--- gone.txt\t2024-05-01 10:00:00.000000000 +0200\n+++ gone.txt\t1970-01-01 01:00:00.000000000 +0100\n@@ -1 +0,0 @@\n-x\n",
		want: "modified \"old.txt\" -> \"new.txt\"\n  -1,1 +1,1 \"\"\n    -\"a\" old=1 new=0\n    +\"b\" old=0 new=1\n" +
			"deleted \"gone.txt\" -> \"\"\n  -1,1 +0,0 \"\"\n    -\"x\" old=1 new=0\n",
	}, {
		name: "CRLF: the diff's line ends go, the file's stay",
		diff: "diff --git a/w b/w\r\n--- a/w\r\n+++ b/w\r\n@@ -1,2 +1,2 @@ f\r\n-old\r\n+new\r\n same\r\n",
		want: "modified \"w\" -> \"w\"\n  -1,2 +1,2 \"f\"\n    -\"old\\r\" old=1 new=0\n    +\"new\\r\" old=0 new=1\n     \"same\\r\" old=2 new=2\n",
	}, {
		name: "a blank line between hunks",
		diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\n@@ -5 +5 @@\n-c\n+d\n",
		want: "modified \"x\" -> \"x\"\n  -1,1 +1,1 \"\"\n    -\"a\" old=1 new=0\n    +\"b\" old=0 new=1\n  -5,1 +5,1 \"\"\n    -\"c\" old=5 new=0\n    +\"d\" old=0 new=5\n",
	}, {
		name: "text after the last hunk is not the diff's",
		diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.0\n",
		want: "modified \"x\" -> \"x\"\n  -1,1 +1,1 \"\"\n    -\"a\" old=1 new=0\n    +\"b\" old=0 new=1\n",
	}, {
		name: "empty", diff: "", want: "",
	}, {
		name:    "short hunk",
		diff:    "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n",
		want:    "modified \"x\" -> \"x\"\n  -1,2 +1,1 \"\"\n    -\"a\" old=1 new=0\n",
		problem: "diff ends inside a hunk",
	}, {
		name:    "hunk with a stray line",
		diff:    "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n?b\n",
		want:    "modified \"x\" -> \"x\"\n  -1,1 +1,1 \"\"\n    -\"a\" old=1 new=0\n",
		problem: "diff line 6: the hunk above it is 0 old and 1 new line(s) short",
	}, {
		name:    "bad hunk header",
		diff:    "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,x +1 @@\n",
		want:    "modified \"x\" -> \"x\"\n",
		problem: `"x" is not a line number`,
	}, {
		name:    "huge line number",
		diff:    "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -99999999999 +1 @@\n",
		want:    "modified \"x\" -> \"x\"\n",
		problem: "is not a line number",
	}, {
		name:    "lines at line 0",
		diff:    "--- a/x\n+++ b/x\n@@ -0,1 +1 @@\n-a\n+b\n",
		problem: `range "0,1" starts at line 0`,
	}, {
		name:    "bad quoting",
		diff:    "diff --git a/x b/x\n--- \"a/x\\q\"\n",
		want:    "modified \"x\" -> \"x\"\n",
		problem: "unknown escape",
	}, {
		name:    "no paths at all",
		diff:    "diff --git nonsense\n@@ -1 +1 @@\n-a\n+b\n",
		problem: `modified, but its paths are "" and ""`,
	}, {
		name:    "deleted, then a new side",
		diff:    "diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ b/x\n",
		problem: `deleted, but its paths are "x" and "x"`,
	}, {
		name:    "a hunk without a file",
		diff:    "@@ -1 +1 @@\n-a\n+b\n",
		want:    "modified \"\" -> \"\"\n  -1,1 +1,1 \"\"\n    -\"a\" old=1 new=0\n    +\"b\" old=0 new=1\n",
		problem: "diff line 1: a hunk header before any file header",
	}, {
		name:    "a hunk after text that is not part of one",
		diff:    "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\nnote\n@@ -5 +5 @@\n-c\n+d\n",
		problem: "diff line 7: a hunk header after text",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := Parse(tc.diff)
			err := p.Err()
			switch {
			case tc.problem == "" && err != nil:
				t.Fatal(err)
			case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
				t.Fatalf("Parse: problem %v, want one with %q", err, tc.problem)
			}
			if got := summary(p.Files); (tc.want != "" || tc.problem == "") && got != tc.want {
				t.Errorf("Parse:\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestHunkString(t *testing.T) {
	p := Parse("--- a/x\n+++ b/x\n@@ -1 +1 @@   func f()  \n-a\n+b\n\\ No newline at end of file\n")
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	want := "@@ -1,1 +1,1 @@ func f()\n-a\n+b\n\\ No newline at end of file\n"
	if got := p.Files[0].Hunks[0].String(); got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
