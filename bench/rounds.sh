#!/usr/bin/env bash
# Benchmark: fix rounds (`apply --rounds N`) and the reproduction's repair round against scripted
# models that behave as real ones do — they answer with PATCH_FILE diffs under protocol 2, and
# some get a thing right only once the request tells them what failed. The model is
# bench/scripted_llm.py, a stdlib-only OpenAI-compatible server (streaming SSE, as papayu asks),
# reached through PAPAYU_LLM_API_URL. The project is a small Python shop module with a unittest
# check that sleeps 1 s first, so that the check's time is a real one to compare against.
#
# Scenarios, each in a fresh clone:
#   a  right on the second try, after being told which test still fails
#   b1 never right: a different answer failing the same test (stops: no progress)
#   b2 never right but closer each round (stops: the round cap)
#   c  makes the failing test pass by changing its assertion (marked: weakens tests, which is no
#      stop); told so, it puts the test back and fixes the code
#   d  a flaky test fails on the fix's first run (named flaky, not counted, no extra round)
#   e  plan --repro whose first reproduction passes at the base (does not reproduce, one repair
#      round), then the fix
#
# Prints per scenario: the rounds run, the stop line papayu printed, the verdict, the cost
# (requests and tokens from `list --json`; tokens are the scripted server's estimates, one for
# four characters), and per command and round its wall time, the time inside checks, and
# papayu's own time (wall minus checks) as a percentage of the check time. The time inside
# checks is what papayu reports: each round's check in its trace (`check.duration_ms`), each
# base run in the base-run cache (`millis`); a run it reports nowhere (the second runs that
# name a flaky test) is taken from the check command's own log of its start and end. The
# command's own time is printed too: the difference is the sandbox and worktree cost that
# papayu counts as check time.
#
#   bench/rounds.sh
#   SCENARIOS="a d" bench/rounds.sh
#   PAPAYU_BIN=/path/to/target/release bench/rounds.sh     # an already built binary
#   KEEP=1 bench/rounds.sh     # keeps the scratch directory (clones, logs, answers)
#
# Needs bash, git and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
SCENARIOS=${SCENARIOS:-a b1 b2 c d e}
HERE=$PWD
SERVER_PID=

stop_server() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
		SERVER_PID=
	fi
}
trap 'stop_server; if [ -n "${KEEP:-}" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi' EXIT

# serve SCRIPT LOG: the scripted model on a free port; exports papayu's compatible-provider
# variables for it.
serve() {
	stop_server
	rm -f "$WORK/port"
	python3 "$HERE/bench/scripted_llm.py" "$1" "$WORK/port" "$2" &
	SERVER_PID=$!
	for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
	export PAPAYU_LLM_API_URL="http://127.0.0.1:$(cat "$WORK/port")/v1" PAPAYU_LLM_MODEL=scripted
	export PAPAYU_LLM_TIMEOUT_SEC=30 PAPAYU_LLM_RETRY_BASE_MS=10
}

# The project: three tests fail at the base (total subtracts one, discount gives the discount
# rather than the price after it). Scenario e starts from a base whose only bug is discount's,
# which no test covers; scenario d adds a test that fails once, the first time it runs on the
# fixed code (a deterministic stand-in for a test that fails now and then).
project() {
	local dir=$1 variant=$2
	git init -q -b main "$dir"
	python3 - "$dir" "$variant" <<-'EOF'
		import sys
		d, variant = sys.argv[1], sys.argv[2]
		total = "    return sum(prices)\n" if variant == "e" else "    return sum(prices) - 1\n"
		open(d + "/shop.py", "w").write("def total(prices):\n" + total + "\n\ndef discount(price, percent):\n    return price * percent / 100\n")
		tests = "import unittest\n\nfrom shop import discount, total\n\n\nclass Shop(unittest.TestCase):\n    def test_total(self):\n        self.assertEqual(total([1, 2, 3]), 6)\n\n    def test_empty(self):\n        self.assertEqual(total([]), 0)\n"
		if variant != "e":
		    tests += "\n    def test_discount(self):\n        self.assertEqual(discount(200, 25), 150)\n"
		if variant == "d":
		    tests = "import os\n" + tests + (
		        "\n    def test_receipt(self):\n"
		        "        # Fails the first time it runs on the fixed discount, as a timing test might.\n"
		        "        mark = os.path.join(os.environ['SHOP_STATE'], 'ran-fixed')\n"
		        "        if discount(200, 25) == 150 and not os.path.exists(mark):\n"
		        "            open(mark, 'w').close()\n"
		        "            self.fail('receipt printer timed out')\n")
		open(d + "/test_shop.py", "w").write(tests)
	EOF
	(cd "$dir" && git add -A && git commit -qm project)
}

