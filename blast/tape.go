package blast

import "regexp"

func init() { registerJS(tape) }

// tape's test files are programs: node runs one, whole (tape takes no
// names). Its whole suite is the project's test script.
var tape = &jsFramework{
	name:     "tape",
	script:   regexp.MustCompile(`\btape\b`),
	packages: []string{"tape"},
	command: func(file, _ string) string {
		if file == "" {
			return "npm test"
		}
		return "node " + quoteAlways(file)
	},
}
