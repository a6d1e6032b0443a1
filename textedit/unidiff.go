package textedit

import (
	"errors"
	"fmt"
	"strings"

	"cchub/textfmt"
	"cchub/unidiff"
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

// fromUnifiedDiff reads text as a unified diff and rewrites it in
// apply_patch's format. isDiff is false when text names no file (or,
// read whole, has no hunk); patch is "" when the diff does not read whole (its header's line counts
// are the truth: a removed line "-- x" reads as "--- x" and is still a
// line of the hunk). Hunks are placed by their lines, not by numbers, so
// each @@ line is bare: git's clipped function headings would not match.
func fromUnifiedDiff(text string) (patch string, isDiff bool) {
	diff := unidiff.Parse(text)
	var b strings.Builder
	named, files := false, 0
	for _, f := range diff.Files {
		named = named || f.OldPath != "" || f.NewPath != ""
		// A file git names without hunks (a pure rename, a mode change,
		// an empty or binary file) has nothing to convert.
		if len(f.Hunks) == 0 || f.OldPath == "" && f.NewPath == "" {
			continue
		}
		files++
		switch f.Status {
		case unidiff.Added:
			b.WriteString(addFile + f.NewPath + "\n")
			for _, h := range f.Hunks {
				for _, l := range h.Lines {
					if l.Kind == unidiff.Add {
						b.WriteString("+" + l.Text + "\n")
					}
				}
			}
		case unidiff.Deleted:
			b.WriteString(deleteFile + f.OldPath + "\n")
		default:
			b.WriteString(updateFile + f.OldPath + "\n")
			if f.NewPath != f.OldPath {
				b.WriteString(moveTo + f.NewPath + "\n")
			}
			for _, h := range f.Hunks {
				b.WriteString("@@\n")
				for _, l := range h.Lines {
					b.WriteString(string(l.Kind.Op()) + l.Text + "\n")
				}
			}
		}
	}
	if diff.Err() != nil {
		return "", named
	}
	if files == 0 {
		return "", false
	}
	return beginPatch + "\n" + b.String() + endPatch, true
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
		body := textfmt.DecodeText(data).Body
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
