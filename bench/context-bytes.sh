#!/usr/bin/env bash
# context-bytes.sh — what the agent's tools cost a model's context, measured
# through a real MCP client (the TypeScript SDK in mcpserver/testdata/mcp-client)
# on real files: Go's net/http/server.go and Python's argparse.py.
#
# Two tasks per file, each ending in one edit inside one method:
#   outline → read_symbol → edit   (the agent does not know the name yet)
#   read_symbol → edit             (it does)
# and the bytes of every answer, as a share of the file's own bytes.
#
# usage: bench/context-bytes.sh   (make bench runs it; needs .tools/bin/cchub
# and the client's node_modules, which make bench installs)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CCHUB:-$PWD/.tools/bin/cchub}
client=$PWD/mcpserver/testdata/mcp-client/client.mjs
goroot=$(go env GOROOT)
pystd=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/ws/net/http"
cp "$goroot/src/net/http/server.go" "$tmp/ws/net/http/server.go"
cp "$pystd/argparse.py" "$tmp/ws/argparse.py"

# task FILE SYMBOL OLD NEW: runs both tasks on a fresh copy and prints a
# line per call and the totals.
task() {
	local file=$1 sym=$2 old=$3 new=$4
	python3 - "$file" "$sym" "$old" "$new" >"$tmp/script.json" <<'PY'
import json, sys
f, sym, old, new = sys.argv[1:]
edit = {"tool": "edit", "args": {"path": f, "old_string": old, "new_string": new}}
undo = {"tool": "edit", "args": {"path": f, "old_string": new, "new_string": old}}
print(json.dumps([
    {"tool": "outline", "args": {"path": f}},
    {"tool": "read_symbol", "args": {"id": f + ":" + sym}},
    edit, undo,
    {"tool": "read_symbol", "args": {"id": f + ":" + sym}},
    edit,
]))
PY
	local size
	size=$(wc -c <"$tmp/ws/$file")
	node "$client" "$tmp/script.json" -- "$bin" mcp --root "$tmp/ws" >"$tmp/out.jsonl"
	python3 - "$tmp/ws/$file" "$tmp/out.jsonl" "$size" <<'PY'
import json, os, sys
size = int(sys.argv[3])
steps = [json.loads(l) for l in open(sys.argv[2])]
for s in steps:
    if s.get("isError"):
        sys.exit(f"step {s['step']} ({s.get('tool')}) failed: {s['text'][:300]}")
b = [len(s["text"].encode()) for s in steps]
pct = lambda n: f"{100*n/size:.1f}%"
print(f"{os.path.basename(sys.argv[1])}: {size} bytes")
print(f"  outline {b[0]} B ({pct(b[0])}), read_symbol {b[1]} B, edit {b[2]} B")
print(f"  outline → read_symbol → edit: {b[0]+b[1]+b[2]} B = {pct(b[0]+b[1]+b[2])} of the file")
print(f"  read_symbol → edit (name known): {b[4]+b[5]} B = {pct(b[4]+b[5])} of the file")
PY
}

task net/http/server.go Server.Shutdown $'\ts.inShutdown.Store(true)\n\n\ts.mu.Lock()' $'\ts.inShutdown.Store(true) // no new connections from here on\n\n\ts.mu.Lock()'
task argparse.py ArgumentParser.parse_known_args $'        if args is None:\n            # args default to the system args' $'        if args is None:\n            # no args given: the command line'
