package codegraph

import (
	"crypto/sha256"
	"encoding/json"
	"path"
	"sort"
	"strings"
)

// TypeScript's project files: a tsconfig.json (or jsconfig.json) says
// where a bare module specifier leads, through compilerOptions.paths
// (aliases, "@/*" → "src/*") and baseUrl, and may extend other
// configurations. A file's configuration is the nearest one above it,
// as tsserver finds it. Only files named tsconfig*.json or
// jsconfig*.json are read, so a configuration extended under another
// name (base.json, a package's) adds nothing.

// tsconfigLanguage is the File.Language of a TypeScript configuration.
const tsconfigLanguage = "tsconfig"

// isTSConfig says whether rel is a TypeScript or JavaScript project
// configuration: tsconfig.json, jsconfig.json, or a variant that others
// extend (tsconfig.base.json).
func isTSConfig(rel string) bool {
	b := path.Base(rel)
	return strings.HasSuffix(b, ".json") && (strings.HasPrefix(b, "tsconfig") || strings.HasPrefix(b, "jsconfig"))
}

// tsconfigFile is what the graph keeps of a configuration, as imports:
// "extends" (one per configuration extended), "baseUrl", and "paths
// PATTERN" whose target is the pattern's substitutions, one a line. A
// configuration that does not parse keeps nothing.
func tsconfigFile(rel string, src []byte) *File {
	f := &File{Path: rel, Language: tsconfigLanguage, hash: sha256.Sum256(src)}
	var c struct {
		Extends         json.RawMessage `json:"extends"`
		CompilerOptions struct {
			BaseURL *string             `json:"baseUrl"`
			Paths   map[string][]string `json:"paths"`
		} `json:"compilerOptions"`
	}
	if json.Unmarshal(jsonc(src), &c) != nil {
		return f
	}
	var ext []string
	if json.Unmarshal(c.Extends, &ext) != nil {
		var one string
		if json.Unmarshal(c.Extends, &one) == nil && one != "" {
			ext = []string{one}
		}
	}
	for _, e := range ext {
		f.Imports = append(f.Imports, Import{Alias: "extends", Target: e})
	}
	if b := c.CompilerOptions.BaseURL; b != nil {
		f.Imports = append(f.Imports, Import{Alias: "baseUrl", Target: *b})
	}
	patterns := make([]string, 0, len(c.CompilerOptions.Paths))
	for p := range c.CompilerOptions.Paths {
		patterns = append(patterns, p)
	}
	sort.Strings(patterns)
	for _, p := range patterns {
		f.Imports = append(f.Imports, Import{Alias: "paths " + p, Target: strings.Join(c.CompilerOptions.Paths[p], "\n")})
	}
	return f
}

// jsonc is src, JSON with comments and trailing commas as tsconfig files
// are written, made plain JSON: comments blanked, a comma before a
// closing bracket dropped.
func jsonc(src []byte) []byte {
	out := make([]byte, 0, len(src))
	lastComma := -1 // where a comma waits for what follows it
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				j = len(src) - 1
			}
			out = append(out, src[i:j+1]...)
			i, lastComma = j, -1
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(string(src[i+2:]), "*/")
			if end < 0 {
				return out
			}
			i += end + 3
			out = append(out, ' ')
		case c == ',':
			lastComma = len(out)
			out = append(out, c)
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
			out = append(out, c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			out = append(out, c)
		default:
			lastComma = -1
			out = append(out, c)
		}
	}
	return out
}

// tsOptions is a configuration's module resolution, its extended ones'
// merged in: baseUrl and the directory that paths are relative to, both
// workspace-relative.
type tsOptions struct {
	baseURL  string // "" when none is set
	hasBase  bool
	paths    []Import // "paths PATTERN" imports
	pathsDir string   // the directory of the configuration that set paths
}

// maxExtends bounds a chain of configurations extending each other.
const maxExtends = 8

// tsConfigOf is the configuration that governs the file at rel: the
// nearest tsconfig.json or jsconfig.json in its directory or above.
func (r *resolver) tsConfigOf(rel string) *tsOptions {
	if r.tsConfigs == nil {
		r.tsConfigs = map[string]*tsOptions{}
	}
	dir := path.Dir(rel)
	if o, ok := r.tsConfigs[dir]; ok {
		return o
	}
	var o *tsOptions
	for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
		if p := path.Join(dir, name); r.files[p] != nil && r.files[p].Language == tsconfigLanguage {
			o = r.tsOptions(p, 0)
			break
		}
	}
	if o == nil && dir != "." && dir != "/" {
		o = r.tsConfigOf(dir)
	}
	r.tsConfigs[dir] = o
	return o
}

// tsOptions reads the configuration at p and those it extends.
func (r *resolver) tsOptions(p string, depth int) *tsOptions {
	f := r.files[p]
	o := &tsOptions{}
	if f == nil || depth > maxExtends {
		return o
	}
	dir := path.Dir(p)
	for _, imp := range f.Imports {
		if imp.Alias != "extends" {
			continue
		}
		// A package's configuration (@tsconfig/node20) is not the
		// workspace's to read; a relative one is.
		if !strings.HasPrefix(imp.Target, "./") && !strings.HasPrefix(imp.Target, "../") {
			continue
		}
		base := path.Join(dir, imp.Target)
		if r.files[base] == nil && r.files[base+".json"] != nil {
			base += ".json"
		}
		b := r.tsOptions(base, depth+1)
		if b.hasBase {
			o.baseURL, o.hasBase = b.baseURL, true
		}
		if b.paths != nil {
			o.paths, o.pathsDir = b.paths, b.pathsDir
		}
	}
	var paths []Import
	for _, imp := range f.Imports {
		switch {
		case imp.Alias == "baseUrl":
			o.baseURL, o.hasBase = path.Join(dir, imp.Target), true
		case strings.HasPrefix(imp.Alias, "paths "):
			paths = append(paths, imp)
		}
	}
	if paths != nil {
		o.paths, o.pathsDir = paths, dir
	}
	return o
}

// jsAliased is the workspace file a bare specifier names through the
// configuration of the file from: a paths pattern (the longest prefix
// matching wins, its substitutions tried in order), then baseUrl.
func (r *resolver) jsAliased(from, spec string) string {
	o := r.tsConfigOf(from)
	if o == nil {
		return ""
	}
	base := o.pathsDir
	if o.hasBase {
		base = o.baseURL
	}
	best, star, bestLen := -1, "", -1
	for i, imp := range o.paths {
		pat := strings.TrimPrefix(imp.Alias, "paths ")
		pre, suf, wild := strings.Cut(pat, "*")
		if !wild {
			if pat == spec { // an exact pattern is taken before any wildcard
				best, star = i, ""
				break
			}
			continue
		}
		if len(pre) > bestLen && len(spec) >= len(pre)+len(suf) && strings.HasPrefix(spec, pre) && strings.HasSuffix(spec, suf) {
			best, star, bestLen = i, spec[len(pre):len(spec)-len(suf)], len(pre)
		}
	}
	if best >= 0 {
		for _, t := range strings.Split(o.paths[best].Target, "\n") {
			if p := r.jsFile(path.Join(base, strings.Replace(t, "*", star, 1))); p != "" {
				return p
			}
		}
	}
	if o.hasBase {
		return r.jsFile(path.Join(o.baseURL, spec))
	}
	return ""
}
