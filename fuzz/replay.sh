#!/usr/bin/env bash
# The fuzzers' regression run, part of scripts/test.sh: builds every target and runs each input of
# its seeds, its past findings' inputs and its kept corpus once. No new inputs are made; any crash (a trap, a failed property, an
# ASan report) fails the run and names the input.
#   fuzz/replay.sh [TARGET...]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
. fuzz/build.sh

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
export SWIFT_BACKTRACE=enable=no
for target in "${targets[@]}"; do
    build_target "$target"
done
for target in "${targets[@]}"; do
    inputs=(fuzz/seeds/"$target"/*)
    for kept in "fuzz/regressions/$target" "fuzz/corpus/$target"; do
        [ -d "$kept" ] && mapfile -t -O "${#inputs[@]}" inputs < <(find "$kept" -type f | sort)
    done
    log=$out/$target/replay.log
    # Given files rather than directories, libFuzzer runs each once and writes nothing.
    if ! "$out/$target/fuzz-$target" -timeout=10 "${inputs[@]}" >"$log" 2>&1; then
        grep -E "Running:|Fatal error|ERROR: AddressSanitizer|SUMMARY" "$log" | tail -5 >&2
        echo "fuzz: replaying $target failed; the whole log is $log" >&2
        exit 1
    fi
    echo "fuzz: $target: ${#inputs[@]} inputs replayed" >&2
done
