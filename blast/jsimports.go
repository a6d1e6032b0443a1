package blast

import (
	"path"
	"strings"

	"cchub/lang"
)

// jsImporters maps each JavaScript or TypeScript file of head to the
// files that import it: relative specifiers resolved as the graph
// resolves them (./a is a.ts, a.tsx, …, or a/index.ts; ./a.js may name
// a.ts), and others (a path alias, a package of the workspace) matched
// generously, by the tail of the file's path without extension.
func jsImporters(head files) map[string][]string {
	exists := func(p string) bool {
		f := head[p]
		return f != nil && lang.Family(f.Language) == lang.JavaScript
	}
	resolve := func(base string) string {
		if exists(base) {
			return base
		}
		stem := base
		if lang.NameOf(base) == lang.JavaScript {
			stem = strings.TrimSuffix(base, path.Ext(base))
		}
		for _, c := range append(lang.ModuleCandidates(stem), lang.ModuleCandidates(base+"/index")...) {
			if exists(c) {
				return c
			}
		}
		return ""
	}
	// byTail: a path without extension (and without /index), and each of
	// its tails → the files.
	byTail := map[string][]string{}
	for p, f := range head {
		if lang.Family(f.Language) != lang.JavaScript {
			continue
		}
		stem := strings.TrimSuffix(p, path.Ext(p))
		stem = strings.TrimSuffix(stem, "/index")
		parts := strings.Split(stem, "/")
		for i := range parts {
			t := strings.Join(parts[i:], "/")
			byTail[t] = append(byTail[t], p)
		}
	}
	out := map[string][]string{}
	for p, f := range head {
		if lang.Family(f.Language) != lang.JavaScript {
			continue
		}
		seen := map[string]bool{}
		for _, imp := range f.Imports {
			_, spec, ok := strings.Cut(imp.Target, " from ")
			if !ok || spec == "" {
				continue
			}
			var targets []string
			if strings.HasPrefix(spec, ".") {
				if t := resolve(path.Join(path.Dir(p), spec)); t != "" {
					targets = []string{t}
				}
			} else {
				// @/utils/math, ~/lib/x, src/lib/x, the package itself
				// (zod/v3): every file whose path ends as the specifier
				// does, or as the longest of its tails that one does.
				tail := spec
				if lang.FamilyOf(spec) == lang.JavaScript {
					tail = strings.TrimSuffix(tail, path.Ext(tail))
				}
				tail = strings.TrimLeft(tail, "@~#/")
				for tail != "" && len(targets) == 0 {
					targets = byTail[tail]
					_, tail, _ = strings.Cut(tail, "/")
				}
			}
			for _, t := range targets {
				if t != p && !seen[t] {
					seen[t] = true
					out[t] = append(out[t], p)
				}
			}
		}
	}
	return out
}
