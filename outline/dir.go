package outline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"cchub/syntax"
	"cchub/workspace"
)

// Dir is a bounded map of a directory: its files in walk order with
// their top-level symbols.
type Dir struct {
	Path  string  `json:"path"`
	Files []*File `json:"files"`
	// SourceFiles counts the files in a supported language below Path;
	// when it exceeds len(Files), the outline was cut at MaxFiles, and
	// Rest says where the files left out are.
	SourceFiles int        `json:"source_files"`
	Rest        []DirCount `json:"rest,omitempty"`
	// Other names files that have no outline (another language, binary,
	// unreadable), up to a bound; OtherFiles counts all of them.
	Other      []string `json:"other,omitempty"`
	OtherFiles int      `json:"other_files"`
	// Match is the name filter (Options.Match); Unmatched counts the
	// source files left out for having no symbol it matches.
	Match     string `json:"match,omitempty"`
	Unmatched int    `json:"unmatched,omitempty"`
	// Unreadable lists the directories the walk could not read.
	Unreadable workspace.UnreadableDirs `json:"unreadable,omitempty"`
}

// DirCount is how many source files a directory outline left out of one
// directory (its files directly, or a subdirectory and all below it).
type DirCount struct {
	Dir   string `json:"dir"`
	Files int    `json:"files"`
}

func outlineDir(ctx context.Context, root *workspace.Root, cache *syntax.ParseCache, rel string, opts Options) (*Dir, error) {
	d := &Dir{Path: rel, Files: []*File{}, Match: opts.Match}
	other := func(name string) {
		d.OtherFiles++
		if len(d.Other) < maxOtherListed {
			d.Other = append(d.Other, name)
		}
	}
	err := root.WalkReporting(ctx, rel, func(frel string, e fs.DirEntry) error {
		if e.IsDir() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if syntax.LanguageFor(frel) == nil {
			other(frel)
			return nil
		}
		d.SourceFiles++
		if opts.MaxFiles > 0 && len(d.Files) >= opts.MaxFiles {
			d.countRest(frel) // keep counting what was left out, and where
			return nil
		}
		f, _, err := fileOutline(ctx, root, cache, frel, opts)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			d.SourceFiles--
			reason := "unreadable"
			switch {
			case errors.Is(err, workspace.ErrBinary):
				reason = "binary"
			case errors.Is(err, workspace.ErrTooLarge):
				reason = "too large"
			case errors.Is(err, workspace.ErrInvalidUTF8):
				reason = "not UTF-8"
			case errors.Is(err, syntax.ErrTooBig):
				reason = "too large to parse"
			}
			other(frel + " (" + reason + ")")
			return nil
		}
		if opts.Match != "" {
			// Where a name is defined: the matches themselves, however
			// deep, by their qualified names.
			if f.Symbols, f.Match = matchedFlat(f.Symbols, opts.Match), opts.Match; len(f.Symbols) == 0 {
				d.Unmatched++
				return nil
			}
		} else {
			f.Symbols = topLevel(f.Symbols)
		}
		d.Files = append(d.Files, f)
		return nil
	}, d.Unreadable.Add)
	if err != nil {
		return nil, fmt.Errorf("outline: %w", err)
	}
	return d, nil
}

// countRest counts a file left out under the directory just below d.Path
// that holds it.
func (d *Dir) countRest(frel string) {
	sub := strings.TrimPrefix(frel, d.Path+"/")
	if d.Path == "." {
		sub = frel
	}
	dir := d.Path
	if i := strings.IndexByte(sub, '/'); i >= 0 {
		dir = path.Join(d.Path, sub[:i])
	}
	for i := range d.Rest {
		if d.Rest[i].Dir == dir {
			d.Rest[i].Files++
			return
		}
	}
	d.Rest = append(d.Rest, DirCount{Dir: dir, Files: 1})
}

// matchedFlat lists the symbols whose name matches pattern, nested ones
// too, each named as read_symbol knows it and without its children.
func matchedFlat(syms []*Symbol, pattern string) []*Symbol {
	var out []*Symbol
	walkQualified(syms, "", func(s *Symbol, q string) {
		if matchName(pattern, s.Name) || matchName(pattern, q) {
			c := *s
			c.Name, c.Receiver, c.Children = q, "", nil
			out = append(out, &c)
		}
	})
	return out
}

// topLevel keeps the symbols a directory map shows: no imports, and no
// children except the members of a group. A namespace's members are
// listed after it, as if top-level: a C++ header is often one namespace.
func topLevel(syms []*Symbol) []*Symbol {
	out := make([]*Symbol, 0, len(syms))
	for _, s := range syms {
		if s.Kind == "import" {
			continue
		}
		c := *s
		if c.Name != "" {
			c.Children = nil
		}
		out = append(out, &c)
		if s.Kind == "namespace" {
			out = append(out, topLevel(s.Children)...)
		}
	}
	return out
}

