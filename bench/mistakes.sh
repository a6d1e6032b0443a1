#!/usr/bin/env bash
# mistakes.sh — the mistakes models make most with these tools, sent
# through a real MCP client (the TypeScript SDK in mcpserver/testdata/mcp-client)
# to `cchub mcp` on a copy of the bundled Go workspace. For each: whether the
# answer was an error, its size, whether it names a call to make next, and
# its first line. A result that is not an error (an id without a line,
# reading a whole big file, a symbol without its file) is the mistake no
# longer being one. (mcpserver's TestMCPUsualMistakesTeachACallThatWorks runs the
# named calls and checks that they succeed.)
#
# usage: bench/mistakes.sh   (make bench runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CCHUB:-$PWD/.tools/bin/cchub}
client=$PWD/mcpserver/testdata/mcp-client/client.mjs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r testdata/workspaces/go "$tmp/ws"
python3 -c 'import sys; sys.stdout.write("package main\n" + "".join("// generated line %d of a long file, long enough to need more than one page of output\n" % i for i in range(1, 5001)))' >"$tmp/ws/big.go"

python3 - "$tmp/names.json" >"$tmp/script.json" <<'PY'
import json, sys
diff = "--- a/store/store.go\n+++ b/store/store.go\n@@ -58 +58 @@\n-func New(name string) *Store {\n+func New(name string) *Store { // new\n"
steps = [
    ("misspelled path", "read", {"path": "store/stroe.go"}),
    ("wrong-case symbol", "read_symbol", {"id": "store/store.go:store.add"}),
    ("stale line", "read_symbol", {"id": "store/store.go:61:New"}),
    ("id without line", "read_symbol", {"id": "store/store.go:Store.Remove"}),
    ("regex with an unescaped paren", "grep", {"pattern": "Add("}),
    ("old_string absent", "edit", {"path": "store/store.go", "old_string": "func (s *Store) Delete(sku string) error {", "new_string": "x"}),
    ("old_string three times", "edit", {"path": "store/store.go", "old_string": "s.mu.Lock()", "new_string": "s.mu.RLock()"}),
    ("reading a whole big file", "read", {"path": "big.go"}),
    ("unparsable pattern", "search", {"pattern": "if $X != { return", "lang": "go"}),
    ("wrong language", "search", {"pattern": "def $F($$$A):\n    return $X", "lang": "go"}),
    ("(read before the change)", "read", {"path": "store/persist.go", "limit": 3}),
    ("(the file changes on disk)", "exec", "printf '\\n// touched elsewhere\\n' >> store/persist.go"),
    ("file changed since read", "edit", {"path": "store/persist.go", "old_string": "touched elsewhere", "new_string": "touched"}),
    ("offset past the end", "read", {"path": "store/store.go", "offset": 500}),
    ("wrong field name", "read", {"file_path": "store/store.go"}),
    ("unknown field", "read", {"path": "store/store.go", "encoding": "utf-8"}),
    ("unified diff to apply_patch", "apply_patch", {"patch": diff}),
    ("symbol without its file", "read_symbol", {"id": "Store.Remove"}),
    ("old_string misremembered", "edit", {"path": "store/store.go", "old_string": "func (s *Store) Remove(id string) error {\n\ts.mu.Lock()\n\tif _, ok := s.items[id]; !ok {\n\t\treturn fmt.Errorf(\"%w: %s\", ErrNotFound, id)\n\t}\n\tdelete(s.items, id)\n", "new_string": "x"}),
    ("severity misspelled", "diagnostics", {"severity": "errors"}),
    ("(read before the shell moves code)", "read", {"path": "pricing/pricing.go"}),
    ("(the shell adds lines above)", "exec", "sed -i '1a // added by the shell\\n// and another line' pricing/pricing.go"),
    ("lsp at a place gone stale", "lsp", {"op": "references", "path": "pricing/pricing.go", "line": 24, "column": 6}),
    ("breakpoint with stale text", "debug", {"op": "launch", "breakpoints": [{"at": "main.go:19", "text": "s := store.New(\"main street\")"}]}),
]
script = []
for name, tool, args in steps:
    if tool == "exec":
        script.append({"exec": args})
        continue
    script.append({"tool": tool, "args": args, "raw": True})
print(json.dumps(script))
json.dump([s[0] for s in steps], open(sys.argv[1], "w"))
PY

(cd "$tmp/ws" && node "$client" "$tmp/script.json" -- "$bin" mcp --root . >"$tmp/out.jsonl")

python3 - "$tmp/names.json" "$tmp/out.jsonl" <<'PY'
import json, re, sys
names = json.load(open(sys.argv[1]))
call = re.compile(r"\b(glob|grep|read|outline|read_symbol|edit|search|lsp|diagnostics|graph|resolve|debug)( [a-z_]+=\S+)+|literal: true|did you mean|replace_all|lang=\w+|\*\*\* Begin Patch|use \S+:\d+")
print(f"{'mistake':32} {'answer':6} {'bytes':>6}  {'next step':14}  first line")
for name, line in zip(names, open(sys.argv[2])):
    s = json.loads(line)
    if "tool" not in s or name.startswith("("):
        continue
    text = s["text"]
    kind = "error" if s.get("isError") else "ok"
    teaches = "(answered)" if not s.get("isError") else "names a call" if call.search(text) else "where it broke" if "syntax error at" in text else "NONE"
    first = text.splitlines()[0] if text else ""
    print(f"{name:32} {kind:6} {len(text.encode()):6}  {teaches:14}  {first[:100]}")
PY
