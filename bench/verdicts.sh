#!/usr/bin/env bash
# Benchmark: are verdicts the same every time? The same group of proposals — a same-size fix, a
# harmless change, a syntax error, a change that breaks a test, and a hostile fix that starts a
# process in a new session to rewrite the code after its check — is applied with
# `apply --all` RUNS times (default 20), each time in a fresh clone, on a Python project
# (unittest) and on a Rust project (cargo test). Prints each proposal's verdict, how many runs
# gave a verdict other than the first run's (the target is 0), and whether that verdict is the
# one the tree earns.
#
#   bench/verdicts.sh
#   RUNS=5 bench/verdicts.sh
#   PAPAYU_BIN=/path/to/target/debug bench/verdicts.sh     # an already built binary
#
# Needs bash, git, python3 and cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-20}
. bench/common.sh

json_answer() { # path content -> a protocol-1 answer updating one file
	python3 -c 'import json, sys; print(json.dumps({"actions": [{"kind": "UPDATE_FILE", "path": sys.argv[1], "content": sys.argv[2]}]}))' "$1" "$2"
}

# project NAME: makes $WORK/NAME with its proposals in $WORK/NAME.answers/<goal>.json and the
# verdict each should earn in $WORK/NAME.expected ("goal status fixes/breaks").
python_project() {
	local dir="$WORK/python" a="$WORK/python.answers"
	mkdir -p "$dir" "$a"
	git init -q -b main "$dir"
	printf 'def add(a, b):\n    return a - b\n' >"$dir/calc.py"
	printf 'import unittest\n\nfrom calc import add\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n' >"$dir/test_calc.py"
	printf '# calc\n' >"$dir/README.md"
	(cd "$dir" && git add -A && git commit -qm project)
	json_answer calc.py $'def add(a, b):\n    return a + b\n' >"$a/fix.json"
	json_answer README.md $'# calc\n\nAdds numbers.\n' >"$a/harmless.json"
	json_answer test_calc.py $'import unittest\n\nclass Calc(unittest.TestCase:\n' >"$a/syntax.json"
	json_answer calc.py $'def add(a, b):\n    return a - b + 1\n' >"$a/breaks.json"
	json_answer calc.py $'import subprocess\nsubprocess.Popen(["setsid", "sh", "-c", "sleep 1; printf \'def add(a, b):\\\\n    return 0\\\\n\' > calc.py"])\n\n\ndef add(a, b):\n    return a + b\n' >"$a/hostile.json"
	CHECK_python="python3 -m unittest -v"
	cat >"$WORK/python.expected" <<-EOF
		breaks failed 0/1
		fix passed 1/0
		harmless partial 0/0
		hostile passed 1/0
		syntax did_not_run -/-
	EOF
}

rust_project() {
	local dir="$WORK/rust" a="$WORK/rust.answers"
	mkdir -p "$dir/src" "$a"
	git init -q -b main "$dir"
	printf '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n' >"$dir/Cargo.toml"
	local tests=$'\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 3), 5);\n    }\n    #[test]\n    fn zero() {\n        assert_eq!(add(0, 0), 0);\n    }\n}\n'
	printf 'pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n%s' "$tests" >"$dir/src/lib.rs"
	printf '# calc\n' >"$dir/README.md"
	printf '/target\n' >"$dir/.gitignore"
	(cd "$dir" && git add -A && git commit -qm project)
	json_answer src/lib.rs "$(printf 'pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n%s' "$tests")" >"$a/fix.json"
	json_answer README.md $'# calc\n\nAdds numbers.\n' >"$a/harmless.json"
	json_answer src/lib.rs "$(printf 'pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n%s' "$tests")" >"$a/syntax.json"
	json_answer src/lib.rs "$(printf 'pub fn add(a: i32, b: i32) -> i32 {\n    a - b + 1\n}\n%s' "$tests")" >"$a/breaks.json"
	local spawn=$'    let _ = std::process::Command::new("setsid").args(["sh", "-c", "sleep 1; sed -i s/a.+.b/0/ src/lib.rs"]).spawn();\n'
	json_answer src/lib.rs "$(printf 'pub fn add(a: i32, b: i32) -> i32 {\n%s    a + b\n}\n%s' "$spawn" "$tests")" >"$a/hostile.json"
	CHECK_rust="cargo test --offline 2>&1"
	cat >"$WORK/rust.expected" <<-EOF
		breaks failed 0/1
		fix passed 1/0
		harmless partial 0/0
		hostile passed 1/0
		syntax did_not_run -/-
	EOF
}

# one_run NAME N: a fresh clone, every proposal planned, `apply --all`, the verdicts listed.
one_run() {
	local name=$1 n=$2 clone="$WORK/$1-run$2" check_var="CHECK_$1"
	git clone -q "$WORK/$name" "$clone"
	for answer in "$WORK/$name.answers"/*.json; do
		git -C "$clone" papayu plan "$(basename "$answer" .json)" --response "$answer" --protocol 1 >/dev/null
	done
	git -C "$clone" papayu apply --all --check "${!check_var}" >/dev/null 2>&1 || true
	git -C "$clone" papayu list --json | python3 -c '
import json, sys
for plan in json.load(sys.stdin)["plans"]:
    v = plan.get("verdict") or {}
    n = lambda k: "-" if v.get(k) is None else str(v[k])
    print(plan["goal"], v.get("status", "unchecked"), n("fixes") + "/" + n("breaks"))
' | sort
	rm -rf "$clone"
}

bench_project() {
	local name=$1 differed=0 wrong=0 first
	"${name}_project"
	first=$(one_run "$name" 1)
	for i in $(seq 2 "$RUNS"); do
		[ "$(one_run "$name" "$i")" = "$first" ] || differed=$((differed + 1))
	done
	echo "$name: $RUNS runs of apply --all over 5 proposals"
	while read -r goal status counts; do
		expected=$(awk -v g="$goal" '$1 == g { print $2 " " $3 }' "$WORK/$name.expected")
		mark=ok
		[ "$status $counts" = "$expected" ] || { mark="WRONG (earns $expected)"; wrong=$((wrong + 1)); }
		printf '  %-9s %-12s %-6s %s\n' "$goal" "$status" "$counts" "$mark"
	done <<<"$first"
	printf '  runs whose verdicts differed from the first: %d of %d\n' "$differed" "$((RUNS - 1))"
	printf '  verdicts other than the tree earns:         %d of 5\n' "$wrong"
}

bench_project python
bench_project rust
