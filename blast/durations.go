package blast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Durations is a record of how long tests took in an earlier run: a
// `go test -json` stream, or a JUnit XML report (go-junit-report,
// pytest --junitxml, jest-junit, vitest's junit reporter). It gives a
// selection its expected time: each group's, and the share of the
// suite's.
type Durations struct {
	// tests holds each test's seconds by "classname\x00name": for go
	// test -json, the package's import path and the top-level test.
	tests map[string]float64
	// packages holds a Go package's whole run (its tests and their
	// setup), by import path, when the record says it.
	packages map[string]float64
	total    float64
}

// ParseDurations reads a record of an earlier run; its error says what
// it expected.
func ParseDurations(data []byte) (*Durations, error) {
	d := &Durations{tests: map[string]float64{}, packages: map[string]float64{}}
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return nil, errors.New("the durations file is empty; give the output of go test -json or a JUnit XML report")
	case trimmed[0] == '<':
		if err := d.junit(trimmed); err != nil {
			return nil, fmt.Errorf("the durations file is XML but not a JUnit report (%v); give the output of go test -json or a JUnit XML report", err)
		}
	case trimmed[0] == '{':
		if err := d.goJSON(trimmed); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("the durations file is neither go test -json output nor a JUnit XML report")
	}
	if len(d.tests) == 0 && len(d.packages) == 0 {
		return nil, errors.New("the durations file names no test that passed or failed")
	}
	return d, nil
}

func (d *Durations) goJSON(data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue // go test -json may carry the build's own lines
		}
		var ev struct {
			Action, Package, Test string
			Elapsed               float64
		}
		if err := json.Unmarshal(line, &ev); err != nil {
			return fmt.Errorf("line %d of the durations file is not a go test -json event: %v", n, err)
		}
		if ev.Action != "pass" && ev.Action != "fail" || ev.Package == "" {
			continue
		}
		switch {
		case ev.Test == "":
			d.packages[ev.Package] = ev.Elapsed
			d.total += ev.Elapsed
		case !strings.Contains(ev.Test, "/"):
			d.tests[ev.Package+"\x00"+ev.Test] = ev.Elapsed
		}
	}
	if d.total == 0 { // no package's own line: the tests' sum
		for _, s := range d.tests {
			d.total += s
		}
	}
	return sc.Err()
}

func (d *Durations) junit(data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	seen := false
	for {
		tok, err := dec.Token()
		if err != nil {
			if seen {
				return nil
			}
			if err.Error() == "EOF" {
				return errors.New("no <testcase>")
			}
			return err
		}
		el, ok := tok.(xml.StartElement)
		if !ok || el.Name.Local != "testcase" {
			continue
		}
		var class, name string
		var secs float64
		for _, a := range el.Attr {
			switch a.Name.Local {
			case "classname":
				class = a.Value
			case "name":
				name = a.Value
			case "time":
				secs, _ = strconv.ParseFloat(strings.ReplaceAll(a.Value, ",", ""), 64)
			}
		}
		seen = true
		d.tests[class+"\x00"+name] += secs
		d.total += secs
	}
}

// ApplyDurations gives each group its expected seconds, and sel the selected
// and the suite's, from what d records; a group it has no record of
// keeps none.
// The matrix's entries get theirs too.
func (sel *Selection) ApplyDurations(d *Durations) {
	sel.Time = d.apply(sel.Groups, sel.All != nil)
	for i := range sel.Matrix {
		if e := &sel.Matrix[i]; !e.Same {
			e.Time = d.apply(e.Groups, e.All != nil)
		}
	}
}

// apply gives each of groups its seconds, and returns their time.
func (d *Durations) apply(groups []TestGroup, all bool) *SelectionTime {
	t := &SelectionTime{Suite: round(d.total)}
	for i := range groups {
		g := &groups[i]
		if secs, ok := d.of(g); ok {
			v := round(secs)
			g.Seconds = &v
			t.Selected += secs
		} else {
			t.Unknown++
		}
	}
	if all {
		t.Selected = d.total
	}
	t.Selected = round(t.Selected)
	return t
}

func round(s float64) float64 { return float64(int64(s*1000+0.5)) / 1000 }

// of is what d records of group g.
func (d *Durations) of(g *TestGroup) (float64, bool) {
	switch {
	case g.Runner == "go" && g.importPath != "":
		if g.Whole {
			if s, ok := d.packages[g.importPath]; ok {
				return s, true
			}
			return d.sum(func(class, _ string) bool { return class == g.importPath })
		}
		return d.sum(func(class, name string) bool {
			return class == g.importPath && slices.Contains(g.Tests, name)
		})
	case g.Runner == "pytest":
		// JUnit from pytest: classname is the module, dotted, and the
		// class; name the function with its parameters.
		mod := strings.ReplaceAll(strings.TrimSuffix(g.File, ".py"), "/", ".")
		if g.File == "" {
			mod = strings.ReplaceAll(g.Dir, "/", ".")
		}
		if g.Whole {
			return d.sum(func(class, _ string) bool { return class == mod || strings.HasPrefix(class, mod+".") })
		}
		return d.sum(func(class, name string) bool {
			if class != mod && !strings.HasPrefix(class, mod+".") {
				return false
			}
			id := g.File + "::" + strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(class, mod), "."), ".", "::")
			if !strings.HasSuffix(id, "::") {
				id += "::"
			}
			base, _, _ := strings.Cut(name, "[")
			return slices.Contains(g.Tests, id+name) || slices.Contains(g.Tests, id+base)
		})
	}
	return 0, false
}

func (d *Durations) sum(match func(class, name string) bool) (float64, bool) {
	total, found := 0.0, false
	for k, s := range d.tests {
		class, name, _ := strings.Cut(k, "\x00")
		if match(class, name) {
			total += s
			found = true
		}
	}
	return total, found
}