# script SCENARIO DIR: the model's answers for the scenario, as bench/scripted_llm.py reads them.
script() {
	python3 - "$1" "$2" <<-'EOF'
		import difflib, hashlib, json, sys
		scenario, d = sys.argv[1], sys.argv[2]
		shop, tests = (open(d + "/" + f).read() for f in ("shop.py", "test_shop.py"))

		def patch(path, old, new, summary):
		    diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/" + path, "b/" + path))
		    return json.dumps({"summary": summary, "actions": [{"kind": "PATCH_FILE", "path": path,
		        "base_sha256": hashlib.sha256(old.encode()).hexdigest(), "patch": diff}]})

		def create(path, content, summary):
		    return json.dumps({"summary": summary, "actions": [{"kind": "CREATE_FILE", "path": path, "content": content}]})

		def told(needle, then, otherwise):
		    return {"if": needle, "then": then, "else": otherwise}

		sub = lambda text, a, b: text.replace(a, b)
		total_fixed = sub(shop, "sum(prices) - 1", "sum(prices)")
		both_fixed = sub(total_fixed, "price * percent / 100", "price - price * percent / 100")
		fix_total = patch("shop.py", shop, total_fixed, "total no longer subtracts one")
		fix_discount = patch("shop.py", total_fixed, both_fixed, "discount returns the price after it")
		if scenario == "a":
		    steps = [fix_total, told("Shop.test_discount", fix_discount, fix_total)]
		elif scenario == "b1":
		    wrong = lambda expr, why: patch("shop.py", total_fixed, sub(total_fixed, "price * percent / 100", expr), why)
		    steps = [fix_total, wrong("price * (100 - percent) / 100 + 1", "discount rounds up"),
		             wrong("price - percent", "discount subtracts the percentage"),
		             wrong("price * (1 - percent)", "discount as a fraction")]
		elif scenario == "b2":
		    empty_fixed = sub(shop, "sum(prices) - 1", "sum(prices) - 1 if prices else 0")
		    steps = [patch("shop.py", shop, empty_fixed, "an empty basket costs nothing"),
		             patch("shop.py", empty_fixed, total_fixed, "total no longer subtracts one"),
		             patch("shop.py", total_fixed, sub(total_fixed, "price * percent / 100", "price - percent"), "discount")]
		elif scenario == "c":
		    weakened = sub(tests, "discount(200, 25), 150", "discount(200, 25), 50")
		    weaken = patch("test_shop.py", tests, weakened, "the test expected the wrong amount")
		    # Told its answer weakens the test, it puts the test back and fixes the code.
		    both = json.loads(patch("test_shop.py", weakened, tests, "the test is right"))
		    both["actions"] += json.loads(fix_discount)["actions"]
		    steps = [fix_total, told("Shop.test_discount", weaken, fix_total),
		             told("weakens tests", json.dumps(both), weaken)]
		elif scenario == "d":
		    steps = [patch("shop.py", shop, both_fixed, "total and discount fixed")]
		elif scenario == "e":
		    passes = "import unittest\n\nfrom shop import discount\n\n\nclass Repro(unittest.TestCase):\n    def test_discount(self):\n        self.assertEqual(discount(0, 25), 0)\n"
		    fails = passes.replace("discount(0, 25), 0", "discount(200, 25), 150")
		    steps = [create("test_repro.py", passes, "a discount of nothing is nothing"),
		             told("does not reproduce", create("test_repro.py", fails, "25% off 200 is 150"), create("test_repro.py", passes, "again")),
		             told("Repro.test_discount", fix_discount, fix_total)]
		print(json.dumps(steps))
	EOF
}

# stamped FILE CMD…: runs CMD, its stderr written to FILE with each line's arrival time (ns);
# a pipeline, so that FILE is complete when it returns. CMD's stdout stays stdout.
stamped() {
	local out=$1
	shift
	{ "$@" 2>&1 1>&3 3>&- | python3 -c '
import sys, time
for line in sys.stdin:
    sys.stdout.write("%d %s" % (time.time_ns(), line))
    sys.stdout.flush()
' >"$out"; } 3>&1
}

# run_scenario NAME: plan and apply (with rounds) in a fresh clone, then the report.
run_scenario() {
	local s=$1 variant=$1 dir="$WORK/$1" log="$WORK/$1.checks" rounds=3 goal plan_args=()
	[ "$s" = b1 ] && rounds=5
	[ "$s" = b2 ] && rounds=2
	mkdir -p "$log" "$WORK/$s.state"
	project "$dir" "$variant"
	script "$s" "$dir" >"$WORK/$s.script"
	serve "$WORK/$s.script" "$WORK/$s.requests"
	# The check sleeps 1 s, runs the tests and logs its own start and end (and its slot).
	local check="t0=\$(date +%s%N); sleep 1; python3 -m unittest -v; rc=\$?; echo \"\$t0 \$(date +%s%N) \${PWD##*/}\" >>$log/runs; exit \$rc"
	git -C "$dir" config papayu.checkCommand "$check"
	git -C "$dir" config --add papayu.checkWritable "$log"
	git -C "$dir" config --add papayu.checkWritable "$WORK/$s.state"
	git -C "$dir" config papayu.checkEnv SHOP_STATE
	export SHOP_STATE="$WORK/$s.state"
	goal="total and discount give wrong amounts"
	if [ "$s" = e ]; then
		goal="discount(200, 25) should be 150, the price after the discount"
		plan_args=(--repro)
	fi
	local t0 t1 t2 t3
	stamp t0
	stamped "$WORK/$s.plan.err" git -C "$dir" papayu plan "$goal" "${plan_args[@]}" --json >"$WORK/$s.plan.json" || true
	stamp t1
	local id
	id=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["plans"][0]["plan"]["id"])' "$WORK/$s.plan.json")
	stamp t2
	stamped "$WORK/$s.apply.err" git -C "$dir" papayu apply "$id" --rounds "$rounds" --json >"$WORK/$s.apply.json" || true
	stamp t3
	python3 "$HERE/bench/rounds_report.py" "$s" "$dir" "$WORK" "$t0" "$t1" "$t2" "$t3" "$rounds"
	stop_server
}

echo "fix rounds against scripted models; check: sleep 1 + python3 -m unittest -v (3-4 tests)"
for s in $SCENARIOS; do
	run_scenario "$s"
done
