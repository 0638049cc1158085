#!/usr/bin/env bash
# Benchmark: does selection by evidence pick a fix that resolves the issue? A proxy built from a
# real project's history, since public model patches on SWE-bench-style instances are not at
# hand: the instances are pallets/click commits that change src/click/ (the fix) and tests/ (the
# test patch), kept when a test of the test patch fails at the parent and passes with the fix
# (pytest says so). Each instance gets up to four candidate answers, protocol-1 plans with whole
# files, all derived from real code, not written by a model: the real fix; the same fix with a
# comment line added (the same tokens: a second vote); the fix with one of its hunks left out;
# and a wrong fix (another commit's change to the same file, applied to the parent). Their order
# is shuffled with a fixed seed.
#
# Ground truth, outside papayu: a candidate resolves the instance when, with the test patch laid
# over it, every test of the test patch that the real fix turns from failing to passing passes,
# and every test of those modules that passes both at the parent and with the fix still passes.
# Then, in a fresh repository at the parent each time, papayu picks:
#   check only:   plan GOAL --response …; apply --all --check "pytest … MODULES"; pick
#                 (the modules the test patch touches, as they are at the parent)
#   reproduction: the same, with the test patch first: plan GOAL --repro-response TESTPATCH.json
# Both again without the variant (`-novote`): the variant gives the real fix a second vote,
# which real samples would not hand to the right answer alone, so the figures without it say
# what the check's evidence decides by itself. Each is compared with choosing the first answer,
# a random one (expected value) and the oracle (some candidate resolves). GOAL is the commit's
# subject line. Prints the resolved share of each, what papayu picked (real, variant, partial,
# wrong) and the seconds plan and apply --all took (the checks), per instance.
#
#   bench/selection.sh /path/to/click          # a clone of pallets/click, bare or not
#   CLICK_REPO=/path/to/click CASES=20 bench/selection.sh
#   SEED=7 bench/selection.sh /path/to/click   # another order of the candidates
#   ROWS=rows.json bench/selection.sh /path/to/click   # keeps every instance's row as JSON
#   MODES="check repro" bench/selection.sh /path/to/click  # with the variant only (half the time)
#   python3 bench/selection.py --report rows.json     # the report again from kept rows
#   PAPAYU_BIN=/path/to/target/release bench/selection.sh /path/to/click
#
# Needs bash, git, tar, python3 with pytest (`pip install pytest`; click's tests need nothing
# else). Each instance takes one to three minutes on two cores: the checks dominate.
set -euo pipefail
cd "$(dirname "$0")/.."
CLICK=${1:-${CLICK_REPO:-}}
if [ -z "$CLICK" ]; then
	echo "usage: bench/selection.sh CLICK_REPO (or CLICK_REPO=… bench/selection.sh)" >&2
	exit 2
fi
CLICK=$(cd "$CLICK" && pwd)
python3 -m pytest --version >/dev/null 2>&1 || {
	echo "bench/selection.sh needs pytest: pip install pytest" >&2
	exit 2
}
. bench/common.sh
python3 bench/selection.py "$CLICK" "$WORK/selection" "${CASES:-12}" "${SEED:-1}"
