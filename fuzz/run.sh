#!/usr/bin/env bash
# Builds a libFuzzer binary for one HTTP parser and runs it.
#   fuzz/run.sh response|request [seconds]   (default 60)
# Binaries, the growing corpus and any crash files go to fuzz/out/ (not in git).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/swift-env.sh

target=${1:?usage: fuzz/run.sh response|request [seconds]}
seconds=${2:-60}
case "$target" in
    response) entry=fuzz/ResponseParserFuzz.swift ;;
    request) entry=fuzz/RequestParserFuzz.swift ;;
    *) echo "unknown target $target (response or request)" >&2; exit 2 ;;
esac

# The parsers import nothing, so they compile into the fuzzer on their own, without the package.
parsers=(
    HTTPLimits HTTPHeaders HTTPParseError HTTPSyntax HTTPHeadParser ChunkedDecoder
    HTTPResponseHead HTTPResponseParser HTTPRequestHead HTTPRequestParser HTTPDate RetryAfter QueryString
)
sources=()
for name in "${parsers[@]}"; do sources+=("Sources/ApsioNet/$name.swift"); done

# The Swift runtime's own crash handler fights with ASan's; libFuzzer reports crashes itself.
export SWIFT_BACKTRACE=enable=no

out=fuzz/out/$target
mkdir -p "$out/corpus" "$out/crashes"
swiftc -O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 \
    -o "$out/fuzz-$target" fuzz/FuzzSupport.swift "$entry" "${sources[@]}" 2>&1 \
    | grep -v "Cannot export local symbol '__asan" >&2 || true
[ -x "$out/fuzz-$target" ] || { echo "build failed" >&2; exit 1; }

"$out/fuzz-$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
    -artifact_prefix="$out/crashes/" -print_final_stats=1 \
    "$out/corpus" "fuzz/seeds/$target"
