package textedit

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cchub/workspace"
)

// maxShownPatch bounds the converted patch an error shows.
const maxShownPatch = 8 << 10

// UnifiedDiffError refuses a unified diff (git diff, diff -u) sent as a
// patch. Converted is the same change in apply_patch's own format, or ""
// when the diff's hunks could not be read whole.
type UnifiedDiffError struct {
	Converted string
	// Unsure, when not "", says why the conversion is not offered as a
	// call to make: a hunk whose lines are not found exactly once.
	Unsure string
}

func (e *UnifiedDiffError) Error() string {
	const format = "apply_patch takes its own format: *** Begin Patch, then per file *** Update File: PATH (or Add File, Delete File), hunks of a bare @@ line and ' ', '-', '+' lines, then *** End Patch"
	switch {
	case e.Converted == "":
		return fmt.Sprintf("%v: this is a unified diff, and its hunks could not be read whole; %s (or use edit for one place)", ErrPatchSyntax, format)
	case e.Unsure != "":
		return fmt.Sprintf("%v: this is a unified diff; %s. Converted, %s: add context lines to that hunk, or use edit for it", ErrPatchSyntax, format, e.Unsure)
	case len(e.Converted) > maxShownPatch:
		return fmt.Sprintf("%v: this is a unified diff; %s. The same change converted is %d bytes, too long to show: send it in that format, a few files at a time", ErrPatchSyntax, format, len(e.Converted))
	}
	return fmt.Sprintf("%v: this is a unified diff; apply_patch takes its own format. The same change in it, to send as patch:\n%s", ErrPatchSyntax, e.Converted)
}

func (e *UnifiedDiffError) Unwrap() error { return ErrPatchSyntax }

var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@`)

// fromUnifiedDiff reads text as a unified diff and rewrites it in
// apply_patch's format. isDiff is false when text is not a unified diff;
// patch is "" when a hunk cannot be read whole (its header's line counts
// are the truth: a removed line "-- x" reads as "--- x" and is still a
// line of the hunk). Hunks are placed by their lines, not by numbers, so
// each @@ line is bare: git's clipped function headings would not match.
func fromUnifiedDiff(text string) (patch string, isDiff bool) {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	files := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "--- ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
			continue
		}
		from, to := diffPath(lines[i][4:], "a/"), diffPath(lines[i+1][4:], "b/")
		i += 2
		switch {
		case from == "/dev/null":
			b.WriteString("*** Add File: " + to + "\n")
		case to == "/dev/null":
			b.WriteString("*** Delete File: " + from + "\n")
		default:
			b.WriteString("*** Update File: " + from + "\n")
			if to != from {
				b.WriteString("*** Move to: " + to + "\n")
			}
		}
		files++
		for i < len(lines) {
			m := hunkHeader.FindStringSubmatch(lines[i])
			if m == nil {
				break
			}
			oldN, newN := hunkCount(m[1]), hunkCount(m[2])
			if from != "/dev/null" && to != "/dev/null" {
				b.WriteString("@@\n")
			}
			for i++; oldN > 0 || newN > 0; i++ {
				if i >= len(lines) || i == len(lines)-1 && lines[i] == "" {
					return "", true // the text ends before the hunk does
				}
				l := lines[i]
				op := byte(' ')
				if l != "" {
					op, l = l[0], l[1:]
				}
				switch op {
				case ' ':
					oldN--
					newN--
				case '-':
					oldN--
				case '+':
					newN--
				case '\\': // \ No newline at end of file
					continue
				default:
					return "", true
				}
				if oldN < 0 || newN < 0 {
					return "", true
				}
				if to != "/dev/null" && (from != "/dev/null" || op == '+') {
					b.WriteString(string(op) + l + "\n")
				}
			}
			for i < len(lines) && strings.HasPrefix(lines[i], `\`) {
				i++
			}
		}
		i--
	}
	if files == 0 {
		return "", false
	}
	return beginPatch + "\n" + b.String() + endPatch, true
}

func hunkCount(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// diffPath is the path on a ---/+++ line, without its a/ or b/ prefix and
// a trailing tab and timestamp (diff -u).
func diffPath(s, prefix string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	return strings.TrimPrefix(s, prefix)
}

// checkConverted offers a converted diff as a call to make only when every
// hunk's old lines stand exactly once in its file: patches place hunks by
// their lines, and a diff's line numbers, which told repeated lines apart,
// are gone.
func (f *Files) checkConverted(ud *UnifiedDiffError) {
	ops, err := ParsePatch(ud.Converted)
	if err != nil {
		ud.Converted = ""
		return
	}
	for _, op := range ops {
		if op.Kind != OpUpdate {
			continue
		}
		_, rel, err := f.root.Resolve(op.Path)
		if err != nil {
			continue // applying it will say so
		}
		data, err := f.root.ReadText(rel)
		if err != nil {
			continue
		}
		body := workspace.DecodeText(data).Body
		for _, h := range op.Hunks {
			var old []string
			for _, l := range h.Lines {
				if l.Op != '+' {
					old = append(old, l.Text)
				}
			}
			block := strings.Join(old, "\n") + "\n"
			if n := strings.Count("\n"+body, "\n"+block); n != 1 {
				where := "twice or more"
				if n == 0 {
					where = "nowhere"
				}
				ud.Unsure = fmt.Sprintf("the lines of one of its hunks stand %s in %s (%d lines from %q)", where, rel, len(old), firstNonBlank(old))
				return
			}
		}
	}
}

func firstNonBlank(ls []string) string {
	for _, l := range ls {
		if t := strings.TrimSpace(l); t != "" {
			return clipRunes(t, 60)
		}
	}
	return ""
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// asUnifiedDiff returns err's UnifiedDiffError, if it is one.
func asUnifiedDiff(err error) *UnifiedDiffError {
	var ud *UnifiedDiffError
	if errors.As(err, &ud) {
		return ud
	}
	return nil
}

// PatchFromUnifiedDiff rewrites a unified diff in apply_patch's format,
// for a tool that makes diffs (a language server's rename) to offer as a
// call. ok is false when text is not a unified diff or a hunk cannot be
// read whole.
func PatchFromUnifiedDiff(text string) (patch string, ok bool) {
	patch, isDiff := fromUnifiedDiff(workspace.ToLF(text))
	return patch, isDiff && patch != ""
}
