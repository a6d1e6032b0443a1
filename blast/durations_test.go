package blast

import (
	"os/exec"
	"strings"
	"testing"
)

// A record of a real go test -json run gives each group of a selection
// its expected time, and the selection its share of the suite's.
func TestDurationsFromGoTestJSON(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	env := goRunEnv(t)
	r := newTestsRepo(t)
	cmd := exec.Command("go", "test", "-count=1", "-json", "./...")
	cmd.Dir, cmd.Env = r.dir, env
	record, err := cmd.Output()
	if err != nil {
		t.Fatalf("go test -json: %v\n%s", err, record)
	}
	d, err := ParseDurations(record)
	if err != nil {
		t.Fatal(err)
	}
	s := r.selectOn("timed", func() { r.edit("store/store.go", "t += n", "t += n * 1") })
	s.ApplyDurations(d)
	if s.Time == nil || s.Time.Suite <= 0 || s.Time.Selected > s.Time.Suite || s.Time.Unknown != 0 {
		t.Fatalf("time: %+v\n%s", s.Time, selJSON(t, s))
	}
	for _, g := range s.Groups {
		if g.Runner == "go" && g.Seconds == nil {
			t.Errorf("group %s has no time though the record ran it", g.Command)
		}
	}
	var b strings.Builder
	s.WriteText(&b, "x")
	if !strings.Contains(b.String(), "expected time: ") || !strings.Contains(b.String(), "of the suite's") {
		t.Errorf("the text says no time:\n%s", b.String())
	}
	if !strings.Contains(selJSON(t, s), `"suite_seconds"`) {
		t.Errorf("the JSON says no time:\n%s", selJSON(t, s))
	}
}

// A JUnit report (pytest's: the module dotted, the class, the test with
// its parameters) times pytest groups, one by one and whole; what is
// not a record is refused with what to give.
func TestDurationsFromJUnit(t *testing.T) {
	junit := `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.test_a.TestX" name="test_y" time="1.5"/>
<testcase classname="tests.test_a" name="test_z[1-2]" time="0.25"/>
<testcase classname="tests.test_a" name="test_z[3-4]" time="0.25"/>
<testcase classname="tests.sub.test_b" name="test_w" time="2"><failure message="x"/></testcase>
</testsuite></testsuites>`
	d, err := ParseDurations([]byte(junit))
	if err != nil {
		t.Fatal(err)
	}
	sel := &Selection{Groups: []TestGroup{
		{Runner: "pytest", Dir: "tests", File: "tests/test_a.py", Tests: []string{"tests/test_a.py::TestX::test_y", "tests/test_a.py::test_z"}},
		{Runner: "pytest", Dir: "tests/sub", Whole: true},
		{Runner: "go", Dir: "x", Tests: []string{"TestQ"}},
	}}
	sel.ApplyDurations(d)
	if g := sel.Groups[0]; g.Seconds == nil || *g.Seconds != 2 {
		t.Errorf("one by one: %v, want 2", g.Seconds)
	}
	if g := sel.Groups[1]; g.Seconds == nil || *g.Seconds != 2 {
		t.Errorf("a whole directory: %v, want 2", g.Seconds)
	}
	if sel.Groups[2].Seconds != nil || sel.Time.Unknown != 1 || sel.Time.Suite != 4 || sel.Time.Selected != 4 {
		t.Errorf("time: %+v, go group %v", sel.Time, sel.Groups[2].Seconds)
	}
	for _, bad := range []string{"", "   ", "not a record", "<html><body/></html>", `{"Action":`} {
		if _, err := ParseDurations([]byte(bad)); err == nil || !strings.Contains(err.Error(), "go test -json") {
			t.Errorf("ParseDurations(%q): %v", bad, err)
		}
	}
}

// FuzzParseDurations: any bytes give a record or an error, never a
// panic, and a record times a selection.
func FuzzParseDurations(f *testing.F) {
	f.Add([]byte(`{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.5}` + "\n" + `{"Action":"pass","Package":"p","Elapsed":1}`))
	f.Add([]byte(`<testsuite><testcase classname="a.b" name="t[x]" time="1,000.5"/></testsuite>`))
	f.Add([]byte("<"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDurations(data)
		if err != nil {
			return
		}
		sel := &Selection{Groups: []TestGroup{{Runner: "go", importPath: "p", Tests: []string{"TestA"}}, {Runner: "pytest", File: "a.py", Whole: true}}}
		sel.ApplyDurations(d)
		if sel.Time == nil {
			t.Fatal("a record gave no time")
		}
	})
}
