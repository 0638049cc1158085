#!/usr/bin/env bash
# Runs the patch benchmark: fetches the corpus if needed, then the accuracy and speed runs.
# Extra arguments go to the harness (see `--help`), e.g. `bench/patch/run.sh --no-git`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
"$here/fetch.sh"
cd "$root"
cargo run --quiet --release --locked --example patch_bench -- \
    --corpus bench/patch/corpus.txt --cache bench/.cache/crates "$@"
