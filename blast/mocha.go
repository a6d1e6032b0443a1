package blast

import "regexp"

func init() { registerJS(mocha) }

// mocha runs the files it is given with --grep, a regular expression
// matched against a test's full title.
var mocha = &jsFramework{
	name:     "mocha",
	script:   regexp.MustCompile(`\bmocha\b`),
	configs:  []string{".mocharc.js", ".mocharc.cjs", ".mocharc.yaml", ".mocharc.yml", ".mocharc.json", ".mocharc.jsonc"},
	key:      "mocha",
	packages: []string{"mocha"},
	byName:   true,
	command: func(file, pattern string) string {
		cmd := "npx mocha"
		if file != "" {
			cmd += " " + quoteAlways(file)
		}
		if pattern != "" {
			cmd += " --grep " + quoteAlways(pattern)
		}
		return cmd
	},
}
