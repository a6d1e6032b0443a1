package dapsession

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Result is what one op of a debug session did or found; which fields
// are set depends on Op. Paths are relative to the root, or
// absolute outside it (the Go runtime's sources).
type Result struct {
	Op string `json:"op"`
	// Session names what is debugged.
	Session string `json:"session"`
	// Adapter and TTL are a launch's debug adapter and time limit.
	Adapter string        `json:"adapter,omitempty"`
	TTL     time.Duration `json:"ttl_ns,omitempty"`
	// Cleared are the files breakpoints left without any.
	Cleared []string `json:"cleared,omitempty"`
	// Breakpoints are the ones refused (their line's text was not the
	// expected), then the session's, as the adapter took them (launch,
	// breakpoints).
	Breakpoints []ShownBreakpoint `json:"breakpoints,omitempty"`
	// Stop is where a launch or a step left the program.
	Stop *ShownStop `json:"stop,omitempty"`
	// Frames are inspect's stack, innermost first, and Scopes the
	// variables of Frames[Frame].
	Frames []Frame `json:"frames,omitempty"`
	Frame  int     `json:"frame,omitempty"`
	Scopes []Scope `json:"scopes,omitempty"`
	// Value is evaluate's answer.
	Value *Var `json:"value,omitempty"`
	// Output is what the program printed so far (output).
	Output string `json:"output,omitempty"`
	// Note says the workspace's configuration was skipped (a launch,
	// once a run).
	Note string `json:"note,omitempty"`
}

// ShownBreakpoint is a breakpoint as an answer shows it: its place, the
// text of its line, and, when cchub refused it, why.
type ShownBreakpoint struct {
	Breakpoint
	// Source is the text of the line it is at, trimmed.
	Source string `json:"source,omitempty"`
	// Refused says why it was not set: its line did not hold the
	// expected text; where that text is now.
	Refused string `json:"refused,omitempty"`
}

// ShownStop is where the program is: stopped with the source around it,
// still running, or ended with what it printed.
type ShownStop struct {
	Stop
	Source []SourceLine `json:"source,omitempty"`
	Output string       `json:"output,omitempty"` // ended: everything it printed
	// Logged is what logpoints printed since the previous answer.
	Logged string `json:"logged,omitempty"`
}

// SourceLine is one numbered line of a file.
type SourceLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// maxEndOutput is how much of an ended program's output its stop shows:
// the end, where a failure is.
const maxEndOutput = 4000

// Text is the answer for a model: where the program stopped with the
// source around it (a mark on the line), the stack and variables, a
// value, breakpoints as the adapter took them.
func (r *Result) Text() string {
	var b strings.Builder
	switch r.Op {
	case "launch":
		fmt.Fprintf(&b, "debugging %s with %s (ends by itself in %v; ttl_seconds=N at launch sets another limit)\n", r.Session, r.Adapter, r.TTL)
		if r.Note != "" {
			fmt.Fprintf(&b, "note: %s\n", r.Note)
		}
		writeBreakpoints(&b, r.Breakpoints)
		r.Stop.write(&b)
	case "terminate":
		fmt.Fprintf(&b, "debug session ended: %s and its adapter were stopped\n", r.Session)
	case "continue", "next", "step_in", "step_out", "pause":
		r.Stop.write(&b)
	case "breakpoints":
		for _, file := range r.Cleared {
			fmt.Fprintf(&b, "breakpoints of %s cleared\n", file)
		}
		writeBreakpoints(&b, r.Breakpoints)
	case "inspect":
		b.WriteString("stack:\n")
		for i, f := range r.Frames {
			mark := " "
			if i == r.Frame {
				mark = ">"
			}
			fmt.Fprintf(&b, "%s%d %s %s:%d\n", mark, i, f.Function, f.Path, f.Line)
		}
		for _, sc := range r.Scopes {
			fmt.Fprintf(&b, "%s:\n", strings.ToLower(sc.Name))
			for _, v := range sc.Vars {
				writeVar(&b, v, "  ")
			}
			if sc.More > 0 {
				fmt.Fprintf(&b, "  (and %d more)\n", sc.More)
			}
		}
	case "evaluate":
		writeVar(&b, *r.Value, "")
	case "output":
		if r.Output == "" {
			return "no output yet\n"
		}
		return r.Output
	}
	return b.String()
}

