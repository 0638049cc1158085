#!/usr/bin/env bash
# How often a plan's first request carries the files a real fix changed, against BM25 under
# the same diet, on the history of the repositories given (bare or not; each needs its history).
# Usage: bench/context_quality.sh [--cases N] [--issues FILE] [--misses] REPO…   (N newest fixing commits a
# repository, default 40; --issues FILE judges issue texts instead of commit messages: JSON lines
# {"commit": "<id or prefix>", "goal": "<the issue's title and text>"}; --misses prints each missed
# case, what was sent and why, and where the gold ranked)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet --example context_quality -- "$@"
