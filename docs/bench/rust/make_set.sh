#!/usr/bin/env bash
# The held-out Rust set (issue 32): the crates this directory's Cargo.lock
# pins (serde, regex, tokio, clap, rand, itertools, hashbrown, bytes and
# their dependencies; 60 crates, 64 MB), vendored from crates.io, then 2,000
# /// doc → fn pairs with typo queries, seed 1.
#
#   bash docs/bench/rust/make_set.sh OUT_DIR [CGRAPH]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: make_set.sh OUT_DIR [CGRAPH]}
cgraph=${2:-cgraph}
work=$(mktemp -d)
cp "$here/Cargo.toml" "$here/Cargo.lock" "$work/"
mkdir -p "$work/src" && echo 'fn main() {}' >"$work/src/main.rs"
(cd "$work" && cargo vendor --locked -q vendor >/dev/null)
"$cgraph" bench prepare csn-rust --src "$work/vendor" --out "$out" --typos --max 2000 --seed 1
rm -rf "$work"
