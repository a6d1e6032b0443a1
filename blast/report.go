package blast

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"cchub/codegraph"
)

// SchemaVersion is the version of the JSON form of a Report. It changes
// when a field changes meaning or goes away; new fields may be added to
// version 1.
const SchemaVersion = 1

// Report is the blast radius of a diff: the definitions it changed and
// the definitions that call them, up to a depth. Its JSON form
// (cchub blast --format json) is a stable schema, version 1:
//
//	{
//	  "version": 1,
//	  "base": {"ref": "origin/main", "commit": "<full id>"},
//	  "head": {"ref": "HEAD", "commit": "<full id>", "working_tree": false},
//	  "max_depth": 3,
//	  "min_confidence": "possible",
//	  "changed": [Changed, …],
//	  "reached": [Reached, …],
//	  "files": ["path", …],
//	  "tests": [Test, …],
//	  "notes": ["…", …],
//	  "evidence": {"exact": 3, "name-only": 1, …},
//	  "confirmation": {"asked": 4, "confirmed": 1, "refuted": 2, "unconfirmed": "…"},
//	  "summary": Summary
//	}
//
// evidence counts the reached definitions by the evidence of their path;
// confirmation is there only with --confirm.
//
// head is {"ref": "", "commit": "", "working_tree": true} when the diff is
// against the working tree. Every list is present (empty, never null) and
// complete: the JSON form is never cut. Paths are relative to the
// workspace root, with "/"; lines are 1-based and inclusive.
//
// A Definition is
//
//	{"name": "Get", "qualified_name": "Store.Get", "kind": "method",
//	 "language": "go", "path": "store/store.go", "start_line": 10,
//	 "end_line": 24, "test": false}
//
// Changed is a Definition (its place in head; in base when removed) and
//
//	"status":        "modified" | "added" | "removed" | "moved"
//	"was":           {"path", "start_line", "end_line"}: where a moved one was in base; absent otherwise
//	"removed_at":    {"path", "start_line", "end_line"}: the line of head where a removed one's lines were;
//	                 absent when its file is gone (and for other statuses)
//	"reached":       how many definitions it reaches (changed ones among them)
//	"callers":       how many of those call it directly (for a removed one: the calls that still name it)
//	"tests_reached": how many of those are tests
//
// Reached is a Definition and
//
//	"distance":   calls away from the nearest changed definition, 1 = a direct caller
//	"confidence": the least sure edge on the path: "confirmed" | "exact" | "import" | "name-only" | "possible"
//	"via":        qualified names from the changed definition to this one
//
// Test is a Definition and its "distance" (0: a changed test). Summary is
//
//	{"changed", "modified", "added", "removed", "moved", "reached", "files", "tests"}
//
// counts: "changed" is the number of changed definitions of every status;
// "files" counts the files that hold reached definitions.
type Report struct {
	Version       int       `json:"version"`
	Base          Revision  `json:"base"`
	Head          Revision  `json:"head"`
	MaxDepth      int       `json:"max_depth"`
	MinConfidence string    `json:"min_confidence"`
	Changed       []Changed `json:"changed"`
	Reached       []Reached `json:"reached"`
	Files         []string  `json:"files"`
	Tests         []Test    `json:"tests"`
	Notes         []string  `json:"notes"`
	Summary       Summary   `json:"summary"`
	// Evidence counts the reached definitions by the evidence of their
	// paths (confirmed, exact, import, name-only, possible).
	Evidence map[string]int `json:"evidence"`
	// Confirmation is what the language server was asked and answered
	// (Options.Confirm; absent otherwise).
	Confirmation *Confirmation `json:"confirmation,omitempty"`
	// Selection is the tests to run (Options.Tests; nil otherwise): a
	// form of its own (WriteTestsJSON), not part of this one.
	Selection *Selection `json:"-"`
}

// Confirmation is what a run asked the language server: edges asked
// about (each once), confirmed and refuted (left out), and why some went
// unanswered.
type Confirmation struct {
	Asked       int    `json:"asked"`
	Confirmed   int    `json:"confirmed"`
	Refuted     int    `json:"refuted"`
	Unconfirmed string `json:"unconfirmed,omitempty"`
	verdicts    map[string]string
}

// wrap is confirm, counted in c.
func (c *Confirmation) wrap(confirm codegraph.Confirmer) codegraph.Confirmer {
	return func(ctx context.Context, es []codegraph.Edge) ([]string, string) {
		vs, note := confirm(ctx, es)
		for i, e := range es {
			if i < len(vs) {
				id := fmt.Sprintf("%s:%d:%d>", e.Path, e.Line, e.Col)
				if e.Callee != nil {
					id += e.Callee.Path + ":" + e.Callee.Qual()
				}
				c.verdicts[id] = vs[i]
			}
		}
		if note != "" {
			c.Unconfirmed = note
		}
		return vs, note
	}
}

