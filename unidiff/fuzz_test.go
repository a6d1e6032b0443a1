package unidiff

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// FuzzParse feeds the parser arbitrary text, seeded with real git and
// diff -u output. It must not panic; what it reads must be consistent
// (numbers in range, lines numbered from their hunk's start, no more lines
// than the header counts, exactly as many when nothing is wrong); and a
// text without problems must read back the same from its canonical form.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		gitSample,
		"diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -3,2 +3 @@\n--- a/y\n-diff --git a/z b/z\n+ok\n",
		"diff --git \"a/a\\\"q.go\" b/plain.go\nsimilarity index 100%\nrename from \"a\\\"q.go\"\nrename to plain.go\n",
		"diff --git a/my file.bin b/my file.bin\nindex 1234567..89abcde 100644\nBinary files a/my file.bin and b/my file.bin differ\n",
		"diff --git a/a.go b/b.go\ncopy from a.go\ncopy to b.go\n--- a/a.go\n+++ b/b.go\n@@ -1,3 +1,3 @@\n a\n-x\n+y\n c\n\\ No newline at end of file\n",
		"@@ -1 +1 @@\ndiff --git a/x b/x\n@@ -0,0 +1,1073741824 @@\n",
		"--- old.txt\t2024-05-01 10:00:00.000000000 +0200\n+++ new.txt\t1970-01-01 00:00:00 +0000\n@@ -1 +1 @@\n-a\n+b",
		"diff --git a/w b/w\r\n--- a/w\r\n+++ b/w\r\n@@ -1,2 +1,2 @@ f\r\n-old\r\n+new\r\n same\r\n\n@@ -9 +9 @@\n-x\n+y\nnote\n@@ -20 +20 @@\n",
		"diff --git a/b.bin b/b.bin\nGIT binary patch\nliteral 5\nMcmZQzWMXCp000310RR91\n\ndiff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := Parse(text)
		for _, fd := range p.Files {
			for _, h := range fd.Hunks {
				checkHunk(t, h, len(p.Problems) == 0)
			}
		}
		if len(p.Problems) > 0 {
			return
		}
		for _, fd := range p.Files {
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
				t.Fatalf("status %v", fd.Status)
			}
		}
		if len(text) > 1<<16 {
			return // the round trip writes every line out again
		}
		again := Parse(canonical(p.Files))
		if err := again.Err(); err != nil {
			t.Fatalf("the canonical form of %+v does not parse: %v\n%s", p.Files, err, canonical(p.Files))
		}
		if !reflect.DeepEqual(withoutHeaders(again.Files), withoutHeaders(p.Files)) {
			t.Fatalf("round trip:\n got %s\nwant %s\n%s", summary(again.Files), summary(p.Files), canonical(p.Files))
		}
	})
}

// checkHunk checks what holds of every hunk read: numbers in range, no
// lines at line 0, lines numbered in order from the hunk's start, and no
// more lines on a side than its count (as many when whole).
func checkHunk(t *testing.T, h Hunk, whole bool) {
	t.Helper()
	for _, n := range []int{h.OldStart, h.OldLines, h.NewStart, h.NewLines} {
		if n < 0 || n > maxLine {
			t.Fatalf("hunk %+v out of range", h)
		}
	}
	if h.OldLines > 0 && h.OldStart == 0 || h.NewLines > 0 && h.NewStart == 0 {
		t.Fatalf("hunk %+v has lines at line 0", h)
	}
	oldN, newN := h.OldStart, h.NewStart
	for _, l := range h.Lines {
		if strings.Contains(l.Text, "\n") {
			t.Fatalf("line %q holds a line end", l.Text)
		}
		wantOld, wantNew := 0, 0
		if l.Kind != Add {
			wantOld, oldN = oldN, oldN+1
		}
		if l.Kind != Delete {
			wantNew, newN = newN, newN+1
		}
		if l.Old != wantOld || l.New != wantNew {
			t.Fatalf("line %+v of %q numbered %d,%d, want %d,%d", l, h.Header, l.Old, l.New, wantOld, wantNew)
		}
	}
	oldSeen, newSeen := oldN-h.OldStart, newN-h.NewStart
	if oldSeen > h.OldLines || newSeen > h.NewLines || whole && (oldSeen != h.OldLines || newSeen != h.NewLines) {
		t.Fatalf("hunk %q has %d old and %d new lines", h.Header, oldSeen, newSeen)
	}
}

// withoutHeaders is files with their hunks' headers as written left out:
// the canonical form writes every count.
func withoutHeaders(files []File) []File {
	out := make([]File, len(files))
	for i, f := range files {
		f.Hunks = append([]Hunk(nil), f.Hunks...)
		for j := range f.Hunks {
			f.Hunks[j].Header = ""
		}
		out[i] = f
	}
	return out
}

// canonical writes files as git would, so that reading it again must
// give the same files.
func canonical(files []File) string {
	var b strings.Builder
	for _, f := range files {
		a, c := f.OldPath, f.NewPath
		if a == "" {
			a = c
		}
		if c == "" {
			c = a
		}
		fmt.Fprintf(&b, "diff --git %s %s\n", quote("a/"+a), quote("b/"+c))
		switch f.Status {
		case Added:
			b.WriteString("new file mode 100644\n")
		case Deleted:
			b.WriteString("deleted file mode 100644\n")
		case Renamed:
			fmt.Fprintf(&b, "rename from %s\nrename to %s\n", quote(f.OldPath), quote(f.NewPath))
		case Copied:
			fmt.Fprintf(&b, "copy from %s\ncopy to %s\n", quote(f.OldPath), quote(f.NewPath))
		}
		if f.OldBlob != "" || f.NewBlob != "" {
			fmt.Fprintf(&b, "index %s..%s\n", f.OldBlob, f.NewBlob)
		}
		if f.Binary {
			fmt.Fprintf(&b, "Binary files %s and %s differ\n", quote("a/"+a), quote("b/"+c))
		}
		if len(f.Hunks) > 0 {
			if f.OldPath == "" {
				b.WriteString("--- /dev/null\n")
			} else {
				fmt.Fprintf(&b, "--- %s\n", quote("a/"+f.OldPath))
			}
			if f.NewPath == "" {
				b.WriteString("+++ /dev/null\n")
			} else {
				fmt.Fprintf(&b, "+++ %s\n", quote("b/"+f.NewPath))
			}
		}
		for _, h := range f.Hunks {
			b.WriteString(h.String())
		}
	}
	return b.String()
}

// quote quotes p as git does when it holds anything but printable ASCII
// other than a quote or a backslash, and, unlike git, when it holds a
// space: git's unquoted "a/x b/y" is ambiguous when the names differ
// (gitSample covers that form).
func quote(p string) string {
	plain := true
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
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
