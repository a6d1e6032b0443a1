package blast

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema compiles the OASIS SARIF 2.1.0 schema from testdata, with
// formats (uri, uri-reference, date-time) asserted.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	const id = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validSARIF(t *testing.T, sch *jsonschema.Schema, data []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(inst)
}

func TestBlastSARIF(t *testing.T) {
	sch := sarifSchema(t)
	r := newRepo(t)
	rep := r.scenario("sarif", func() {
		r.edit("store/store.go", "t += n", "t += n * 1")        // modified
		r.edit("report/report.go", "func Print(", "func Prnt(") // renamed: one removed, one added
		r.edit("main.go", "report.Print(s)", "report.Print(s) // still calls it")
		r.git("rm", "-q", "tools/stats.py") // a file deleted: its functions removed
		r.git("mv", "store/store_test.go", "store/my store_test.go")
		r.edit("store/my store_test.go", `s.Add("a", 1)`, `s.Add("a", 1) // renamed and edited`)
	})
	var out bytes.Buffer
	if err := rep.WriteSARIF(&out); err != nil {
		t.Fatal(err)
	}
	if err := validSARIF(t, sch, out.Bytes()); err != nil {
		t.Fatalf("the SARIF form is not valid SARIF 2.1.0: %v\n%s", err, out.String())
	}

	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
							EndLine   int `json:"endLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "cchub" {
		t.Fatalf("log: version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if len(run.Results) != len(rep.Changed) {
		t.Fatalf("%d results for %d changed definitions", len(run.Results), len(rep.Changed))
	}
	byMessage := map[string]string{}
	for i, res := range run.Results {
		c := rep.Changed[i]
		if rules := run.Tool.Driver.Rules; res.RuleIndex >= len(rules) || rules[res.RuleIndex].ID != res.RuleID || res.RuleID != "blast/"+c.Status {
			t.Errorf("result %d: rule %s at index %d; status %s", i, res.RuleID, res.RuleIndex, c.Status)
		}
		loc := res.Locations[0].PhysicalLocation
		if loc.Region.StartLine < 1 || loc.Region.EndLine < loc.Region.StartLine {
			t.Errorf("result %d: region %+v", i, loc.Region)
		}
		byMessage[c.QualifiedName] = res.Level + " " + loc.ArtifactLocation.URI + " " + res.Message.Text
	}
	for name, want := range map[string]string{
		"Total":   "note store/store.go Total (func) modified. It reaches 3 definitions within 3 calls, 1 test among them.",
		"TestAdd": "note store/my%20store_test.go TestAdd (func) modified.",
		// Print is gone, but main still calls it: a warning, at the
		// line of head where it was.
		"Print": "warning report/report.go Print (func) removed, but 1 caller(s) still call it and will break. It reaches 1 definition within 3 calls.",
		"Prnt":  "note report/report.go Prnt (func) added.",
		"mean":  "note tools/stats.py mean (func) removed (base tools/stats.py:1-2); nothing in head calls it.",
	} {
		if got := byMessage[name]; !strings.HasPrefix(got, want) {
			t.Errorf("%s: %q; want %q", name, got, want)
		}
	}

	// The check has teeth: the same log with a line 0 or without its
	// version is refused.
	for _, broken := range []string{
		strings.Replace(out.String(), `"startLine": `, `"startLine": 0, "x": `, 1),
		strings.Replace(out.String(), `"version": "2.1.0",`, ``, 1),
	} {
		if validSARIF(t, sch, []byte(broken)) == nil {
			t.Errorf("a broken log passed the schema:\n%.400s", broken)
		}
	}
}
