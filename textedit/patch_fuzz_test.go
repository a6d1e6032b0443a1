package textedit

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// formatPatch writes ops back in the canonical form: every hunk with its
// @@ line, blank context lines as " ".
func formatPatch(ops []FileOp) string {
	var b strings.Builder
	b.WriteString(beginPatch + "\n")
	for _, op := range ops {
		switch op.Kind {
		case OpAdd:
			b.WriteString(addFile + op.Path + "\n")
			for _, l := range op.Lines {
				b.WriteString("+" + l + "\n")
			}
		case OpDelete:
			b.WriteString(deleteFile + op.Path + "\n")
		case OpUpdate:
			b.WriteString(updateFile + op.Path + "\n")
			if op.MoveTo != "" {
				b.WriteString(moveTo + op.MoveTo + "\n")
			}
			for _, h := range op.Hunks {
				if h.Context != "" {
					b.WriteString("@@ " + h.Context + "\n")
				} else {
					b.WriteString("@@\n")
				}
				for _, l := range h.Lines {
					b.WriteString(string(l.Op) + l.Text + "\n")
				}
				if h.AtEOF {
					b.WriteString(endOfFile + "\n")
				}
			}
		}
	}
	b.WriteString(endPatch + "\n")
	return b.String()
}

// comparable drops what only serves messages (source line numbers).
func comparableOps(ops []FileOp) []FileOp {
	out := make([]FileOp, len(ops))
	for i, op := range ops {
		op.line = 0
		hs := make([]Hunk, len(op.Hunks))
		for k, h := range op.Hunks {
			h.line = 0
			hs[k] = h
		}
		op.Hunks = hs
		out[i] = op
	}
	return out
}

// hasCR says whether a parsed text could lose a carriage return when
// written back (CRLF is read as LF).
func hasCR(ops []FileOp) bool {
	for _, op := range ops {
		if strings.Contains(op.Path+op.MoveTo, "\r") {
			return true
		}
		for _, l := range op.Lines {
			if strings.Contains(l, "\r") {
				return true
			}
		}
		for _, h := range op.Hunks {
			if strings.Contains(h.Context, "\r") {
				return true
			}
			for _, l := range h.Lines {
				if strings.Contains(l.Text, "\r") {
					return true
				}
			}
		}
	}
	return false
}

func FuzzParsePatch(f *testing.F) {
	for _, seed := range []string{
		"*** Begin Patch\n*** Add File: a.txt\n+hello\n+\n*** End Patch",
		"*** Begin Patch\n*** Update File: go/builder.go\n@@ func (b *Builder) Reset() {\n \tb.addr = nil\n-\tb.buf = nil\n+\tb.buf = b.buf[:0]\n }\n*** End Patch\n",
		"*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n+x = 2\n@@ def f():\n     pass\n+    return\n*** End of File\n*** Delete File: c.py\n*** End Patch",
		"cat <<'EOF' | apply_patch\r\n*** Begin Patch\r\n*** Delete File: x\r\n\r\n*** Add File: y\r\n+z\r\n*** End Patch\r\nEOF\r\n",
		// broken ones
		"*** Begin Patch\n*** Update File: a\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n@@\n*** End Patch",
		"*** Begin Patch\n*** Add File:\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n@@\n-x\n~y\n*** End Patch",
		"*** End Patch\n*** Begin Patch",
		"*** Begin Patch\n*** Update File: a\n*** Move to: \n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n@@\n-x\n*** End of File\n-y\n*** End Patch",
		"",
		// unified diffs, refused with the same change in this format
		"--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@ func f() {\n a\n-b\n+c\n\n d\n",
		"diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		// A unified diff's conversion is itself a patch this parser reads
		// (or refuses with a syntax error), never a panic.
		if conv, ok := fromUnifiedDiff(text); ok && conv != "" {
			if !strings.HasPrefix(conv, beginPatch+"\n") || !strings.HasSuffix(conv, endPatch) {
				t.Fatalf("conversion is not framed: %q", conv)
			}
			ParsePatch(conv)
		}
		ops, err := ParsePatch(text)
		if err != nil {
			if ops != nil {
				t.Fatalf("error %v with ops", err)
			}
			return
		}
		if len(ops) == 0 {
			t.Fatal("accepted a patch with no operations")
		}
		for _, op := range ops {
			if strings.TrimSpace(op.Path) == "" || op.Path != strings.TrimSpace(op.Path) {
				t.Fatalf("op with path %q", op.Path)
			}
			if op.MoveTo != strings.TrimSpace(op.MoveTo) || op.MoveTo != "" && op.Kind != OpUpdate {
				t.Fatalf("op %v with move to %q", op.Kind, op.MoveTo)
			}
			switch op.Kind {
			case OpAdd, OpDelete:
				if len(op.Hunks) != 0 {
					t.Fatalf("%v op with hunks", op.Kind)
				}
			case OpUpdate:
				if len(op.Hunks) == 0 && op.MoveTo == "" {
					t.Fatal("update with neither hunks nor move")
				}
				for _, h := range op.Hunks {
					if len(h.Lines) == 0 {
						t.Fatal("empty hunk accepted")
					}
					for _, l := range h.Lines {
						if l.Op != ' ' && l.Op != '-' && l.Op != '+' {
							t.Fatalf("hunk line op %q", l.Op)
						}
					}
				}
			default:
				t.Fatalf("op kind %v", op.Kind)
			}
		}
		// Round trip: what was accepted, written back canonically, reads
		// back the same.
		if hasCR(ops) {
			return
		}
		again, err := ParsePatch(formatPatch(ops))
		if err != nil {
			t.Fatalf("canonical form of an accepted patch is refused: %v\n%s", err, formatPatch(ops))
		}
		if a, b := comparableOps(ops), comparableOps(again); !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip changed the patch:\n%s\nfirst: %+v\nagain: %+v", formatPatch(ops), a, b)
		}
	})
}

func TestFormatPatchRoundTripSeeds(t *testing.T) {
	ops, err := ParsePatch("*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n+x = 2\n@@ def f():\n     pass\n \n+    return\n*** End of File\n*** Delete File: c.py\n*** Add File: d\n+\n+d\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParsePatch(formatPatch(ops))
	if err != nil || !reflect.DeepEqual(comparableOps(ops), comparableOps(again)) {
		t.Fatal(fmt.Sprint(err, "\n", formatPatch(ops)))
	}
}
