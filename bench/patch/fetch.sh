#!/usr/bin/env bash
# Downloads the crate versions named in corpus.txt from crates.io into bench/.cache/crates.
# Only the registry is contacted; already fetched versions are skipped.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/../.cache/crates"
mkdir -p "$cache"
grep -v '^#' "$here/corpus.txt" | while read -r name versions; do
    [ -n "$name" ] || continue
    for v in $versions; do
        dir="$cache/$name-$v"
        [ -d "$dir" ] && continue
        url="https://static.crates.io/crates/$name/$name-$v.crate"
        echo "fetching $name $v" >&2
        curl -fsSL --retry 2 "$url" -o "$cache/$name-$v.crate"
        tar -xzf "$cache/$name-$v.crate" -C "$cache"
        rm -f "$cache/$name-$v.crate"
    done
done
