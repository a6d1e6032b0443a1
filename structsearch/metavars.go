package structsearch

import "context"

// Metavars lists the metavariables a pattern captures, with their sigils
// ("$X", "$$$ARGS"), in the order they first appear, each once. $_ and
// $$$ capture nothing and are left out. $X and $$$X are different
// metavariables to the matcher (each binds on its own), so a pattern that
// writes both lists both.
//
// It reads the pattern's text the way Compile does, without parsing it in
// any language, so a rewrite can check its template against the pattern
// before searching; a pattern Compile would refuse whatever the language
// (a lower-case name, a metavariable glued to an identifier, an empty
// pattern) is the same error wrapping ErrBadPattern. A name written where
// the grammar sees no node of its own, such as inside a longer string
// (`"$HOME/bin"`), is listed although it captures nothing there.
func Metavars(pattern string) ([]string, error) {
	if _, err := prepare(newSteps(context.Background()), pattern); err != nil {
		return nil, err
	}
	var names []string
	seen := map[string]bool{}
	for _, m := range metaRef.FindAllStringSubmatch(pattern, -1) {
		multi, name := m[1] != "", m[2]
		if name == "" || name == "_" {
			continue // a lone '$' is the language's own; $_ and $$$ capture nothing
		}
		full := "$" + name
		if multi {
			full = "$$$" + name
		}
		if !seen[full] {
			seen[full] = true
			names = append(names, full)
		}
	}
	return names, nil
}
