package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	copies "cchub/bench/corpus"
)

// edit is one change, made as an agent makes it: one place in one file,
// old text replaced by new. Kind says which of the ways agents err it
// stands for.
type edit struct {
	Kind, Path, Old, New string
}

// undo is the edit that takes e back.
func undo(e edit) edit {
	return edit{Kind: "undo " + e.Kind, Path: e.Path, Old: e.New, New: e.Old}
}

// corpus is one language's project and the edits made on it, in order.
type corpus struct {
	Lang   string // go, py, ts
	Server string // the server cchub runs for it
	// make copies the project into dir (empty), as it is before the
	// first edit (seeds included), and readies it for its checker.
	make  func(ctx context.Context, dir string) error
	check checker
	seeds []edit // applied once, before anything runs: problems that were there before
	edits []edit
	// warm is an lsp call that makes the server load the project.
	warm map[string]any
}

// sequence builds the usual run of edits from the first five: a
// comment-only edit (in a file with problems that were there before), a
// signature change that breaks callers in other files, a fix of one
// caller, an edit adding a second copy of an error already present, an
// import removed that is still used; then each undone, latest first,
// the signature's undo before its fix's (so the fixed caller breaks the
// other way), and the comment's last.
func sequence(comment, sig, fix, dup, imp edit) []edit {
	comment.Kind, sig.Kind, fix.Kind, dup.Kind, imp.Kind = "comment only", "signature change", "fix a caller", "second copy of an error", "remove a used import"
	return []edit{comment, sig, fix, dup, imp, undo(imp), undo(dup), undo(sig), undo(fix), undo(comment)}
}

func corpora(tools string) []*corpus {
	lsp := filepath.Join(tools, "lsp", "node_modules", ".bin")
	return []*corpus{
		{
			Lang: "go", Server: "gopls",
			make:  makeGo,
			check: checkGo(filepath.Join(tools, "bin", "gopls")),
			seeds: []edit{{Kind: "a vet warning", Path: "doc/md_docs.go",
				Old: "const markdownExtension = \".md\"\n",
				New: "const markdownExtension = \".md\"\n\nfunc debugName(cmd *cobra.Command) string {\n\treturn fmt.Sprintf(\"%d\", cmd.Name())\n}\n"}},
			edits: sequence(
				edit{Path: "doc/md_docs.go", Old: "const markdownExtension = \".md\"\n", New: "// markdownExtension is the suffix of generated pages.\nconst markdownExtension = \".md\"\n"},
				edit{Path: "cobra.go", Old: "func stringInSlice(a string, list []string) bool {", New: "func stringInSlice(a string, list []string, fold bool) bool {"},
				edit{Path: "args.go", Old: "if !stringInSlice(v, validArgs) {", New: "if !stringInSlice(v, validArgs, false) {"},
				edit{Path: "command_test.go", Old: "if stringInSlice(f.Name, names) {", New: "if stringInSlice(f.Name, names) && stringInSlice(names[i], names) {"},
				edit{Path: "command.go", Old: "\t\"sort\"\n\t\"strings\"\n\n\tflag", New: "\t\"sort\"\n\n\tflag"},
			),
			warm: map[string]any{"op": "workspace_symbols", "path": "command.go", "query": "stringInSlice"},
		},
		{
			Lang: "py", Server: "pyright",
			make:  makePython,
			check: checkPython(filepath.Join(lsp, "pyright")),
			edits: sequence(
				edit{Path: "jwt/algorithms.py", Old: "def get_default_algorithms():\n", New: "# The algorithms this module offers, by name.\ndef get_default_algorithms():\n"},
				edit{Path: "jwt/utils.py", Old: "def base64url_decode(input: Union[str, bytes]) -> bytes:", New: "def base64url_decode(input: Union[str, bytes], padded: bool) -> bytes:"},
				edit{Path: "jwt/api_jws.py", Old: "header_data = base64url_decode(header_segment)", New: "header_data = base64url_decode(header_segment, True)"},
				edit{Path: "jwt/algorithms.py", Old: "RSASSA-PKCS-v1_5 and the specified hash function.\n        \"\"\"\n\n        SHA256 = hashes.SHA256\n", New: "RSASSA-PKCS-v1_5 and the specified hash function.\n        \"\"\"\n\n        SHA256 = hashes.SHA256\n        SHA224 = hashes.SHA224\n"},
				edit{Path: "jwt/api_jwt.py", Old: "import json\nimport warnings\n", New: "import warnings\n"},
			),
			warm: map[string]any{"op": "workspace_symbols", "path": "jwt/utils.py", "query": "base64url_decode"},
		},
		{
			Lang: "ts", Server: "typescript-language-server",
			make:  makeTS,
			check: checkTS(filepath.Join(lsp, "tsc"), "tsconfig.json"),
			edits: sequence(
				edit{Path: "src/utils/errors.ts", Old: "export function die(error: number", New: "// die throws the error numbered error.\nexport function die(error: number"},
				edit{Path: "src/utils/common.ts", Old: "export function isFrozen(obj: any): boolean {", New: "export function isFrozen(obj: any, deep: boolean): boolean {"},
				edit{Path: "src/core/current.ts", Old: "if (!isDraftable(value) || isFrozen(value)) return value", New: "if (!isDraftable(value) || isFrozen(value, false)) return value"},
				edit{Path: "src/utils/errors.ts", Old: "\t\t: []\n", New: "\t\t: []\n\nexport const benchMode = process.env.NODE_ENV\n"},
				edit{Path: "src/core/proxy.ts", Old: "\tshallowCopy,\n\tlatest,\n", New: "\tshallowCopy,\n"},
			),
			warm: map[string]any{"op": "workspace_symbols", "path": "src/utils/common.ts", "query": "isFrozen"},
		},
		{
			// JavaScript checked by TypeScript (checkJs): a parameter
			// removed breaks the calls that pass it, in the other files.
			Lang: "js", Server: "typescript-language-server",
			make:  makeJS,
			check: checkTS(filepath.Join(lsp, "tsc"), "jsconfig.json"),
			edits: sequence(
				edit{Path: "lib/stringify.js", Old: "var arrayPrefixGenerators = {", New: "// How each arrayFormat names an element.\nvar arrayPrefixGenerators = {"},
				edit{Path: "lib/utils.js", Old: "var maybeMap = function maybeMap(val, fn) {\n", New: "var maybeMap = function maybeMap(val) {\n    var fn = String;\n"},
				edit{Path: "lib/stringify.js", Old: "obj = utils.maybeMap(obj, encoder);", New: "obj = utils.maybeMap(obj);"},
				edit{Path: "lib/stringify.js", Old: "var utils = require('./utils');\n", New: "var utils = require('./utils');\nvar sideChannelAgain = require('side-channel');\n"},
				edit{Path: "lib/parse.js", Old: "var utils = require('./utils');\n\nvar has = ", New: "var has = "},
			),
			warm: map[string]any{"op": "workspace_symbols", "path": "lib/utils.js", "query": "maybeMap"},
		},
	}
}