// writeBreakpoints lists breakpoints as the adapter took them, each
// with its line's text, or why cchub refused it.
func writeBreakpoints(b *strings.Builder, bps []ShownBreakpoint) {
	for _, bp := range bps {
		kind, place, how := "breakpoint", fmt.Sprintf("%s:%d", bp.Path, bp.Line), ""
		if bp.Function != "" {
			place = bp.Function
		}
		if bp.Log != "" {
			kind, how = "logpoint", fmt.Sprintf(" %q", bp.Log)
		}
		if bp.Condition != "" {
			how += " if " + bp.Condition
		}
		text := ""
		if bp.Source != "" {
			text = "  " + bp.Source
		}
		switch {
		case bp.Refused != "":
			fmt.Fprintf(b, "%s %s%s refused: %s\n", kind, place, how, bp.Refused)
		case !bp.Verified:
			msg := bp.Message
			if msg == "" {
				msg = "no code there"
			}
			if bp.Function != "" {
				text = ""
			}
			fmt.Fprintf(b, "%s %s%s rejected (%s)%s\n", kind, place, how, msg, text)
		case bp.Function != "" && bp.Path == "":
			fmt.Fprintf(b, "%s %s%s set; the stop there shows where it is\n", kind, place, how)
		case bp.Function != "":
			fmt.Fprintf(b, "%s %s%s set at %s:%d%s\n", kind, place, how, bp.Path, bp.Line, text)
		case bp.Actual != 0 && bp.Actual != bp.Line:
			fmt.Fprintf(b, "%s %s%s moved to %s:%d (the nearest with code)%s\n", kind, place, how, bp.Path, bp.Actual, text)
		default:
			fmt.Fprintf(b, "%s %s%s set%s\n", kind, place, how, text)
		}
	}
}

// write says where the program is, with the source around it.
func (st *ShownStop) write(b *strings.Builder) {
	switch {
	case st.Ended:
		code := "unknown"
		if st.ExitCode != nil {
			code = strconv.Itoa(*st.ExitCode)
		}
		fmt.Fprintf(b, "the program ended (exit code %s); its output:\n", code)
		out := st.Output
		if len(out) > maxEndOutput {
			out = "…" + out[len(out)-maxEndOutput:]
		}
		b.WriteString(out)
		if !strings.HasSuffix(out, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("terminate the session, or launch again after terminating it\n")
		return
	}
	if st.Logged != "" {
		b.WriteString("logpoints printed:\n" + st.Logged)
		if !strings.HasSuffix(st.Logged, "\n") {
			b.WriteByte('\n')
		}
	}
	if st.Running {
		fmt.Fprintf(b, "still running after %v: pause to see where it is, or wait with continue\n", answerWait)
		return
	}
	where := st.Path
	if where == "" {
		where = "?"
	}
	fmt.Fprintf(b, "stopped (%s) at %s:%d in %s\n", st.Reason, where, st.Line, st.Function)
	if st.Text != "" {
		fmt.Fprintf(b, "%s\n", st.Text)
	}
	for _, l := range st.Source {
		mark := " "
		if l.Line == st.Line {
			mark = ">"
		}
		fmt.Fprintf(b, "%s%d\t%s\n", mark, l.Line, l.Text)
	}
}

// writeVar writes a variable and its members, indented.
func writeVar(b *strings.Builder, v Var, indent string) {
	value := v.Value
	if len(value) > 200 {
		value = value[:197] + "..."
	}
	typ := ""
	if v.Type != "" {
		typ = " " + v.Type
	}
	fmt.Fprintf(b, "%s%s%s = %s\n", indent, v.Name, typ, value)
	for _, m := range v.Members {
		writeVar(b, m, indent+"  ")
	}
	if v.More > 0 {
		fmt.Fprintf(b, "%s  (and %d more)\n", indent, v.More)
	}
}