// finish puts c's counts into rep (nothing for a nil c).
func (c *Confirmation) finish(rep *Report) {
	if c == nil || rep == nil {
		return
	}
	c.Asked = len(c.verdicts)
	for _, v := range c.verdicts {
		switch v {
		case codegraph.Confirmed:
			c.Confirmed++
		case codegraph.Refuted:
			c.Refuted++
		}
	}
	rep.Confirmation = c
}

// Revision is one side of the diff: the ref as given and the commit it
// named, or the working tree.
type Revision struct {
	Ref         string `json:"ref"`
	Commit      string `json:"commit"`
	WorkingTree bool   `json:"working_tree"`
}

// Definition is a function, method or type, where it is.
type Definition struct {
	Name          string `json:"name"`
	QualifiedName string `json:"qualified_name"`
	Kind          string `json:"kind"`
	Language      string `json:"language"`
	Path          string `json:"path"`
	StartLine     int    `json:"start_line"`
	EndLine       int    `json:"end_line"`
	Test          bool   `json:"test"`
}

// Place is a line range of a file.
type Place struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

// Changed is a definition the diff changed and how far it reaches.
type Changed struct {
	Definition
	Status       string `json:"status"`
	Was          *Place `json:"was,omitempty"`
	RemovedAt    *Place `json:"removed_at,omitempty"`
	Reached      int    `json:"reached"`
	Callers      int    `json:"callers"`
	TestsReached int    `json:"tests_reached"`
	// sureCallers is how many callers reach it through exact or import
	// edges: a removed definition's such callers will break.
	sureCallers int
}

// Reached is a definition that calls a changed one, directly or not.
type Reached struct {
	Definition
	Distance   int      `json:"distance"`
	Confidence string   `json:"confidence"`
	Via        []string `json:"via"`
}

// Test is a test function among the changed and reached definitions.
type Test struct {
	Definition
	Distance int `json:"distance"`
}

// Summary counts what the report lists.
type Summary struct {
	Changed  int `json:"changed"`
	Modified int `json:"modified"`
	Added    int `json:"added"`
	Removed  int `json:"removed"`
	Moved    int `json:"moved"`
	Reached  int `json:"reached"`
	Files    int `json:"files"`
	Tests    int `json:"tests"`
}

func definition(d codegraph.Def) Definition {
	return Definition{Name: d.Name, QualifiedName: d.Qual(), Kind: d.Kind, Language: d.Language,
		Path: d.Path, StartLine: d.Start, EndLine: d.End, Test: codegraph.RunsAsTest(d)}
}

// newReport puts changes and their radius into a report.
func newReport(base, head Revision, depth int, minConfidence string, cs []Change, r radius) *Report {
	if minConfidence == "" {
		minConfidence = codegraph.Possible
	}
	rep := &Report{Version: SchemaVersion, Base: base, Head: head, MaxDepth: depth, MinConfidence: minConfidence,
		Changed: []Changed{}, Reached: []Reached{}, Files: []string{}, Tests: []Test{}, Notes: []string{}, Evidence: map[string]int{}}
	for i, c := range cs {
		ch := Changed{Definition: definition(c.Def), Status: c.Status, Reached: len(r.perChange[i])}
		ch.RemovedAt = c.RemovedAt
		if c.Was != nil {
			ch.Was = &Place{Path: c.Was.Path, StartLine: c.Was.Start, EndLine: c.Was.End}
		}
		for _, re := range r.perChange[i] {
			if re.Distance == 1 {
				ch.Callers++
				if codegraph.Rank(re.Confidence) <= codegraph.Rank(codegraph.Imported) {
					ch.sureCallers++
				}
			}
			if codegraph.RunsAsTest(re.Def) {
				ch.TestsReached++
			}
		}
		rep.Changed = append(rep.Changed, ch)
		switch c.Status {
		case StatusModified:
			rep.Summary.Modified++
		case StatusAdded:
			rep.Summary.Added++
		case StatusRemoved:
			rep.Summary.Removed++
		case StatusMoved:
			rep.Summary.Moved++
		}
		if codegraph.RunsAsTest(c.Def) && c.Status != StatusRemoved {
			rep.Tests = append(rep.Tests, Test{Definition: definition(c.Def)})
		}
	}
	files := map[string]bool{}
	for _, re := range r.reached {
		rep.Reached = append(rep.Reached, Reached{Definition: definition(re.Def), Distance: re.Distance, Confidence: re.Confidence, Via: re.Via})
		rep.Evidence[re.Confidence]++
		files[re.Def.Path] = true
		if codegraph.RunsAsTest(re.Def) {
			rep.Tests = append(rep.Tests, Test{Definition: definition(re.Def), Distance: re.Distance})
		}
	}
	for f := range files {
		rep.Files = append(rep.Files, f)
	}
	sort.Strings(rep.Files)
	rep.Notes = append(rep.Notes, r.notes...)
	rep.Summary.Changed = len(rep.Changed)
	rep.Summary.Reached = len(rep.Reached)
	rep.Summary.Files = len(rep.Files)
	rep.Summary.Tests = len(rep.Tests)
	return rep
}

// WriteJSON writes the report's JSON form, complete, indented.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