// apply makes e on the file under root, as a plain read, replace and
// write; the old text must occur exactly once.
func apply(root string, e edit) error {
	p := filepath.Join(root, filepath.FromSlash(e.Path))
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if n := strings.Count(string(b), e.Old); n != 1 {
		return fmt.Errorf("edit %q of %s: its old text occurs %d times, not once: the corpus no longer matches its edits", e.Kind, e.Path, n)
	}
	return os.WriteFile(p, []byte(strings.Replace(string(b), e.Old, e.New, 1)), 0o644)
}

// The projects, pinned.
const (
	goModule   = "github.com/spf13/cobra@v1.10.2"
	pyDeb      = "python3-jwt" // PyJWT, as Debian ships it
	tsPackage  = "immer@10.1.1"
	jsPackage  = "qs@6.13.0"
	jsConfig   = `{"compilerOptions":{"checkJs":true,"noEmit":true,"target":"es2020","module":"commonjs","lib":["es2020"]},"include":["lib"]}` + "\n"
	tsTSConfig = `{"compilerOptions":{"strict":true,"noEmit":true,"target":"es2020","module":"esnext","moduleResolution":"node","lib":["es2020","dom"],"skipLibCheck":true},"include":["src"]}` + "\n"
)

// makeGo copies cobra from the module cache (downloading it through the
// module proxy when it is not there) and its dependencies.
func makeGo(ctx context.Context, dir string) error {
	out, err := run(ctx, os.TempDir(), nil, "go", "mod", "download", "-json", goModule)
	if err != nil {
		return err
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return fmt.Errorf("go mod download %s: %s%s: the benchmark needs the Go module proxy or a module cache that has it", goModule, m.Error, out)
	}
	if err := copies.CopyTree(m.Dir, dir, copies.Copy{Skip: func(rel string, d fs.DirEntry) bool { return d.IsDir() && (rel == "site" || rel == "assets") }}); err != nil {
		return err
	}
	if out, err := run(ctx, dir, nil, "go", "mod", "download"); err != nil {
		return fmt.Errorf("go mod download in the copy of %s: %v %s", goModule, err, out)
	}
	return nil
}

