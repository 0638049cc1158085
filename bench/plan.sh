#!/usr/bin/env bash
# The plan cycle's own overhead with a fake provider that answers at once, against
# `git ls-tree -r HEAD` on the same repositories. Usage: bench/plan.sh [FILES…] (default 100 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
PATH="$PWD/target/release:$PATH" cargo run --release --quiet --example plan_bench -- "$@"
