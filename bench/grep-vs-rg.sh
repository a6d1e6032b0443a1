#!/usr/bin/env bash
# grep-vs-rg.sh — time cchub's grep (locate.Grep) against ripgrep on the same
# patterns over the same tree, and check both find the same matching lines.
#
#   bench/grep-vs-rg.sh [DIR]        DIR defaults to $(go env GOROOT)/src
#
# Environment: RUNS (timed runs per command, default 10; the median is
# shown), MAX_RATIO (if set, exit 1 when cchub/rg exceeds it), NO_HYPERFINE
# (if set, time with the shell loop even when hyperfine is installed).
#
# Both tools are asked the same question:
#   - counts are matching LINES: rg -c per file, summed; cchub's Total counts
#     a line with two matches once, as rg -c does;
#   - the same files: cchub honours .gitignore files (nested ones too) inside
#     the root whether or not it is a git checkout, reads hidden files, and
#     skips .git and .cchub. So rg gets --hidden (it skips dotfiles by
#     default), --no-require-git (it ignores .gitignore outside a git repo by
#     default), --no-ignore-parent (cchub reads no .gitignore above the root),
#     --no-ignore-global and --no-ignore-dot (cchub reads neither the global
#     excludes file nor .ignore/.rgignore), --no-config;
#   - binary files (a NUL byte) are skipped by both. ripgrep stops at the
#     first NUL anywhere, cchub looks at the first 8 KiB, so on trees with NUL
#     bytes deep inside text files the counts could differ; GOROOT has none.
#   - symlinked files: cchub reads those that resolve inside the root, rg
#     does not follow symlinks; GOROOT/src has none.
#   - \w, \d and \b are ASCII in Go's RE2 syntax and Unicode in ripgrep, so
#     the patterns here keep to cases where that makes no difference.
#
# With the token index (NO_INDEX skips this): DIR is copied (mtimes kept)
# and `cchub index` run in the copy. Then, first, the one-shot CLI
# `cchub grep --limit 1` in the copy (whole processes, as above), which
# reads the index's pack and skips the files it says cannot match; then
# each pattern is asked RUNS+1 times of one `cchub mcp` on the copy
# through the repository's MCP client (the TypeScript SDK), which holds
# the index in memory and walks the workspace from memory while its file
# watcher vouches for it; the median of the calls after the first (the
# call's whole round trip) is set against rg's whole process in the same
# copy. Every total stated must be rg's count.
#
# Timing is of whole processes (startup included) for both: hyperfine when
# it is installed, otherwise a loop of RUNS runs after one warm-up in which
# the two tools' runs alternate; the median either way.
set -euo pipefail

cd "$(dirname "$0")/.."
DIR=${1:-$(go env GOROOT)/src}
RUNS=${RUNS:-10}

if ! command -v rg >/dev/null; then
	echo "grep-vs-rg: ripgrep (rg) is not on PATH; 'make bench' unpacks the pinned one into .tools/bin" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/grepbench" ./bench/grepbench

RG_FLAGS=(--hidden --no-require-git --no-ignore-parent --no-ignore-global --no-ignore-dot --no-config)

# flags|pattern; flags apply to both tools (-i: ignore case, -F: literal).
PATTERNS=(
	'|ErrAbortHandler'
	'|func '
	'|func \(\w+ \*\w+\) Serve'
	'-i|content-type'
	'|\w+_test\b'
	'|[A-Z]{3}[0-9]{3}'
)

HYPERFINE=$(command -v hyperfine || true)
. bench/timing.sh

