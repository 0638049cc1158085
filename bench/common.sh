# Shared by the shell benchmarks: builds the release binary, puts it on PATH, gives git a
# clean identity and configuration, makes a scratch directory $WORK (removed on exit), and
# defines now (ns), stamp VAR (now, into VAR), ms A B (milliseconds between two nows) and
# median (of stdin's lines).
# Source it from the repository root: `. bench/common.sh`. PAPAYU_BIN=DIR uses the
# git-papayu already built in DIR instead (no build).
if [ -z "${PAPAYU_BIN:-}" ]; then
	cargo build --release --quiet
	PAPAYU_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release"
fi
BIN=$PAPAYU_BIN
export PATH="$BIN:$PATH"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
RUNS=${RUNS:-5}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/papayu-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# The clock is read without starting a process where bash can (bash 5's EPOCHREALTIME, in
# microseconds): `stamp t0; command; stamp t1` times the command alone, where `t0=$(now)`
# also times a subshell and, without EPOCHREALTIME, a `date` process.
stamp() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		printf -v "$1" '%s000' "${EPOCHREALTIME//[.,]/}"
	else
		printf -v "$1" '%s' "$(date +%s%N)"
	fi
}
now() {
	local t
	stamp t
	echo "$t"
}
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
