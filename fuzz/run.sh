#!/usr/bin/env bash
# Builds one fuzz target and runs a campaign on it, then minimizes what it found into the corpus
# kept in git.
#   fuzz/run.sh TARGET [seconds] [runs]   (default 60 seconds, no limit on runs)
# Targets: response request json control config gzip zstd queue cursor redact pattern resp otlp (docs/fuzzing.md).
# libFuzzer's output, with its final stats, is kept in fuzz/out/TARGET/campaign.log.
# The growing corpus and any crash files go to fuzz/out/TARGET/ (not in git); the minimized corpus
# to fuzz/corpus/TARGET/, which fuzz/replay.sh (and so scripts/test.sh) runs every input of, with
# fuzz/seeds/TARGET/ and the inputs of past findings in fuzz/regressions/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
. fuzz/build.sh

target=${1:?usage: fuzz/run.sh TARGET [seconds] [runs]  (TARGET: ${all_targets[*]})}
seconds=${2:-60}
runs=${3:--1}
build_target "$target"

# The Swift runtime's own crash handler fights with ASan's; libFuzzer reports crashes itself.
export SWIFT_BACKTRACE=enable=no

binary=$out/$target/fuzz-$target
work=$out/$target/corpus
kept=fuzz/corpus/$target
seeds=fuzz/seeds/$target
regressions=fuzz/regressions/$target
mkdir -p "$work" "$out/$target/crashes" "$kept"
# Past findings' inputs: the campaign starts from them too.
inputs=("$work" "$kept" "$seeds")
[ -d "$regressions" ] && inputs+=("$regressions")
# A dictionary gives the fuzzer the words of a format (keys, magic numbers) it would take long to guess.
dictionary=()
[ -f "fuzz/dicts/$target.dict" ] && dictionary=(-dict="fuzz/dicts/$target.dict")
status=0
"$binary" -max_total_time="$seconds" -runs="$runs" -max_len=4096 -timeout=10 "${dictionary[@]}" \
    -artifact_prefix="$out/$target/crashes/" -print_final_stats=1 \
    "${inputs[@]}" 2> >(tee "$out/$target/campaign.log" >&2) || status=$?

# The smallest set of inputs that reaches every edge reached, the seeds' and the regressions' own
# left out (they are kept beside it). Edges, not libFuzzer's finer features (how often each edge
# ran), keep the corpus in git to a few hundred small files. libFuzzer names each input by the
# SHA-1 of its bytes.
merged=$out/$target/merged
rm -rf "$merged" && mkdir -p "$merged"
"$binary" -merge=1 -use_counters=0 -max_len=4096 -timeout=10 "$merged" "${inputs[@]}" 2>"$out/$target/merge.log" \
    || { echo "merge failed: $out/$target/merge.log" >&2; exit 1; }
for input in "$seeds"/* "$regressions"/*; do
    [ -f "$input" ] && rm -f "$merged/$(sha1sum <"$input" | cut -d' ' -f1)"
done
rm -rf "$kept" && mv "$merged" "$kept"
echo "fuzz: $target corpus: $(find "$kept" -type f | wc -l) inputs, $(du -sk "$kept" | cut -f1) KiB in $kept" >&2
exit "$status"