# row ENTRY DIR COUNT — times rg on DIR against CC_CMD (the caller's,
# built by the function named by CMD from fl and pat) for the flags|pattern
# ENTRY, checks that COUNT (a function printing cchub's matching lines)
# agrees with rg's, and prints the row.
row() {
	local entry=$1 dir=$2 cmd=$3 count=$4
	flags=${entry%%|*}
	pat=${entry#*|}
	fl=()
	[ -n "$flags" ] && fl=("$flags")
	local rg_count cc_count rg_ms cc_ms ratio equal label
	rg_count=$(rg -c "${RG_FLAGS[@]}" "${fl[@]}" -- "$pat" "$dir" | awk -F: '{s += $NF} END {print s+0}')
	cc_count=$("$count")
	PEER_CMD=(rg -c "${RG_FLAGS[@]}" "${fl[@]}" -- "$pat" "$dir")
	"$cmd"
	read -r rg_ms cc_ms <<<"$(pair_ms)"
	ratio=$(awk -v a="$cc_ms" -v b="$rg_ms" 'BEGIN {printf "%.2f", a/b}')
	equal=yes
	if [ "$rg_count" != "$cc_count" ]; then
		equal=NO
		status=1
	fi
	if [ -n "${MAX_RATIO:-}" ] && awk -v r="$ratio" -v m="$MAX_RATIO" 'BEGIN {exit !(r > m)}'; then
		equal="$equal (ratio over $MAX_RATIO)"
		status=1
	fi
	label=$pat
	[ -n "$flags" ] && label="$flags $pat"
	printf '%-28s %10s %10s %8s %10s %10s  %s\n' "$label" "$rg_ms" "$cc_ms" "$ratio" "$rg_count" "$cc_count" "$equal"
}

# The matcher alone (grepbench: locate.Grep), on DIR.
plain_cmd() { CC_CMD=("$tmp/grepbench" "${fl[@]}" -- "$pat" "$DIR"); }
plain_count() { "$tmp/grepbench" "${fl[@]}" -- "$pat" "$DIR" | sed -n 's/^matches=\([0-9]*\).*/\1/p'; }
# The one-shot CLI in the indexed copy.
cli_cmd() { CC_CMD=("$CCHUB" grep --limit 1 "${fl[@]}" --root "$tmp/tree" -- "$pat"); }
cli_count() { "$CCHUB" grep --limit 1 "${fl[@]}" --root "$tmp/tree" -- "$pat" | sed -n '1s/^Found \([0-9,]*\) match.*/\1/p' | tr -d , | sed 's/^$/0/'; }
# The warm hub's calls, from the ms file written below: the median of
# each pattern's calls after its first, and the total its answer states.
mcp_row() {
	local entry=$1 label rg_count rg_ms cc_ms cc_count ratio equal
	flags=${entry%%|*}
	pat=${entry#*|}
	fl=()
	[ -n "$flags" ] && fl=("$flags")
	rg_count=$(rg -c "${RG_FLAGS[@]}" "${fl[@]}" -- "$pat" "$tmp/tree" | awk -F: '{s += $NF} END {print s+0}')
	PEER_CMD=(rg -c "${RG_FLAGS[@]}" "${fl[@]}" -- "$pat" "$tmp/tree")
	CC_CMD=(true)
	read -r rg_ms _ <<<"$(pair_ms)"
	read -r cc_ms cc_count < <(python3 - "$tmp/mcp.out" "$entry" "$RUNS" <<'EOF2'
import json, re, statistics, sys
out, entry, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [json.loads(l) for l in open(out) if l.strip()]
i = [json.loads(l) for l in open(out + ".order")].index(entry)
mine = rows[i * (runs + 1):(i + 1) * (runs + 1)]
m = re.search(r"Found ([0-9,]+) match", mine[-1].get("text", ""))
total = m.group(1).replace(",", "") if m else "0"
print(statistics.median(r["ms"] for r in mine[1:]), total)
EOF2
	)
	ratio=$(awk -v a="$cc_ms" -v b="$rg_ms" 'BEGIN {printf "%.2f", a/b}')
	equal=yes
	if [ "$rg_count" != "$cc_count" ]; then
		equal=NO
		status=1
	fi
	label=$pat
	[ -n "$flags" ] && label="$flags $pat"
	printf '%-28s %10s %10s %8s %10s %10s  %s\n' "$label" "$rg_ms" "$cc_ms" "$ratio" "$rg_count" "$cc_count" "$equal"
}

echo "tree: $DIR ($(rg --files "${RG_FLAGS[@]}" "$DIR" | wc -l) files seen by rg); $(nproc) CPUs; $RUNS runs each; $(rg --version | head -1)"
printf '%-28s %10s %10s %8s %10s %10s  %s\n' pattern "rg ms" "cchub ms" ratio "rg lines" "cchub" "equal?"
status=0
for entry in "${PATTERNS[@]}"; do
	row "$entry" "$DIR" plain_cmd plain_count
done

CCHUB=$PWD/.tools/bin/cchub
MCP_CLIENT=${MCP_CLIENT:-$PWD/mcpserver/testdata/mcp-client/client.mjs}
if [ -z "${NO_INDEX:-}" ] && [ -d "$(dirname "$MCP_CLIENT")/node_modules" ]; then
	go build -o "$CCHUB" ./cmd/cchub
	cp -a "$DIR" "$tmp/tree"
	t0=$(date +%s%N)
	"$CCHUB" index --root "$tmp/tree" >"$tmp/index.txt" 2>/dev/null
	t1=$(date +%s%N)
	python3 - "$RUNS" "$tmp/mcp.out.order" "${PATTERNS[@]}" >"$tmp/calls.json" <<'EOF2'
import json, sys
runs, order, entries = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
calls = []
with open(order, "w") as f:
    for e in entries:
        f.write(json.dumps(e) + "\n")
        flags, pat = e.split("|", 1)
        args = {"pattern": pat, "limit": 1}
        if flags == "-i":
            args["ignore_case"] = True
        calls += [{"tool": "grep", "args": args}] * (runs + 1)
print(json.dumps(calls))
EOF2
	echo
	echo "with the token index, one-shot cchub grep (whole processes): cchub index of a copy took $(( (t1 - t0) / 1000000 )) ms: $(tail -1 "$tmp/index.txt")"
	printf '%-28s %10s %10s %8s %10s %10s  %s\n' pattern "rg ms" "cchub ms" ratio "rg lines" "cchub" "equal?"
	for entry in "${PATTERNS[@]}"; do
		row "$entry" "$tmp/tree" cli_cmd cli_count
	done
	node "$MCP_CLIENT" "$tmp/calls.json" -- "$CCHUB" mcp --root "$tmp/tree" >"$tmp/mcp.out" 2>/dev/null
	echo
	echo "with the token index, in a warm cchub mcp (ms: one call's round trip)"
	printf '%-28s %10s %10s %8s %10s %10s  %s\n' pattern "rg ms" "mcp ms" ratio "rg lines" "cchub" "equal?"
	for entry in "${PATTERNS[@]}"; do
		mcp_row "$entry"
	done
fi
exit $status
