#!/usr/bin/env bash
# Benchmark: `git papayu apply` of a 10-file plan against the git CLI doing the same commit
# through plumbing, on generated repositories of 1k, 10k and 100k files; then a second apply
# with a check (reused worktree) against `git worktree add`.
#
#   bench/apply.sh            # sizes 1000 10000 100000
#   bench/apply.sh 1000 5000  # custom sizes
#
# Needs only bash, awk and git. Builds the release binary first. Prints times and ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 10000 100000)

# A repository of $1 files in a two-level directory tree, made with fast-import.
make_repo() {
	local n=$1 dir=$2
	git init -q -b main "$dir"
	awk -v n="$n" 'BEGIN {
		print "commit refs/heads/main"
		print "committer bench <bench@example.com> 1700000000 +0000"
		print "data 4"; print "init"
		for (i = 0; i < n; i++) {
			path = sprintf("d%02d/e%03d/file%06d.txt", i % 97, int(i / 97) % 211, i)
			body = sprintf("file %d\nline two of %d\nline three\n", i, i)
			printf "M 100644 inline %s\ndata %d\n%s\n", path, length(body), body
		}
	}' | git -C "$dir" fast-import --quiet
	git -C "$dir" reset -q --hard main
	# A repository in use has its loose-object fan-out directories; make them, so neither side
	# pays for creating them first.
	for i in $(seq 0 255); do mkdir -p "$dir/.git/objects/$(printf %02x "$i")"; done
	# Measured at rest: the checkout's writes reach the disk before anything is timed.
	sync
}

# A v1 answer updating 10 existing files spread over the tree (salted so each plan differs).
answer() {
	local n=$1 salt=$2
	local step=$(( n / 10 )) sep="" i
	printf '{"summary":"bench %s","actions":[' "$salt"
	for i in 0 1 2 3 4 5 6 7 8 9; do
		local k=$(( i * step ))
		local path
		path=$(printf "d%02d/e%03d/file%06d.txt" $(( k % 97 )) $(( (k / 97) % 211 )) "$k")
		printf '%s{"kind":"UPDATE_FILE","path":"%s","content":"changed %s %s\\n"}' "$sep" "$path" "$salt" "$i"
		sep=","
	done
	printf ']}'
}

# The same commit with git plumbing: a temporary index read from HEAD, the ten blobs written in
# one hash-object call, update-index, write-tree, commit-tree.
plumbing_commit() {
	local dir=$1 n=$2 salt=$3
	local step=$(( n / 10 )) i
	local index="$WORK/plumbing.index" blobs="$WORK/blobs"
	rm -rf "$index" "$blobs"
	mkdir -p "$blobs"
	for i in 0 1 2 3 4 5 6 7 8 9; do
		printf 'changed %s %s\n' "$salt" "$i" >"$blobs/$i"
	done
	GIT_INDEX_FILE="$index" git -C "$dir" read-tree HEAD
	local oids
	mapfile -t oids < <(for i in 0 1 2 3 4 5 6 7 8 9; do echo "$blobs/$i"; done | git -C "$dir" hash-object -w --stdin-paths)
	for i in 0 1 2 3 4 5 6 7 8 9; do
		local k=$(( i * step ))
		printf '100644 %s\t%s\n' "${oids[$i]}" "$(printf "d%02d/e%03d/file%06d.txt" $(( k % 97 )) $(( (k / 97) % 211 )) "$k")"
	done | GIT_INDEX_FILE="$index" git -C "$dir" update-index --index-info
	local tree
	tree=$(GIT_INDEX_FILE="$index" git -C "$dir" write-tree)
	git -C "$dir" commit-tree "$tree" -p HEAD -m "bench $salt" >/dev/null
}

printf '%-8s %14s %16s %8s\n' files "papayu apply" "git plumbing" ratio
for n in "${SIZES[@]}"; do
	dir="$WORK/repo-$n"
	make_repo "$n" "$dir"
	papayu_times=() git_times=()
	for run in $(seq 1 "$RUNS"); do
		answer "$n" "p$run" >"$WORK/answer.json"
		id=$(cd "$dir" && git papayu plan "bench $run" --protocol 1 --response "$WORK/answer.json" --json | awk -F'"' '/"id":/ { print $4; exit }')
		stamp t0; git -C "$dir" papayu apply "$id" --no-check >/dev/null 2>&1; stamp t1
		papayu_times+=("$(ms "$t0" "$t1")")
		stamp t0; plumbing_commit "$dir" "$n" "g$run"; stamp t1
		git_times+=("$(ms "$t0" "$t1")")
	done
	p=$(printf '%s\n' "${papayu_times[@]}" | median)
	g=$(printf '%s\n' "${git_times[@]}" | median)
	printf '%-8s %11s ms %13s ms %7sx\n' "$n" "$p" "$g" "$(awk -v p="$p" -v g="$g" 'BEGIN { printf "%.1f", g / p }')"
done

# Applies with a check: the first creates the check worktree, later ones move it in place.
check_apply() {
	local dir=$1 n=$2 salt=$3 id
	answer "$n" "$salt" >"$WORK/answer.json"
	id=$(cd "$dir" && git papayu plan "check $salt" --protocol 1 --response "$WORK/answer.json" --json | awk -F'"' '/"id":/ { print $4; exit }')
	local t0 t1
	stamp t0; git -C "$dir" papayu apply "$id" --check true >/dev/null 2>&1; stamp t1
	ms "$t0" "$t1"
}

echo
echo "applies with a check (command: true), worktree reused after the first"
printf '%-8s %16s %16s %18s %8s\n' files "first (creates)" "later (reused)" "git worktree add" ratio
for n in "${SIZES[@]}"; do
	dir="$WORK/repo-$n"
	first=$(check_apply "$dir" "$n" "c0")
	later=()
	for run in $(seq 1 "$RUNS"); do
		later+=("$(check_apply "$dir" "$n" "c$run")")
	done
	s=$(printf '%s\n' "${later[@]}" | median)
	stamp t0; git -C "$dir" worktree add -q --detach "$WORK/wt-baseline-$n" HEAD; stamp t1
	w=$(ms "$t0" "$t1")
	printf '%-8s %13s ms %13s ms %15s ms %7sx\n' "$n" "$first" "$s" "$w" "$(awk -v s="$s" -v w="$w" 'BEGIN { printf "%.1f", w / s }')"
done
