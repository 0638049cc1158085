#!/usr/bin/env bash
# Benchmark: what junk in the notes costs. One plan on a commit whose note also holds N event
# lines about plans that have no record (what a teammate appending junk and pushing leaves),
# then times `list` (the first run builds the plan index, the later ones read it), `show`, and
# `sync` of the same junk from a remote, with the peak memory of each (GNU time, when present).
#
#   bench/junk_notes.sh              # 100000 junk lines
#   bench/junk_notes.sh 20000
#
# Needs only bash, awk and git. Builds the release binary first (PAPAYU_BIN=DIR uses another).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
N=${1:-100000}

# Wall time in ms and peak resident memory in MB of one run of "$@".
measure() {
	local s e mem=""
	s=$(now)
	if [ -x /usr/bin/time ]; then
		mem=$(/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1)
		mem=$(awk -v k="$mem" 'BEGIN { printf " %.0f MB", k / 1024 }')
	else
		"$@" >/dev/null 2>&1
	fi
	e=$(now)
	echo "$(ms "$s" "$e") ms$mem"
}

# N event lines about plans no record names, one note's worth.
junk() {
	awk -v n="$N" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "{\"plan\":\"%040x\",\"event\":\"discarded\",\"at\":%d,\"detail\":\"junk line number %d\"}\n", i + 1, 1767225600000 + i, i
	}'
}

git init -q --bare -b main "$WORK/remote.git"
git init -q -b main "$WORK/mine"
cd "$WORK/mine"
echo a >a.txt && git add a.txt && git commit -qm init
git remote add origin "$WORK/remote.git"
git push -q origin main
printf '%s' '{"summary":"Add b","actions":[{"kind":"CREATE_FILE","path":"b.txt","content":"b\n"}]}' >"$WORK/answer.json"
git papayu plan "Add b" --response "$WORK/answer.json" >/dev/null
git papayu sync >/dev/null

# A teammate's clone appends the junk to the same note and pushes it.
git clone -q "$WORK/remote.git" "$WORK/theirs"
(
	cd "$WORK/theirs"
	git fetch -q origin refs/notes/papayu:refs/notes/papayu
	{ git notes --ref=papayu show HEAD; junk; } >"$WORK/note"
	git notes --ref=papayu add -f -F "$WORK/note" HEAD 2>/dev/null
	git push -q origin refs/notes/papayu
)
bytes=$(wc -c <"$WORK/note")
echo "junk: $N event lines, note of $((bytes / 1024)) KB"

# The same junk fetched straight into a clone's notes, as `git fetch` with a notes refspec does.
git clone -q "$WORK/remote.git" "$WORK/fetched"
cd "$WORK/fetched"
git fetch -q origin refs/notes/papayu:refs/notes/papayu
echo "list, index built: $(measure git papayu list)"
echo "list, index read:  $(measure git papayu list)"
echo "show:              $(measure git papayu show)"

cd "$WORK/mine"
echo "sync:              $(measure git papayu sync --no-push)"
echo "list after sync:   $(measure git papayu list)"
echo "note after sync:   $(git notes --ref=papayu show HEAD | wc -l) lines"
