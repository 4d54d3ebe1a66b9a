#!/usr/bin/env bash
# Journal read benchmark: N entries of several units in a journal directory, read and mapped to
# records by the follower, next to `journalctl -D DIR -o export > /dev/null` and a plain C loop
# over sd_journal_next + sd_journal_enumerate_data on the same files in the same run; once for
# every unit and once for one unit of four.
#
#   bench/journal/run.sh                  # 1,000,000 entries, 4 units, 5 rounds
#   N=200000 ROUNDS=3 bench/journal/run.sh
#   JOURNAL_DIR=/var/tmp/jb bench/journal/run.sh   # keep (or reuse) the generated files there
#   BEFORE=/path/to/older/apsio-bench-journal bench/journal/run.sh   # compare with an earlier build
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/swift-env.sh

N=${N:-1000000}
UNITS=${UNITS:-4}
ROUNDS=${ROUNDS:-5}
here=bench/journal

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=${JOURNAL_DIR:-$work/journal}
mkdir -p "$dir"

if ! ls "$dir"/*.journal >/dev/null 2>&1; then
    echo "Writing $N entries of $UNITS units into $dir (systemd-journal-remote)…" >&2
    python3 "$here/generate.py" "$N" "$UNITS" | /lib/systemd/systemd-journal-remote --output="$dir/bench.journal" -
fi

swift build -c release --product apsio-bench-journal >&2
bench="$(swift build -c release --show-bin-path)/apsio-bench-journal"

cloop=()
if command -v cc >/dev/null 2>&1; then
    cc -O2 -o "$work/cloop" "$here/cloop.c" $(pkg-config --cflags --libs libsystemd)
    cloop=(--cloop "$work/cloop")
fi

before=()
if [ -n "${BEFORE:-}" ]; then before=(--before "$BEFORE"); fi

units=()
for ((u = 0; u < UNITS; u++)); do units+=("bench$u.service"); done

echo "machine: $(nproc) CPUs, $(uname -r), $(journalctl --version | head -1)"
echo "journal: $(du -sh "$dir" | cut -f1) in $(ls "$dir" | wc -l) file(s)"
python3 "$here/measure.py" --dir "$dir" --bench "$bench" "${cloop[@]}" "${before[@]}" --rounds "$ROUNDS" --units "${units[@]}"
