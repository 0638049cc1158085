#!/usr/bin/env bash
# Benchmark: `git papayu apply` with a `cargo test` check on a small generated crate, with the
# check worktree's build caches kept between checks (the default) and without
# (papayu.checkCache set to an empty value, every check cold).
#
#   bench/check_cache.sh
#   RUNS=9 MODULES=80 bench/check_cache.sh
#
# Needs bash, awk, git and cargo. Builds the release binary first. The check gets HOME,
# CARGO_HOME and RUSTUP_HOME through papayu.checkEnv, as a cargo check needs them.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
MODULES=${MODULES:-40}

# A crate of $MODULES modules, each with 40 functions and a test, and no dependencies.
make_crate() {
	local dir=$1 m
	git init -q -b main "$dir"
	mkdir -p "$dir/src"
	printf '[package]\nname = "bench"\nversion = "0.1.0"\nedition = "2021"\n' >"$dir/Cargo.toml"
	printf '/target\n' >"$dir/.gitignore"
	: >"$dir/src/lib.rs"
	for m in $(seq 1 "$MODULES"); do
		printf 'pub mod m%d;\n' "$m" >>"$dir/src/lib.rs"
		awk -v m="$m" 'BEGIN {
			for (f = 0; f < 40; f++)
				printf "pub fn f%d(v: &[u64]) -> u64 { v.iter().map(|x| x.wrapping_mul(%d) ^ %d).fold(%d, |a, b| a.rotate_left(3) ^ b) }\n", f, f + 1, m, f
			printf "#[cfg(test)]\nmod tests {\n    #[test]\n    fn runs() { assert_ne!(super::f1(&[1, 2, 3]), 1); }\n}\n"
		}' >"$dir/src/m$m.rs"
	done
	(cd "$dir" && cargo generate-lockfile --offline -q && git add -A && git commit -qm crate)
	git -C "$dir" config papayu.checkEnv "HOME CARGO_HOME RUSTUP_HOME"
}

# A plan that changes one function of module 1 (salted so each plan differs).
answer() {
	local salt=$1
	local body
	body=$(sed "s/wrapping_mul(1)/wrapping_mul($salt)/" "$REPO/src/m1.rs" | awk '{ printf "%s\\n", $0 }')
	printf '{"summary":"bench %s","actions":[{"kind":"UPDATE_FILE","path":"src/m1.rs","content":"%s"}]}' "$salt" "$body"
}

# The times of $RUNS applies after a first one, each with its own plan.
applies() {
	local salt=$1 i t0 t1
	for i in $(seq 0 "$RUNS"); do
		answer "$((salt + i))" >"$WORK/answer.json"
		git -C "$REPO" papayu plan "bench $salt $i" --response "$WORK/answer.json" >/dev/null
		t0=$(now)
		git -C "$REPO" papayu apply --check "cargo test -q" >/dev/null 2>&1
		t1=$(now)
		if [ "$i" -eq 0 ]; then
			echo "first $(ms "$t0" "$t1")"
		else
			echo "later $(ms "$t0" "$t1")"
		fi
	done
}

REPO="$WORK/crate"
make_crate "$REPO"
git -C "$REPO" config papayu.checkCache ""
cold=$(applies 100)
git -C "$REPO" papayu gc >/dev/null 2>&1 || true
git -C "$REPO" config --unset papayu.checkCache
# A new slot for the kept caches, so both series start from an empty target/.
rm -rf "$REPO/.git/papayu/worktrees"
git -C "$REPO" worktree prune
warm=$(applies 200)
echo "caches      first apply   later applies (median of $RUNS)"
printf 'not kept    %8s ms   %8s ms\n' "$(echo "$cold" | awk '/first/ { print $2 }')" \
	"$(echo "$cold" | awk '/later/ { print $2 }' | median)"
printf 'kept        %8s ms   %8s ms\n' "$(echo "$warm" | awk '/first/ { print $2 }')" \
	"$(echo "$warm" | awk '/later/ { print $2 }' | median)"
