package blast

import "regexp"

func init() { registerJS(vitest) }

// vitest runs the files it is given (each a filter on their paths) with
// -t, a regular expression matched against a test's full name.
var vitest = &jsFramework{
	name:     "vitest",
	script:   regexp.MustCompile(`\bvitest\b`),
	configs:  []string{"vitest.config.ts", "vitest.config.mts", "vitest.config.cts", "vitest.config.js", "vitest.config.mjs", "vitest.config.cjs", "vitest.workspace.ts", "vitest.workspace.js", "vitest.workspace.json"},
	packages: []string{"vitest"},
	byName:   true,
	command: func(file, pattern string) string {
		cmd := "npx vitest run"
		if file != "" {
			cmd += " " + quoteAlways(file)
		}
		if pattern != "" {
			cmd += " -t " + quoteAlways(pattern)
		}
		return cmd
	},
}
