#!/usr/bin/env bash
# Benchmark: checks on other machines. Four proposals of one goal, a check that takes a few
# seconds (CHECK_SECS, default 2; one proposal passes, three fail and need the base run), on this
# machine:
#
#   local        git papayu apply --all                        (the checks here, side by side)
#   1 request    apply --all --on origin, one worker --once, then sync: until every verdict is back
#   4 requests   apply ID --on origin for each proposal, then one worker, or two racing for them
#
# and the time papayu itself adds per request, with a check that does nothing (`true`): the ask
# (apply --on against apply --no-check), the worker's round (fetch, claim, worktrees, result
# push, claim done) beside the check's own seconds. Medians of RUNS runs (default 3).
#
#   bench/workers.sh
#   RUNS=5 CHECK_SECS=3 bench/workers.sh
#   PAPAYU_BIN=/path/to/target/release bench/workers.sh     # an already built binary
#
# Needs bash, git and python3. Not part of cargo test.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
CHECK_SECS=${CHECK_SECS:-2}
. bench/common.sh

answer() { # path -> a plan answer creating that file
	python3 -c 'import json, sys; print(json.dumps({"summary": "add " + sys.argv[1], "actions": [{"kind": "CREATE_FILE", "path": sys.argv[1], "content": "x\n"}]}))' "$1"
}

project="$WORK/project"
git init -q -b main "$project"
printf 'sleep %s\ntest -f fix.txt\n' "$CHECK_SECS" >"$project/check.sh"
printf 'one\n' >"$project/a.txt"
(cd "$project" && git add -A && git commit -qm project)
mkdir -p "$WORK/answers"
for f in fix.txt b.txt c.txt d.txt; do answer "$f" >"$WORK/answers/$f.json"; done
CHECK="sh check.sh"

# fleet N: a bare remote of the project and the clones alice, bob and carol under $WORK/N, with
# the four plans stored in alice.
fleet() {
	local dir="$WORK/$1"
	mkdir -p "$dir"
	git clone -q --bare "$project" "$dir/remote.git"
	for who in alice bob carol; do
		git clone -q "$dir/remote.git" "$dir/$who"
	done
	git -C "$dir/bob" config papayu.workerName bob
	git -C "$dir/carol" config papayu.workerName carol
	for f in "$WORK/answers"/*.json; do
		git -C "$dir/alice" papayu plan "$(basename "$f" .json)" --response "$f" >/dev/null
	done
}

plans() { git -C "$1" papayu --json list | python3 -c 'import json, sys; print("\n".join(p["id"] for p in json.load(sys.stdin)["plans"]))'; }

# pending DIR: how many of alice's proposals still wait for a verdict.
pending() { git -C "$1" papayu --json list | python3 -c 'import json, sys; print(sum(1 for p in json.load(sys.stdin)["plans"] if p["remote_check"]))'; }

local_run() {
	fleet "local$1"
	local t0 t1
	stamp t0
	git -C "$WORK/local$1/alice" papayu apply --all --check "$CHECK" >/dev/null 2>&1 || true
	stamp t1
	echo "$(ms "$t0" "$t1")"
}

one_request() {
	local dir="$WORK/one$1" t0 t1
	fleet "one$1"
	stamp t0
	git -C "$dir/alice" papayu apply --all --on origin --check "$CHECK" >/dev/null 2>&1
	git -C "$dir/bob" papayu worker --once >/dev/null 2>&1
	git -C "$dir/alice" papayu sync >/dev/null 2>&1
	stamp t1
	[ "$(pending "$dir/alice")" = 0 ] || { echo "verdicts missing" >&2; exit 1; }
	echo "$(ms "$t0" "$t1")"
}

four_requests() { # N WORKERS
	local dir="$WORK/four$1-$2" t0 t1
	fleet "four$1-$2"
	stamp t0
	for id in $(plans "$dir/alice"); do
		git -C "$dir/alice" papayu apply "$id" --on origin --check "$CHECK" >/dev/null 2>&1
	done
	if [ "$2" = 1 ]; then
		git -C "$dir/bob" papayu worker >/dev/null 2>&1
	else
		git -C "$dir/bob" papayu worker >/dev/null 2>&1 &
		git -C "$dir/carol" papayu worker >/dev/null 2>&1
		wait
	fi
	git -C "$dir/alice" papayu sync >/dev/null 2>&1
	stamp t1
	[ "$(pending "$dir/alice")" = 0 ] || { echo "verdicts missing" >&2; exit 1; }
	echo "$(ms "$t0" "$t1")"
}

# overhead N: "ask_ms worker_round_ms check_ms" for one proposal checked with `true`.
overhead() {
	local dir="$WORK/over$1" t0 t1 t2 t3 id
	fleet "over$1"
	git clone -q "$dir/remote.git" "$dir/plain"
	for f in "$WORK/answers"/fix.txt.json; do
		git -C "$dir/plain" papayu plan fix --response "$f" >/dev/null
	done
	stamp t0
	git -C "$dir/plain" papayu apply --no-check >/dev/null 2>&1
	stamp t1
	id=$(plans "$dir/alice" | sed -n 1p)
	stamp t2
	git -C "$dir/alice" papayu apply "$id" --on origin --check true >/dev/null 2>&1
	stamp t3
	local ask base
	ask=$(ms "$t0" "$t1")
	base=$(ms "$t2" "$t3")
	stamp t0
	git -C "$dir/bob" papayu --json worker --once >"$dir/worker.json" 2>/dev/null
	stamp t1
	local check
	check=$(python3 -c 'import json, sys; print(1000 * json.load(open(sys.argv[1]))["requests"][0]["results"][0]["seconds"])' "$dir/worker.json")
	awk -v a="$ask" -v b="$base" -v w="$(ms "$t0" "$t1")" -v c="$check" 'BEGIN { printf "%.1f %.1f %.1f\n", b - a, w - c, c }'
}

echo "four proposals, a check of ${CHECK_SECS}s, $RUNS runs (medians)"
for n in $(seq "$RUNS"); do
	local_run "$n" >>"$WORK/local"
	one_request "$n" >>"$WORK/one"
	four_requests "$n" 1 >>"$WORK/four1"
	four_requests "$n" 2 >>"$WORK/four2"
	overhead "$n" >>"$WORK/over"
done
l=$(median <"$WORK/local")
o=$(median <"$WORK/one")
f1=$(median <"$WORK/four1")
f2=$(median <"$WORK/four2")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf '%-52s %10s %8s\n' "" "wall ms" "÷ local"
printf '%-52s %10s %8s\n' "local apply --all" "$l" "1.00"
printf '%-52s %10s %8s\n' "apply --all --on, 1 worker, sync" "$o" "$(ratio "$o" "$l")"
printf '%-52s %10s %8s\n' "4 × apply --on, 1 worker, sync" "$f1" "$(ratio "$f1" "$l")"
printf '%-52s %10s %8s\n' "4 × apply --on, 2 workers, sync" "$f2" "$(ratio "$f2" "$l")"
printf '2 workers ÷ 1 worker (4 requests): %s\n' "$(ratio "$f2" "$f1")"
ask=$(cut -d' ' -f1 <"$WORK/over" | median)
round=$(cut -d' ' -f2 <"$WORK/over" | median)
check=$(cut -d' ' -f3 <"$WORK/over" | median)
printf 'per request: ask (push of branch and request) +%s ms over apply --no-check; worker round (fetch, claim, worktrees, result push, claim done) %s ms beside a %s ms check\n' "$ask" "$round" "$check"
