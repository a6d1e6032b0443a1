package blast

import (
	"fmt"
	"reflect"
	"strconv"
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

func TestParseDiffGitSample(t *testing.T) {
	got, err := ParseDiff([]byte(gitSample))
	if err != nil {
		t.Fatal(err)
	}
	want := []FileDiff{
		{OldPath: "b.bin", NewPath: "b.bin", Status: Modified, Binary: true,
			OldBlob: "87ae6b695deceaf160611414f7dcd5c7366b2e79", NewBlob: "88923a0fdcc53cff3a4139eda5e534c871408d2a"},
		{OldPath: "d.go", Status: Deleted, OldBlob: "a290ced577a334220f1105888796e3207122ee20",
			Hunks: []Hunk{{1, 2, 0, 0}}},
		{OldPath: "sp ace.py", NewPath: "moved sp.py", Status: Renamed},
		{NewPath: "n.go", Status: Added, NewBlob: "8ba3a16384aacc37d01564b28401755ce8053f51",
			Hunks: []Hunk{{0, 0, 1, 1}}},
		{OldPath: "sub/k.go", NewPath: "sub/k.go", Status: Modified},
		{OldPath: "tab\té.go", NewPath: "tab\té.go", Status: Modified,
			OldBlob: "bca70f35318f31dd1d1d1d2d2e64c19b880899ff", NewBlob: "8a08eba85c872cd83776ed37dd9c6de453c789c2",
			Hunks: []Hunk{{1, 0, 2, 1}}},
		{OldPath: "x.go", NewPath: "x.go", Status: Modified,
			OldBlob: "71ac1b5791204c80666ab1a4f9886b79e982739c", NewBlob: "8d13797e3d9be1963d1310cb35b72776df4b4c09",
			Hunks: []Hunk{{2, 1, 2, 1}, {7, 1, 6, 0}, {8, 0, 8, 1}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseDiff:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseDiffCases(t *testing.T) {
	for _, tc := range []struct {
		name, diff string
		want       []FileDiff
		err        string
	}{{
		// A deleted line that reads like a file header is content: the
		// hunk still owes a line.
		name: "header-like content",
		diff: "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -3,2 +3 @@\n--- a/y\n-diff --git a/z b/z\n+ok\n",
		want: []FileDiff{{OldPath: "x.go", NewPath: "x.go", Status: Modified, Hunks: []Hunk{{3, 2, 3, 1}}}},
	}, {
		name: "context lines and no final newline",
		diff: "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@ func\n a\n-b\n+c\n d\n\\ No newline at end of file",
		want: []FileDiff{{OldPath: "x.go", NewPath: "x.go", Status: Modified, Hunks: []Hunk{{1, 3, 1, 3}}}},
	}, {
		name: "copy",
		diff: "diff --git a/a.go b/b.go\nsimilarity index 90%\ncopy from a.go\ncopy to b.go\n--- a/a.go\n+++ b/b.go\n@@ -1 +1 @@\n-x\n+y\n",
		want: []FileDiff{{OldPath: "a.go", NewPath: "b.go", Status: Copied, Hunks: []Hunk{{1, 1, 1, 1}}}},
	}, {
		name: "quoted rename",
		diff: "diff --git \"a/a\\\"q.go\" b/plain.go\nsimilarity index 100%\nrename from \"a\\\"q.go\"\nrename to plain.go\n",
		want: []FileDiff{{OldPath: `a"q.go`, NewPath: "plain.go", Status: Renamed}},
	}, {
		name: "a binary file with a space in its name",
		diff: "diff --git a/my file.bin b/my file.bin\nindex 1234567..89abcde 100644\nBinary files a/my file.bin and b/my file.bin differ\n",
		want: []FileDiff{{OldPath: "my file.bin", NewPath: "my file.bin", Status: Modified, Binary: true}},
	}, {
		name: "text before the first file",
		diff: "commit 123\nAuthor: x\n\n    @@ -1 +1 @@ in a message\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		want: []FileDiff{{OldPath: "x", NewPath: "x", Status: Modified, Hunks: []Hunk{{1, 1, 1, 1}}}},
	}, {
		name: "empty", diff: "", want: nil,
	}, {
		name: "short hunk",
		diff: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n",
		err:  "diff ends inside a hunk",
	}, {
		name: "hunk with a stray line",
		diff: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n?b\n",
		err:  "diff line 6",
	}, {
		name: "bad hunk header",
		diff: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,x +1 @@\n",
		err:  `"x" is not a line number`,
	}, {
		name: "huge line number",
		diff: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -99999999999 +1 @@\n",
		err:  "is not a line number",
	}, {
		name: "bad quoting",
		diff: "diff --git a/x b/x\n--- \"a/x\\q\"\n",
		err:  "unknown escape",
	}, {
		name: "no paths at all",
		diff: "diff --git nonsense\n@@ -1 +1 @@\n-a\n+b\n",
		err:  `modified, but its paths are "" and ""`,
	}, {
		name: "deleted, then a new side",
		diff: "diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ b/x\n",
		err:  `deleted, but its paths are "x" and "x"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDiff([]byte(tc.diff))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseDiff: %v, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseDiff:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// FuzzParseDiff feeds the parser arbitrary bytes, seeded with real git
// output. It must not panic, and what it accepts must make sense and come
// back the same when written out as a canonical diff and read again.
func FuzzParseDiff(f *testing.F) {
	f.Add([]byte(gitSample))
	f.Add([]byte("diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -3,2 +3 @@\n--- a/y\n-diff --git a/z b/z\n+ok\n"))
	f.Add([]byte("diff --git \"a/a\\\"q.go\" b/plain.go\nsimilarity index 100%\nrename from \"a\\\"q.go\"\nrename to plain.go\n"))
	f.Add([]byte("diff --git a/my file.bin b/my file.bin\nindex 1234567..89abcde 100644\nBinary files a/my file.bin and b/my file.bin differ\n"))
	f.Add([]byte("diff --git a/a.go b/b.go\ncopy from a.go\ncopy to b.go\n--- a/a.go\n+++ b/b.go\n@@ -1,3 +1,3 @@\n a\n-x\n+y\n c\n\\ No newline at end of file\n"))
	f.Add([]byte("@@ -1 +1 @@\ndiff --git a/x b/x\n@@ -0,0 +1,1073741824 @@\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fds, err := ParseDiff(data)
		if err != nil {
			return
		}
		for _, fd := range fds {
			switch fd.Status {
			case Added:
				if fd.OldPath != "" || fd.NewPath == "" {
					t.Fatalf("added file with paths %q, %q", fd.OldPath, fd.NewPath)
				}
			case Deleted:
				if fd.NewPath != "" || fd.OldPath == "" {
					t.Fatalf("deleted file with paths %q, %q", fd.OldPath, fd.NewPath)
				}
			case Modified, Renamed, Copied:
				if fd.OldPath == "" || fd.NewPath == "" {
					t.Fatalf("%s file with paths %q, %q", fd.Status, fd.OldPath, fd.NewPath)
				}
			default:
				t.Fatalf("status %q", fd.Status)
			}
			for _, h := range fd.Hunks {
				for _, n := range []int{h.OldStart, h.OldLines, h.NewStart, h.NewLines} {
					if n < 0 || n > maxLine {
						t.Fatalf("hunk %+v out of range", h)
					}
				}
				if h.OldLines > 0 && h.OldStart == 0 || h.NewLines > 0 && h.NewStart == 0 {
					t.Fatalf("hunk %+v has lines at line 0", h)
				}
			}
		}
		if len(data) > 1<<16 {
			return // the round trip writes every hunk line out
		}
		again, err := ParseDiff([]byte(canonical(fds)))
		if err != nil {
			t.Fatalf("the canonical form of %+v does not parse: %v\n%s", fds, err, canonical(fds))
		}
		if len(again) == 0 && len(fds) == 0 {
			return
		}
		if !reflect.DeepEqual(again, fds) {
			t.Fatalf("round trip:\n got %+v\nwant %+v\n%s", again, fds, canonical(fds))
		}
	})
}

// canonical writes files as git would, hunk bodies made of placeholder
// lines, so that parsing it again must give the same files.
func canonical(fds []FileDiff) string {
	var b strings.Builder
	q := func(prefix, p string) string {
		if strings.ContainsAny(p, "\"\\\t\n\r\a\b\v\f") || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 }) || strings.Contains(p, " ") {
			// Git leaves spaces unquoted, which is ambiguous in a header
			// whose two names differ; gitSample covers that form.
			return cquote(prefix + p)
		}
		return prefix + p
	}
	for _, fd := range fds {
		a, c := fd.OldPath, fd.NewPath
		if a == "" {
			a = c
		}
		if c == "" {
			c = a
		}
		fmt.Fprintf(&b, "diff --git %s %s\n", q("a/", a), q("b/", c))
		switch fd.Status {
		case Added:
			b.WriteString("new file mode 100644\n")
		case Deleted:
			b.WriteString("deleted file mode 100644\n")
		case Renamed:
			fmt.Fprintf(&b, "rename from %s\nrename to %s\n", q("", fd.OldPath), q("", fd.NewPath))
		case Copied:
			fmt.Fprintf(&b, "copy from %s\ncopy to %s\n", q("", fd.OldPath), q("", fd.NewPath))
		}
		if fd.OldBlob != "" || fd.NewBlob != "" {
			o, n := fd.OldBlob, fd.NewBlob
			if o == "" {
				o = strings.Repeat("0", 40)
			}
			if n == "" {
				n = strings.Repeat("0", 40)
			}
			fmt.Fprintf(&b, "index %s..%s\n", o, n)
		}
		if fd.Binary {
			b.WriteString("GIT binary patch\n")
		}
		if len(fd.Hunks) > 0 {
			if fd.OldPath == "" {
				b.WriteString("--- /dev/null\n")
			} else {
				fmt.Fprintf(&b, "--- %s\n", q("a/", fd.OldPath))
			}
			if fd.NewPath == "" {
				b.WriteString("+++ /dev/null\n")
			} else {
				fmt.Fprintf(&b, "+++ %s\n", q("b/", fd.NewPath))
			}
		}
		for _, h := range fd.Hunks {
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
			b.WriteString(strings.Repeat("-\n", h.OldLines))
			b.WriteString(strings.Repeat("+\n", h.NewLines))
		}
	}
	return b.String()
}

// cquote quotes s as git does, with octal escapes for other bytes.
func cquote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		default:
			if c < 0x20 || c >= 0x7f {
				b.WriteString(`\` + strconv.FormatInt(int64(c)|0o1000, 8)[1:])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
