#!/usr/bin/env bash
# Benchmark: what the number of stored plans costs. Stores N plans of realistic size (a copy of
# a real record, about 3 kB, with its own id and goal), PER_COMMIT plans on each commit, then
# times `show`, `list`, `apply --no-check`, `undo` and `plan` against the same commands with 5
# plans, and `git notes --ref=papayu list` (the git CLI reading the same notes) in the same run.
#
#   bench/plans.sh                    # 5 400 2000 10000 plans, 50 per commit
#   PER_COMMIT=400 bench/plans.sh 400 # all on one commit
#
# Needs only bash, awk, sed and git. Builds the release binary first. Prints medians and ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(400 2000 10000)
PER_COMMIT=${PER_COMMIT:-50}

# The median wall time of "$@" in milliseconds; $SETUP (if set) runs untimed before each run.
timed() {
	local times=() run s e
	for run in $(seq 1 "$RUNS"); do
		[ -z "${SETUP:-}" ] || eval "$SETUP"
		s=$(now)
		"$@" >/dev/null 2>&1
		e=$(now)
		times+=("$(ms "$s" "$e")")
	done
	printf '%s\n' "${times[@]}" | median
}

# A repository with $1 plans, $PER_COMMIT per commit; prints the id of the newest plan.
make_repo() {
	local n=$1 dir=$2 commits i c
	git init -q -b main "$dir"
	cd "$dir"
	echo a >a.txt && git add a.txt && git commit -qm init
	local body="" k
	for k in $(seq 1 60); do body="$body    value_$k = compute($k)\\n"; done
	printf '{"summary":"Add a module","plan":[{"step":"write it","details":"one module"}],"actions":[{"kind":"CREATE_FILE","path":"src/mod_new.py","content":"def f():\\n%s"}]}' "$body" >"$WORK/answer.json"
	commits=$(( (n + PER_COMMIT - 1) / PER_COMMIT ))
	for c in $(seq 2 "$commits"); do
		echo "$c" >"c.txt" && git add c.txt && git commit -qm "c$c"
	done
	git papayu plan "seed" --response "$WORK/answer.json" >/dev/null
	local seed
	seed=$(git notes --ref=papayu show HEAD | head -n 1)
	local head_id
	head_id=$(printf '%s' "$seed" | sed 's/^{"id":"\([0-9a-f]*\)".*/\1/')
	# Every other plan: the seed with its own id, goal and base, PER_COMMIT to a commit.
	git rev-list --reverse HEAD >"$WORK/commits"
	SEED="$seed" awk -v n="$((n - 1))" -v per="$PER_COMMIT" -v head="$head_id" '
		NR == FNR { c[NR] = $1; nc = NR; next }
		END {
			seed = ENVIRON["SEED"]
			for (i = 0; i < n; i++) {
				base = c[int(i / per) % nc + 1]
				id = sprintf("%08x%032x", i + 1, 0)
				line = seed
				sub("\"id\":\"" head "\"", "\"id\":\"" id "\"", line)
				sub("\"goal\":\"seed\"", "\"goal\":\"goal " i "\"", line)
				gsub("\"base\":\"[0-9a-f]*\"", "\"base\":\"" base "\"", line)
				print base "\t" line
			}
		}' "$WORK/commits" /dev/null >"$WORK/lines"
	local base
	for base in $(cut -f1 "$WORK/lines" | sort -u); do
		{ git notes --ref=papayu show "$base" 2>/dev/null || true; grep "^$base" "$WORK/lines" | cut -f2-; } >"$WORK/note"
		git notes --ref=papayu add -f -F "$WORK/note" "$base" 2>/dev/null
	done
	echo "$head_id"
}

row() {
	local n=$1 dir="$WORK/r$1" id
	id=$(make_repo "$n" "$dir")
	cd "$dir"
	local show list apply undo plan git
	show=$(timed git papayu show "$id")
	list=$(timed git papayu list)
	apply=$(SETUP="git papayu discard $id >/dev/null 2>&1 || true" timed git papayu apply "$id" --no-check)
	undo=$(SETUP="git papayu plan again --response $WORK/answer.json >/dev/null 2>&1" timed git papayu undo)
	plan=$(timed git papayu plan "another" --response "$WORK/answer.json")
	git=$(timed git notes --ref=papayu list)
	echo "$n $show $list $apply $undo $plan $git"
	cd - >/dev/null
}

echo "plans per commit: $PER_COMMIT, median of $RUNS runs (ms)"
base=$(row 5)
read -r _ s0 l0 a0 u0 p0 g0 <<<"$base"
printf '| plans | show | list | apply | undo | plan | git notes list |\n|---:|---:|---:|---:|---:|---:|---:|\n'
printf '| 5 | %s | %s | %s | %s | %s | %s |\n' "$s0" "$l0" "$a0" "$u0" "$p0" "$g0"
for n in "${COUNTS[@]}"; do
	read -r _ s l a u p g <<<"$(row "$n")"
	r() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.1f×", x / y }'; }
	printf '| %s | %s (%s) | %s (%s) | %s (%s) | %s (%s) | %s (%s) | %s (%s) |\n' "$n" \
		"$s" "$(r "$s" "$s0")" "$l" "$(r "$l" "$l0")" "$a" "$(r "$a" "$a0")" \
		"$u" "$(r "$u" "$u0")" "$p" "$(r "$p" "$p0")" "$g" "$(r "$g" "$g0")"
done
echo "(in parentheses: the ratio to the same command with 5 plans; the target is 1.5×)"
