#!/usr/bin/env bash
# Benchmark: what the differential check's base-run cache saves. Each round makes a new base
# commit (a new tree: the cache misses), then applies two plans on it with a Python unittest
# check: the first apply runs the check on the base and on the proposal, the second finds the
# base run cached and runs the proposal only.
#
#   bench/base_run.sh
#   RUNS=9 TESTS=60 bench/base_run.sh
#   PAPAYU_BIN=/path/to/target/debug bench/base_run.sh     # an already built binary
#
# Needs bash, awk, git and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
TESTS=${TESTS:-30}

REPO="$WORK/project"
git init -q -b main "$REPO"
printf 'def div(a, b):\n    return a / b\n' >"$REPO/calc.py"
# $TESTS tests that each do some real work, and one that fails at the base.
awk -v n="$TESTS" 'BEGIN {
	print "import unittest\nfrom calc import div\n\n\ndef primes(limit):\n    return [p for p in range(2, limit) if all(p % d for d in range(2, int(p ** 0.5) + 1))]\n\n\nclass CalcTest(unittest.TestCase):"
	for (i = 0; i < n; i++)
		printf "    def test_work_%d(self):\n        self.assertGreater(len(primes(30000 + %d)), 3000)\n\n", i, i
	print "    def test_div_zero(self):\n        self.assertIsNone(div(1, 0))\n"
}' >"$REPO/test_calc.py"
(cd "$REPO" && git add -A && git commit -qm project)
CHECK="python3 -m unittest -v test_calc 2>&1"

answer() {
	printf '{"summary":"guard div %s","actions":[{"kind":"UPDATE_FILE","path":"calc.py","content":"def div(a, b):\\n    if b == 0:\\n        return None\\n    return a / b  # %s\\n"}]}' "$1" "$1"
}

apply_ms() {
	local salt=$1 t0 t1
	answer "$salt" >"$WORK/answer.json"
	git -C "$REPO" papayu plan "guard div $salt" --response "$WORK/answer.json" >/dev/null
	t0=$(now)
	git -C "$REPO" papayu apply --check "$CHECK" >/dev/null 2>&1
	t1=$(now)
	ms "$t0" "$t1"
}

: >"$WORK/times"
for i in $(seq 1 "$RUNS"); do
	echo "round $i" >"$REPO/ROUND"
	(cd "$REPO" && git add ROUND && git commit -qm "round $i")
	miss=$(apply_ms "a$i")
	hit=$(apply_ms "b$i")
	echo "$miss $hit" >>"$WORK/times"
done
echo "apply with a check of $((TESTS + 1)) unittest tests, median of $RUNS rounds"
printf 'base run not cached (base + proposal)   %8s ms\n' "$(awk '{ print $1 }' "$WORK/times" | median)"
printf 'base run cached (proposal only)         %8s ms\n' "$(awk '{ print $2 }' "$WORK/times" | median)"