// Text renders a directory map, one line per file:
//
//	store (3 source files, 1 other)
//	store/store.go (119 lines, go): 14 type State, 17 const (InStock, LowStock, SoldOut), 58 func New, 66 method Store.Add
//
// Text renders the whole map; TextWithin fits it to a byte budget.
func (d *Dir) Text() string { return d.text(maxDirSymbols) }

// TextWithin renders the map in at most maxBytes when it can: each file
// shows fewer symbols (the rest counted as "+N more") rather than fewer
// files.
func (d *Dir) TextWithin(maxBytes int) string {
	var t string
	for _, per := range []int{maxDirSymbols, 12, 6, 3, 0} {
		if t = d.text(per); len(t) <= maxBytes {
			break
		}
	}
	return t
}

func (d *Dir) text(perFile int) string {
	var b strings.Builder
	name := d.Path
	if name != "." {
		name += "/"
	}
	fmt.Fprintf(&b, "%s (%d source files", name, d.SourceFiles)
	if d.Match != "" {
		fmt.Fprintf(&b, ", %d with a symbol matching %q", d.SourceFiles-d.Unmatched, d.Match)
	}
	if d.OtherFiles > 0 {
		fmt.Fprintf(&b, ", %d other", d.OtherFiles)
	}
	b.WriteString(")\n")
	for _, f := range d.Files {
		fmt.Fprintf(&b, "%s (%s, %s)", f.Path, plural(f.Lines, "line", "lines"), f.Language)
		if len(f.Unparsed) > 0 {
			b.WriteString(" [syntax errors]")
		}
		if len(f.Symbols) > 0 && perFile == 0 {
			fmt.Fprintf(&b, ": %d symbols", len(f.Symbols))
		} else if len(f.Symbols) > 0 {
			b.WriteString(": ")
			for i, s := range f.Symbols {
				if i == perFile {
					fmt.Fprintf(&b, ", +%d more", len(f.Symbols)-i)
					break
				}
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(dirSymbol(s))
			}
		}
		b.WriteByte('\n')
	}
	if len(d.Files)+d.Unmatched < d.SourceFiles {
		fmt.Fprintf(&b, "[cut at %d of %d source files; outline a subdirectory or single files for the rest:", len(d.Files)+d.Unmatched, d.SourceFiles)
		for i, r := range d.Rest {
			if i == maxOtherListed {
				fmt.Fprintf(&b, " +%d more directories", len(d.Rest)-i)
				break
			}
			if i > 0 {
				b.WriteByte(',')
			}
			if r.Dir == d.Path {
				fmt.Fprintf(&b, " %d files directly in %s", r.Files, r.Dir)
			} else {
				fmt.Fprintf(&b, " %s (%d)", r.Dir, r.Files)
			}
		}
		b.WriteString("]\n")
	}
	if d.OtherFiles > 0 && d.Match == "" {
		b.WriteString("other files: ")
		b.WriteString(strings.Join(d.Other, ", "))
		if d.OtherFiles > len(d.Other) {
			fmt.Fprintf(&b, ", +%d more", d.OtherFiles-len(d.Other))
		}
		b.WriteByte('\n')
	}
	b.WriteString(d.Unreadable.Note("their files are not in this map"))
	if len(d.Files) > 0 {
		fmt.Fprintf(&b, "signatures and line ranges of one file: outline path=%s\n", d.Files[0].Path)
	} else if d.Match != "" {
		fmt.Fprintf(&b, "no symbol matches %q here; match is a part of a name or a glob (Serve*), case-insensitive\n", d.Match)
	} else if d.SourceFiles == 0 {
		fmt.Fprintf(&b, "no files in %s\n", strings.Join(syntax.LanguageNames(), ", "))
	}
	return b.String()
}

// dirSymbol is a symbol's short form in a directory map.
func dirSymbol(s *Symbol) string {
	name := s.Name
	switch {
	case s.Name == "":
		var names []string
		for i, c := range s.Children {
			if i == 6 {
				names = append(names, fmt.Sprintf("+%d", len(s.Children)-i))
				break
			}
			names = append(names, c.Name)
		}
		name = "(" + strings.Join(names, ", ") + ")"
	case s.Receiver != "":
		name = receiverType(s.Receiver) + "." + s.Name
	case isBlockKind(s.Kind):
		return fmt.Sprintf("%d %s", s.StartLine, s.Name)
	}
	return fmt.Sprintf("%d %s %s", s.StartLine, s.Kind, name)
}

// receiverType is the type name in a Go receiver: "(s *Store[T])" → "Store".
func receiverType(recv string) string {
	r := strings.Trim(recv, "()")
	if i := strings.IndexByte(r, '['); i >= 0 {
		r = r[:i]
	}
	if i := strings.LastIndexAny(r, " *"); i >= 0 {
		r = r[i+1:]
	}
	return r
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
