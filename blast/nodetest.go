package blast

import "regexp"

func init() { registerJS(nodeTest) }

// nodeTest is node's own test runner, node --test: the files it is given
// with --test-name-pattern, a regular expression that node 20 matches
// against a test's own title (and later versions against its full name
// too). Its whole suite is the project's test script (which names the
// files node is to find).
var nodeTest = &jsFramework{
	name:    "node",
	script:  regexp.MustCompile(`\bnode\b[^|&;]*\s--test\b`),
	byName:  true,
	ownName: true,
	command: func(file, pattern string) string {
		if file == "" {
			return "npm test"
		}
		cmd := "node --test"
		if pattern != "" {
			cmd += " --test-name-pattern " + quoteAlways(pattern)
		}
		return cmd + " " + quoteAlways(file)
	},
}