// pyDir is where PyJWT is: Debian's package, pinned, unpacked into the
// tools directory (fetchPy).
var pyDir string

const pyDebVersion = "2.6.0-1+deb12u1"

// fetchPy unpacks python3-jwt into tools/deb (once), fetched with
// apt-get download into tools/debs; without it, an installed
// python3-jwt is used.
func fetchPy(ctx context.Context, tools string) string {
	dir := filepath.Join(tools, "deb", "usr", "lib", "python3", "dist-packages", "jwt")
	if fileExists(filepath.Join(dir, "api_jwt.py")) {
		return dir
	}
	debs := filepath.Join(tools, "debs")
	os.MkdirAll(debs, 0o755)
	spec := pyDeb + "=" + pyDebVersion
	find := func() []string { m, _ := filepath.Glob(filepath.Join(debs, pyDeb+"_*.deb")); return m }
	if len(find()) == 0 {
		if run(ctx, debs, nil, "apt-get", "download", spec); len(find()) == 0 {
			run(ctx, debs, nil, "apt-get", "update", "-qq")
			run(ctx, debs, nil, "apt-get", "download", spec)
		}
	}
	if m := find(); len(m) > 0 {
		run(ctx, debs, nil, "dpkg", "-x", m[0], filepath.Join(tools, "deb"))
	}
	if fileExists(filepath.Join(dir, "api_jwt.py")) {
		return dir
	}
	if sys := "/usr/lib/python3/dist-packages/jwt"; fileExists(filepath.Join(sys, "api_jwt.py")) {
		return sys
	}
	return ""
}

func makePython(ctx context.Context, dir string) error {
	if pyDir == "" {
		return fmt.Errorf("PyJWT not found: apt-get download %s=%s failed (is apt-get there?); apt-get install %s works too", pyDeb, pyDebVersion, pyDeb)
	}
	if err := copies.CopyTree(pyDir, filepath.Join(dir, "jwt"), copies.Copy{Skip: func(rel string, d fs.DirEntry) bool { return d.Name() == "__pycache__" }}); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte("[project]\nname = \"jwt\"\nversion = \"2.6.0\"\n"), 0o644)
}

// tsDir is immer's unpacked npm package (its src/ is TypeScript).
var tsDir string

func makeTS(ctx context.Context, dir string) error {
	if err := copies.CopyTree(filepath.Join(tsDir, "src"), filepath.Join(dir, "src"), copies.Copy{}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(tsTSConfig), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"immer-src","version":"10.1.1","private":true}`+"\n"), 0o644)
}

// fetchTS unpacks immer's npm package into cache (once) with npm pack.
func fetchTS(ctx context.Context, cache string) (string, error) {
	return npmUnpack(ctx, cache, tsPackage, "immer-10.1.1", "src/immer.ts")
}

// jsDir is qs's unpacked npm package (its lib/ is JavaScript).
var jsDir string

func makeJS(ctx context.Context, dir string) error {
	if err := copies.CopyTree(filepath.Join(jsDir, "lib"), filepath.Join(dir, "lib"), copies.Copy{}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "jsconfig.json"), []byte(jsConfig), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"qs-lib","version":"6.13.0","private":true}`+"\n"), 0o644)
}

// fetchJS unpacks qs's npm package into cache (once) with npm pack.
func fetchJS(ctx context.Context, cache string) (string, error) {
	return npmUnpack(ctx, cache, jsPackage, "qs-6.13.0", "lib/utils.js")
}

// npmUnpack unpacks npm package pkg (name@version) into cache/base,
// once: npm pack fetches base.tgz (unless a run left it), tar unpacks
// it; probe, a file the package holds, says it is there.
func npmUnpack(ctx context.Context, cache, pkg, base, probe string) (string, error) {
	dir := filepath.Join(cache, base)
	if fileExists(filepath.Join(dir, probe)) {
		return dir, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tgz := base + ".tgz"
	if !fileExists(filepath.Join(cache, tgz)) {
		if out, err := run(ctx, cache, nil, "npm", "pack", pkg, "--silent"); err != nil || !fileExists(filepath.Join(cache, tgz)) {
			return "", fmt.Errorf("npm pack %s: %v %s: the benchmark needs the npm registry once", pkg, err, out)
		}
	}
	os.MkdirAll(dir, 0o755)
	if out, err := run(ctx, cache, nil, "tar", "xzf", tgz, "-C", dir, "--strip-components=1"); err != nil || !fileExists(filepath.Join(dir, probe)) {
		return "", fmt.Errorf("unpack %s: %v %s", pkg, err, out)
	}
	return dir, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
