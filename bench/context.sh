#!/usr/bin/env bash
# The context engine on a generated 100,000-file repository: search against `git grep -n`,
# the repository map against `git ls-tree -r`, cold and warm. Usage: bench/context.sh [FILES…]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet --example context_bench -- "$@"
