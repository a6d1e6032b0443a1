#!/usr/bin/env bash
# search-vs-astgrep.sh — time cchub's structural search against ast-grep on
# the same patterns over the same trees, and compare what each finds.
#
#   bench/search-vs-astgrep.sh [GO_DIR [PY_DIR]]
#
# GO_DIR defaults to $(go env GOROOT)/src, PY_DIR to Python's standard
# library (sysconfig's "stdlib" path; with pyenv it holds site-packages too).
#
# Environment: RUNS (timed runs per command, default 5; the median is
# shown), SHOW (examples printed per difference, default 2), NO_HYPERFINE
# (time with a shell loop even when hyperfine is installed), NO_MCP (skip
# the warm search in one `cchub mcp`), STRICT (exit 1 when a ratio misses
# its target: selective <= 0.1x ast-grep, unselective <= 1.0x), AST_GREP,
# MCP_CLIENT (where the tools are; defaults: .tools and the repository's own
# TypeScript MCP client, mcpserver/testdata/mcp-client/client.mjs).
#
# Both tools are asked the same question:
#   - the same process shape: one cold process per search, startup
#     included; cchub as `cchub search -l LANG -p PAT --root DIR --json`,
#     ast-grep as `ast-grep run -l LANG -p PAT --json=stream DIR`;
#   - the same files: cchub reads hidden files and honours .gitignore files
#     with or without git; ast-grep skips hidden files unless told
#     (--no-ignore hidden, given here) and reads .gitignore only inside a
#     git checkout, which neither corpus is. GOROOT/src's three nested
#     .gitignore files exclude no .go file; the stdlib has none. Python:
#     cchub also reads .pyw (one file in the stdlib), ast-grep does not;
#   - matches are compared as sets of (file, start byte) and shown as
#     file:line; counts are matches (a line with two is counted twice).
#
# Warm: one `cchub mcp --root DIR` process gets the same search twice
# through the MCP client (the official TypeScript SDK); the second call
# takes its trees from the hub's parse cache. Both calls' ms are shown.
#
# Then, with the token index (NO_INDEX skips this): each corpus is copied
# (mtimes kept) and `cchub index` run in the copy; the table shows, per
# pattern, the first search of a new process after it (CLI, as above),
# and the searches of one `cchub mcp` process that is asked every pattern
# of the language once, in order (all but the first are a warm hub's
# searches of a pattern it never ran), each against ast-grep's time from
# the first table; and the peak RSS of the CLI search, with and without
# the index.
set -euo pipefail

