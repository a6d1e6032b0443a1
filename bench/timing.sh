# timing.sh — sourced by the bench scripts: wall times of a peer tool's
# command and cchub's on the same input, the median of RUNS runs each.
#
# The caller sets PEER_CMD and CC_CMD (arrays), RUNS, tmp (a scratch
# directory) and HYPERFINE (its path, or empty); NO_HYPERFINE forces the
# shell loop.

now_ms() { date +%s%N | awk '{printf "%.3f", $1/1e6}'; }

# time_ms CMD... — wall time of one run, in ms.
time_ms() {
	local t0 t1
	t0=$(now_ms)
	"$@" >/dev/null 2>&1 || true
	t1=$(now_ms)
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b-a}'
}

median() { sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]}'; }

# pair_ms — median wall times of PEER_CMD and CC_CMD, as "peer cc".
# hyperfine when there is one; otherwise the two alternate run by run,
# after one warm-up each, so a machine shared with other work slows both
# alike.
pair_ms() {
	if [ -z "${NO_HYPERFINE:-}" ] && [ -n "${HYPERFINE:-}" ]; then
		local q1=() q2=() a
		for a in "${PEER_CMD[@]}"; do q1+=("$(printf '%q' "$a")"); done
		for a in "${CC_CMD[@]}"; do q2+=("$(printf '%q' "$a")"); done
		"$HYPERFINE" -N -i --style none --warmup 1 --runs "$RUNS" --export-csv "$tmp/h.csv" \
			-n peer "${q1[*]}" -n cchub "${q2[*]}" >/dev/null 2>&1
		awk -F, 'NR==1 {for (i=1;i<=NF;i++) if ($i=="median") c=i} NR>1 {printf "%.1f ", $c*1000}' "$tmp/h.csv"
		return
	fi
	"${PEER_CMD[@]}" >/dev/null 2>&1 || true
	"${CC_CMD[@]}" >/dev/null 2>&1 || true
	local peer=() cc=() i
	for ((i = 0; i < RUNS; i++)); do
		peer+=("$(time_ms "${PEER_CMD[@]}")")
		cc+=("$(time_ms "${CC_CMD[@]}")")
	done
	echo "$(printf '%s\n' "${peer[@]}" | median) $(printf '%s\n' "${cc[@]}" | median)"
}
