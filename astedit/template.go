package astedit

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"cchub/structsearch"
)

// ErrBadTemplate is wrapped by every error about a replacement template
// itself: a metavariable the pattern does not bind, or binds the other way.
var ErrBadTemplate = errors.New("bad template")

// Template is a parsed replacement.
//
// It is text with the pattern's metavariables in it: $X stands for what
// $X captured, $$$ARGS for what $$$ARGS captured, byte for byte (comments
// and separators between the captured siblings included). Any other '$'
// is text: one not followed by an upper-case name ($1, $x, JavaScript's
// ${), and $$ not followed by a name (a shell's $$); $$X is a '$' and
// then $X, as in a pattern. A name has the pattern's form,
// [A-Z_][A-Z0-9_]*, so $Foo and $X_y are text too.
//
// Its indentation is relative: a multi-line template may be written
// flush left or indented as the code it came from; Expand fits it to the
// place and the indentation style of each match.
type Template struct {
	lines []tline
	names []string
	unit  int // spaces per indentation level, as the template is written
}

// tline is one line of a template.
type tline struct {
	// indent is the line's leading whitespace less what all the lines
	// after the first share; the first line's is as written.
	indent string
	segs   []seg
	blank  bool // nothing but whitespace
}

// seg is literal text, or a reference to a metavariable (ref, with its
// sigil).
type seg struct {
	text, ref string
}

// ParseTemplate parses tmpl as a replacement for the matches of a pattern
// that binds the metavariables bound (as structsearch.Metavars lists
// them). A template that names a metavariable the pattern does not bind,
// writes $X for the pattern's $$$X or the other way round, or uses $_ or
// $$$ (which capture nothing) is an error wrapping ErrBadTemplate that
// says what to write instead.
func ParseTemplate(tmpl string, bound []string) (*Template, error) {
	isBound := map[string]bool{}
	for _, b := range bound {
		isBound[b] = true
	}
	t := &Template{}
	seen := map[string]bool{}
	// Templates arrive with whatever line endings the writer had; Expand
	// writes the file's.
	raw := strings.Split(strings.ReplaceAll(tmpl, "\r\n", "\n"), "\n")
	for _, l := range raw {
		lead := leadingSpace(l)
		segs, err := splitRefs(l[len(lead):])
		if err != nil {
			return nil, err
		}
		for _, s := range segs {
			if s.ref == "" || seen[s.ref] {
				continue
			}
			if err := checkBound(s.ref, isBound, bound); err != nil {
				return nil, err
			}
			seen[s.ref] = true
			t.names = append(t.names, s.ref)
		}
		t.lines = append(t.lines, tline{indent: lead, segs: segs, blank: len(l) == len(lead)})
	}
	t.relativize()
	return t, nil
}

// Names lists the metavariables the template uses, with their sigils, in
// the order they first appear, each once.
func (t *Template) Names() []string {
	return append([]string(nil), t.names...)
}

// ref is a run of dollars and the name after it, if any.
var ref = regexp.MustCompile(`(\$+)([A-Za-z0-9_]*)`)

var metaName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// splitRefs cuts one line of a template into text and metavariable
// references.
func splitRefs(s string) ([]seg, error) {
	var segs []seg
	text := func(x string) {
		if n := len(segs); n > 0 && segs[n-1].ref == "" {
			segs[n-1].text += x
		} else if x != "" {
			segs = append(segs, seg{text: x})
		}
	}
	last := 0
	for _, m := range ref.FindAllStringSubmatchIndex(s, -1) {
		text(s[last:m[0]])
		last = m[1]
		dollars, name := m[3]-m[2], s[m[4]:m[5]]
		// As in a pattern, $$X is a '$' and then $X, and $$$$X a '$'
		// and then $$$X.
		sigil := "$"
		if dollars >= 3 {
			sigil = "$$$"
		}
		switch {
		case name == "" && dollars >= 3:
			return nil, fmt.Errorf("%w: `$$$` captures nothing, so a template cannot use it; name it in the pattern, e.g. $$$ARGS, and write that here", ErrBadTemplate)
		case !metaName.MatchString(name):
			text(s[m[0]:m[1]]) // $1, $x, ${, a shell's $$
		case name == "_":
			return nil, fmt.Errorf("%w: `%s_` captures nothing, so a template cannot use it; name it in the pattern, e.g. %sARG, and write that here", ErrBadTemplate, sigil, sigil)
		default:
			text(s[m[0] : m[3]-len(sigil)])
			segs = append(segs, seg{ref: sigil + name})
		}
	}
	text(s[last:])
	return segs, nil
}

// checkBound says what is wrong with a reference to a metavariable the
// pattern does not bind.
func checkBound(ref string, isBound map[string]bool, bound []string) error {
	if isBound[ref] {
		return nil
	}
	name := strings.TrimLeft(ref, "$")
	other := "$$$" + name
	kind := "a run of siblings"
	if strings.HasPrefix(ref, "$$$") {
		other, kind = "$"+name, "a single node"
	}
	if isBound[other] {
		return fmt.Errorf("%w: the template writes %s but the pattern binds %s, %s; write %s", ErrBadTemplate, ref, other, kind, other)
	}
	if len(bound) == 0 {
		return fmt.Errorf("%w: the template uses %s, but the pattern binds no metavariables; add %s to the pattern where it should capture, or write the text itself", ErrBadTemplate, ref, ref)
	}
	return fmt.Errorf("%w: the template uses %s, which the pattern does not bind; the pattern binds %s; use one of those or add %s to the pattern",
		ErrBadTemplate, ref, strings.Join(bound, ", "), ref)
}

