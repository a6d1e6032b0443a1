package blast

import (
	"encoding/json"
	"io"
	"net/url"
	"strings"
)

// The SARIF 2.1.0 form: one run of the tool "cchub", a rule per status, a
// result per changed definition. Only what a reader of the format needs
// is written; blast/testdata holds the OASIS schema the tests check it
// against.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	FullDescription      sarifMessage `json:"fullDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifMessage    `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties map[string]any  `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine int `json:"startLine"`
			EndLine   int `json:"endLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

var sarifRules = []struct {
	status, name, short, full, level string
}{
	{StatusModified, "ModifiedDefinition", "A definition's lines changed",
		"A function, method or type that is in both revisions had lines changed; the message says how many definitions call it, directly or not, and how many of those are tests.", "note"},
	{StatusAdded, "AddedDefinition", "A definition was added",
		"A function, method or type is only in the head revision.", "note"},
	{StatusRemoved, "RemovedDefinition", "A definition was removed",
		"A function, method or type of the base revision is gone from head (deleted, renamed, or its file deleted); calls that still name it will break.", "warning"},
	{StatusMoved, "MovedDefinition", "A definition moved to another file",
		"A function, method or type was removed from one file and added to another under the same name.", "note"},
}

// WriteSARIF writes the report as a SARIF 2.1.0 log, complete: one result
// per changed definition, at its place in head (a removed one at the line
// of head where it was, or at its place in base when its file is gone).
func (r *Report) WriteSARIF(w io.Writer) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "cchub"}}, Results: []sarifResult{}}
	index := map[string]int{}
	for i, sr := range sarifRules {
		rule := sarifRule{ID: "blast/" + sr.status, Name: sr.name,
			ShortDescription: sarifMessage{sr.short}, FullDescription: sarifMessage{sr.full}}
		rule.DefaultConfiguration.Level = sr.level
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule)
		index[sr.status] = i
	}
	for _, c := range r.Changed {
		level := "note"
		if c.breaks() {
			level = "warning"
		}
		var loc sarifLocation
		path, start, end := c.Path, c.StartLine, c.EndLine
		if c.RemovedAt != nil {
			path, start, end = c.RemovedAt.Path, c.RemovedAt.StartLine, c.RemovedAt.EndLine
		}
		loc.PhysicalLocation.ArtifactLocation.URI = relativeURI(path)
		loc.PhysicalLocation.ArtifactLocation.URIBaseID = "%SRCROOT%"
		loc.PhysicalLocation.Region.StartLine = max(start, 1)
		loc.PhysicalLocation.Region.EndLine = max(end, start, 1)
		run.Results = append(run.Results, sarifResult{
			RuleID:    "blast/" + c.Status,
			RuleIndex: index[c.Status],
			Level:     level,
			Message:   sarifMessage{c.sentence(r.MaxDepth)},
			Locations: []sarifLocation{loc},
			Properties: map[string]any{
				"qualifiedName": c.QualifiedName,
				"kind":          c.Kind,
				"reached":       c.Reached,
				"callers":       c.Callers,
				"testsReached":  c.TestsReached,
			},
		})
	}
	log := sarifLog{
		Schema:  "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// relativeURI is a workspace path as a relative URI reference: escaped,
// and never mistaken for a scheme ("a:b.go" is written "./a:b.go").
func relativeURI(path string) string {
	u := (&url.URL{Path: path}).EscapedPath()
	first, _, _ := strings.Cut(u, "/")
	if strings.Contains(first, ":") {
		u = "./" + u
	}
	return u
}