cd "$(dirname "$0")/.."
GO_DIR=${1:-$(go env GOROOT)/src}
PY_DIR=${2:-$(python3 -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')}
RUNS=${RUNS:-5}
SHOW=${SHOW:-2}
AST_GREP=${AST_GREP:-$PWD/.tools/npm/node_modules/.bin/ast-grep}
MCP_CLIENT=${MCP_CLIENT:-$PWD/mcpserver/testdata/mcp-client/client.mjs}
CCHUB=$PWD/.tools/bin/cchub
HYPERFINE=$(command -v .tools/bin/hyperfine || command -v hyperfine || true)

if [ ! -x "$AST_GREP" ]; then
	echo "search-vs-astgrep: ast-grep not found at $AST_GREP; 'make tools-bench' installs the pinned one" >&2
	exit 2
fi
go build -o "$CCHUB" ./cmd/cchub

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# kind|lang|dir|pattern; kind is the target: selective or unselective.
CASES=(
	"selective|go|$GO_DIR|atomic.AddInt64(\$A, \$B)"
	"unselective|go|$GO_DIR|if \$X != nil { return \$X }"
	"unselective|go|$GO_DIR|\$A.Lock()"
	"selective|python|$PY_DIR|os.fsencode(\$A)"
	"unselective|python|$PY_DIR|self.\$A = \$A"
	"unselective|python|$PY_DIR|isinstance(\$X, \$T)"
)

. bench/timing.sh

# compare.py CC_JSON AG_STREAM DIR SHOW — counts and set differences, and
# SHOW examples of each difference with the line they start on.
cat >"$tmp/compare.py" <<'EOF'
import json, os, sys
cc_file, ag_file, root, show = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cc = {}
with open(cc_file) as f:
    for line in f:
        if line.strip():
            m = json.loads(line)
            cc[(m["file"], m["start_byte"])] = m["start_line"]
ag = {}
with open(ag_file) as f:
    for line in f:
        if line.strip():
            m = json.loads(line)
            rel = os.path.relpath(m["file"], root)
            ag[(rel, m["range"]["byteOffset"]["start"])] = m["range"]["start"]["line"] + 1
only_cc = sorted(set(cc) - set(ag))
only_ag = sorted(set(ag) - set(cc))
print(len(ag), len(cc), len(only_cc), len(only_ag))
def first_line(rel, line):
    try:
        with open(os.path.join(root, rel), errors="replace") as f:
            for i, l in enumerate(f, 1):
                if i == line:
                    return l.strip()[:90]
    except OSError:
        return ""
for name, keys, lines in (("only cchub", only_cc, cc), ("only ast-grep", only_ag, ag)):
    for k in keys[:show]:
        print(f"    {name}: {k[0]}:{lines[k]}: {first_line(k[0], lines[k])}", file=sys.stderr)
EOF

# warm_ms LANG DIR PATTERN — the ms of two identical search calls in one
# `cchub mcp`, as "first second".
warm_ms() {
	if [ -n "${NO_MCP:-}" ] || [ ! -f "$MCP_CLIENT" ] || [ ! -d "$(dirname "$MCP_CLIENT")/node_modules" ]; then
		echo "- -"
		return
	fi
	python3 - "$1" "$3" >"$tmp/mcp.json" <<'EOF'
import json, sys
call = {"tool": "search", "args": {"pattern": sys.argv[2], "lang": sys.argv[1], "limit": 20}}
print(json.dumps([call, call]))
EOF
	node "$MCP_CLIENT" "$tmp/mcp.json" -- "$CCHUB" mcp --root "$2" 2>/dev/null |
		python3 -c 'import json, sys; print(" ".join(str(json.loads(l)["ms"]) for l in sys.stdin if l.strip()))'
}

echo "$(nproc) CPUs; $RUNS runs each, median; $("$AST_GREP" --version); cchub $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo '+dirty')"
echo "go: $GO_DIR ($(find "$GO_DIR" -name '*.go' -type f | wc -l) .go files)"
echo "python: $PY_DIR ($(find "$PY_DIR" \( -name '*.py' -o -name '*.pyi' \) -type f | wc -l) .py/.pyi files)"
printf '%-30s %-7s %10s %10s %7s %7s %8s %8s %8s %8s %10s %10s\n' \
	pattern corpus "ag ms" "cchub ms" ratio target "ag n" "cchub n" "only cc" "only ag" "mcp 1st" "mcp 2nd"
status=0
diffs=()
declare -A agms
for entry in "${CASES[@]}"; do
	IFS='|' read -r kind lang dir pat <<<"$entry"
	target=1.0
	[ "$kind" = selective ] && target=0.1
	PEER_CMD=("$AST_GREP" run -l "$lang" -p "$pat" --json=stream --no-ignore hidden "$dir")
	CC_CMD=("$CCHUB" search -l "$lang" -p "$pat" --root "$dir" --json)
	"${PEER_CMD[@]}" >"$tmp/ag.json" 2>/dev/null || true
	"${CC_CMD[@]}" >"$tmp/cc.json" 2>"$tmp/cc.err" || [ $? -eq 1 ] || { cat "$tmp/cc.err" >&2; exit 2; }
	read -r ag_n cc_n only_cc only_ag < <(python3 "$tmp/compare.py" "$tmp/cc.json" "$tmp/ag.json" "$dir" "$SHOW" 2>"$tmp/diff.txt")
	read -r ag_ms cc_ms <<<"$(pair_ms)"
	agms[$pat]=$ag_ms
	read -r mcp1 mcp2 <<<"$(warm_ms "$lang" "$dir" "$pat")"
	ratio=$(awk -v a="$cc_ms" -v b="$ag_ms" 'BEGIN {printf "%.2f", a/b}')
	mark=""
	if awk -v r="$ratio" -v t="$target" 'BEGIN {exit !(r > t)}'; then
		mark=" (over)"
		[ -n "${STRICT:-}" ] && status=1
	fi
	corpus=$lang
	printf '%-30s %-7s %10s %10s %7s %7s %8s %8s %8s %8s %10s %10s\n' \
		"$pat" "$corpus" "$ag_ms" "$cc_ms" "$ratio$mark" "≤$target" "$ag_n" "$cc_n" "$only_cc" "$only_ag" "$mcp1" "$mcp2"
	if [ -s "$tmp/diff.txt" ]; then
		diffs+=("  $pat ($corpus):" "$(cat "$tmp/diff.txt")")
	fi
done
if [ -z "${NO_INDEX:-}" ]; then
	echo
	# rss_kb CMD... — the peak RSS of one run, in KiB.
	rss_kb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
	# seq_ms LANG DIR PATTERN... — the ms of each search, in order, in one
	# `cchub mcp` process.
	seq_ms() {
		local lang=$1 dir=$2
		shift 2
		if [ -n "${NO_MCP:-}" ] || [ ! -f "$MCP_CLIENT" ] || [ ! -d "$(dirname "$MCP_CLIENT")/node_modules" ]; then
			for _ in "$@"; do echo -; done
			return
		fi
		python3 - "$lang" "$@" >"$tmp/seq.json" <<'EOF2'
import json, sys
lang = sys.argv[1]
print(json.dumps([{"tool": "search", "args": {"pattern": p, "lang": lang, "limit": 20}} for p in sys.argv[2:]]))
EOF2
		node "$MCP_CLIENT" "$tmp/seq.json" -- "$CCHUB" mcp --root "$dir" 2>/dev/null |
			python3 -c 'import json, sys; [print(json.loads(l)["ms"]) for l in sys.stdin if l.strip()]'
	}
	declare -A copyof
	for lang in go python; do
		src=$GO_DIR
		[ "$lang" = python ] && src=$PY_DIR
		copyof[$lang]=$tmp/corpus-$lang
		cp -a "$src" "${copyof[$lang]}"
		t0=$(date +%s%N)
		"$CCHUB" index --root "${copyof[$lang]}" >"$tmp/index.txt" 2>/dev/null
		t1=$(date +%s%N)
		echo "$lang copy: cchub index $(( (t1 - t0) / 1000000 )) ms: $(tr '\n' ' ' <"$tmp/index.txt")"
	done
	# After the table's patterns, the warm hub is asked patterns that
	# refine one it ran (what an agent asks next): their files' trees are
	# in its parse cache. Their ast-grep times are measured here.
	REFINE=(
		"go|if \$X != nil { return nil, \$X }"
		"go|if err != nil { return \$\$\$ }"
		"python|self.\$A = \$A.\$B"
		"python|isinstance(\$X, str)"
	)
	printf '%-30s %-7s %10s %10s %7s %10s %7s %10s %10s %8s\n' \
		pattern corpus "ag ms" "indexed" ratio "mcp seq" ratio "RSS KiB" "indexed" "same n"
	for lang in go python; do
		pats=()
		for entry in "${CASES[@]}"; do
			IFS='|' read -r kind l dir pat <<<"$entry"
			[ "$l" = "$lang" ] && pats+=("$pat")
		done
		refine=()
		for entry in "${REFINE[@]}"; do
			[ "${entry%%|*}" = "$lang" ] && refine+=("${entry#*|}")
		done
		mapfile -t seq < <(seq_ms "$lang" "${copyof[$lang]}" "${pats[@]}" "${refine[@]}")
		dir=$GO_DIR
		[ "$lang" = python ] && dir=$PY_DIR
		for pat in "${refine[@]}"; do
			PEER_CMD=("$AST_GREP" run -l "$lang" -p "$pat" --json=stream --no-ignore hidden "$dir")
			CC_CMD=(true)
			read -r ag_ms _ <<<"$(pair_ms)"
			agms[$pat]=$ag_ms
		done
		i=0
		for pat in "${pats[@]}" "${refine[@]}"; do
			dir=$GO_DIR
			[ "$lang" = python ] && dir=$PY_DIR
			CC_CMD=("$CCHUB" search -l "$lang" -p "$pat" --root "${copyof[$lang]}" --json)
			"${CC_CMD[@]}" >"$tmp/cci.json" 2>/dev/null || true
			"$CCHUB" search -l "$lang" -p "$pat" --root "$dir" --json >"$tmp/cc.json" 2>/dev/null || true
			same=yes
			cmp -s "$tmp/cc.json" "$tmp/cci.json" || { same=NO; status=1; }
			PEER_CMD=(true)
			read -r _ cc_ms <<<"$(pair_ms)"
			ag_ms=${agms[$pat]}
			r1=$(awk -v a="$cc_ms" -v b="$ag_ms" 'BEGIN {printf "%.2f", a/b}')
			s=${seq[$i]:--}
			r2=-
			[ "$s" != - ] && r2=$(awk -v a="$s" -v b="$ag_ms" 'BEGIN {printf "%.2f", a/b}')
			rss_plain=$(rss_kb "$CCHUB" search -l "$lang" -p "$pat" --root "$dir" --json)
			rss_idx=$(rss_kb "${CC_CMD[@]}")
			printf '%-30s %-7s %10s %10s %7s %10s %7s %10s %10s %8s\n' "$pat" "$lang" "$ag_ms" "$cc_ms" "$r1" "$s" "$r2" "$rss_plain" "$rss_idx" "$same"
			i=$((i + 1))
		done
	done
fi
if [ ${#diffs[@]} -gt 0 ]; then
	echo
	echo "differences (first $SHOW of each):"
	printf '%s\n' "${diffs[@]}"
fi
exit $status
