package blast

import "regexp"

func init() { registerJS(jest) }

// jest runs the files its arguments match (regular expressions on their
// paths) with -t, a regular expression matched against a test's full
// name.
var jest = &jsFramework{
	name:     "jest",
	script:   regexp.MustCompile(`\bjest\b`),
	configs:  []string{"jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "jest.config.json"},
	key:      "jest",
	packages: []string{"jest", "ts-jest", "babel-jest"},
	byName:   true,
	command: func(file, pattern string) string {
		cmd := "npx jest"
		if file != "" {
			cmd += " " + quoteAlways(file)
		}
		if pattern != "" {
			cmd += " -t " + quoteAlways(pattern)
		}
		return cmd
	},
}