// Expand returns the text that replaces src[m.StartByte:m.EndByte], src
// being the file m was found in.
//
// A single-line template is its text with the captures put in; nothing
// else changes. A multi-line template lands at the match's start: its
// first line's own leading whitespace is dropped, since the match's line
// has its indentation already, and each later line gets the indentation of
// the match's line plus the line's indentation within the template,
// written in the file's style (tabs, or its unit of spaces). A line that
// holds only $$$ captures that captured nothing is left out, and a final
// newline is dropped (a match never ends with one, unless it does).
// Lines the template introduces end as the file's first line does (CRLF
// or LF).
//
// A capture keeps its bytes but for the indentation of its later lines,
// which moves with it: by as much as the line it lands on is indented
// more or less than the line it started on in the file (for a $$$ moved
// between starting a line and following other text, a level less or
// more: see capture). Lines at column zero inside an indented capture
// stay there (they are a raw string's or a heredoc's content, or
// preprocessor lines), and no shift removes more than whitespace.
//
// It fails when m does not fit src (the file changed since the search),
// and, wrapping ErrBadTemplate, when the match has no capture for a name
// the template uses.
func (t *Template) Expand(src []byte, m structsearch.Match) (string, error) {
	if m.StartByte < 0 || m.StartByte > m.EndByte || m.EndByte > len(src) {
		return "", fmt.Errorf("astedit: the match at bytes %d-%d is not within the file's %d bytes", m.StartByte, m.EndByte, len(src))
	}
	if m.Text != "" && m.Text != string(src[m.StartByte:m.EndByte]) {
		return "", errors.New("astedit: the file no longer holds the text the search matched (it changed since); search again")
	}
	caps := map[string]structsearch.Capture{}
	for _, c := range m.Captures {
		if _, ok := caps[c.Name]; !ok {
			caps[c.Name] = c
		}
	}
	for _, name := range t.names {
		if _, ok := caps[name]; !ok {
			return "", fmt.Errorf("%w: the match captured nothing for %s: the pattern has it where it is no node of its own (inside a longer string, a comment); make it a whole node of the pattern",
				ErrBadTemplate, name)
		}
	}
	ls := lineStart(src, m.StartByte)
	x := &expander{src: src, m: m, caps: caps, pre: string(src[ls:m.StartByte])}
	x.base = leadingSpace(x.pre)

	lines := t.lines
	if n := len(lines); n > 1 && lines[n-1].blank && !bytes.HasSuffix(src[:m.EndByte], []byte("\n")) {
		lines = lines[:n-1]
	}
	first := true
	for _, l := range lines {
		if len(lines) > 1 && x.vanishes(l) {
			continue
		}
		switch {
		case first && len(lines) == 1:
			x.out.WriteString(l.indent)
		case !first:
			x.out.WriteString(x.style().nl)
			if l.blank {
				continue // no trailing whitespace
			}
			x.out.WriteString(x.base + x.convert(l.indent, t.unit))
		}
		first = false
		for _, s := range l.segs {
			if s.ref == "" {
				x.out.WriteString(s.text)
				continue
			}
			x.out.WriteString(x.capture(x.caps[s.ref]))
		}
	}
	return x.out.String(), nil
}

// expander is one expansion of a template at one match.
type expander struct {
	src  []byte
	m    structsearch.Match
	caps map[string]structsearch.Capture
	pre  string // the match's line up to the match
	base string // the match's line's indentation
	unit string // one level of the file's indentation; see style
	nl   string // the file's line ending
	out  strings.Builder
}

// vanishes says a line is nothing but $$$ captures that captured nothing
// (and whitespace): left in, it would be a blank line.
func (x *expander) vanishes(l tline) bool {
	refs := 0
	for _, s := range l.segs {
		switch {
		case s.ref != "":
			if x.caps[s.ref].Text != "" {
				return false
			}
			refs++
		case strings.TrimSpace(s.text) != "":
			return false
		}
	}
	return refs > 0
}

// capture is c's text, its later lines moved to where it lands: the end
// of the output so far.
func (x *expander) capture(c structsearch.Capture) string {
	text := c.Text
	if !strings.Contains(text, "\n") || c.StartByte < 0 || c.StartByte > c.EndByte || c.EndByte > len(x.src) {
		return text
	}
	// Where it was: the indentation of its first line, and whether it
	// began that line.
	ls := lineStart(x.src, c.StartByte)
	from := leadingSpace(string(x.src[ls:c.StartByte]))
	began := ls+len(from) == c.StartByte
	// Where it lands.
	out := x.out.String()
	line := x.pre + out
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		line = out[i+1:]
	}
	to := leadingSpace(line)
	begins := len(to) == len(line)
	// The later siblings of a $$$ stand level with its first when it
	// begins a line, and one level deeper than the line when it follows
	// other text (an argument list on its own lines, or after the
	// parenthesis). Moved from one to the other, they keep their place
	// relative to the landing line rather than to the first sibling.
	if strings.HasPrefix(c.Name, "$$$") && began != begins {
		if began {
			to += x.style().unit
		} else {
			from += x.style().unit
		}
	}
	if from == to {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines[1:] {
		ws := leadingSpace(l)
		switch {
		case strings.TrimRight(l[len(ws):], "\r") == "":
			// blank: left as it was
		case strings.HasPrefix(ws, from):
			lines[i+1] = to + l[len(from):]
		case ws == "":
			// column zero inside an indented capture: left as it was
		case strings.HasPrefix(to, from): // less indented than the first line
			lines[i+1] = to[len(from):] + l
		case strings.HasPrefix(from, to):
			lines[i+1] = l[min(len(from)-len(to), len(ws)):]
		}
	}
	return strings.Join(lines, "\n")
}
