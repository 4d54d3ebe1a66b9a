#!/usr/bin/env bash
# Ingest benchmark: N journal entries of one unit (the journal benchmark's shape) through one app's
# whole pipeline (read, map, redact, gate, encode OTLP JSON, gzip, POST to a loopback sink that keeps
# nothing, cursor saves), next to `journalctl -D DIR -o export > /dev/null` on the same files in the
# same rounds. Reports entries per CPU-second and peak RssAnon.
#
#   bench/ingest/run.sh                        # 1,000,000 entries, 3 rounds, gzip level 1
#   N=200000 ROUNDS=2 LEVELS="1 3" bench/ingest/run.sh
#   JOURNAL_DIR=/var/tmp/ib bench/ingest/run.sh  # keep (or reuse) the generated files there
#   BEFORE=path/to/an/earlier/apsio-bench-ingest bench/ingest/run.sh  # run it in the same rounds
#   BEFORE="four-readers=path/a other=path/b" bench/ingest/run.sh      # several earlier builds, labelled
#   READER_BEFORE="before=path/to/an/earlier/apsio-bench-journal" UNITS=4 bench/ingest/run.sh
#                                              # an earlier one reader of every unit, in the same rounds
#   ENCODINGS="json protobuf" bench/ingest/run.sh  # OTLP/HTTP JSON and protobuf, in the same rounds
#   COMPRESSIONS="gzip zstd" bench/ingest/run.sh   # gzip (at each of LEVELS) and zstd (at each of
#                                              # ZSTD_LEVELS, its default unless set), in the same rounds,
#                                              # with the bytes each sent for the same entries
#   UNITS=4 bench/ingest/run.sh                # N entries of four units, one app per unit in one process
#   MESSAGES=Tests/ApsioRedactionTests/Fixtures/redaction/mix.txt REDACT_RULES="none standard" bench/ingest/run.sh
#                                              # a file's lines as the messages, without and with the redaction library
#   CALLGRIND=/path/to/valgrind/bin N=20000 UNITS=4 BEFORE=path/to/an/earlier/apsio-bench-ingest bench/ingest/run.sh
#                                              # instead of CPU time, instructions (bench/callgrind/README.md):
#                                              # journalctl and each build once under callgrind, and
#                                              # each stage's share (bench/ingest/stages.py)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/swift-env.sh

N=${N:-1000000}
ROUNDS=${ROUNDS:-3}
LEVELS=${LEVELS:-1}
REDACT_RULES=${REDACT_RULES:-standard}
ENCODINGS=${ENCODINGS:-json}
COMPRESSIONS=${COMPRESSIONS:-gzip}
ZSTD_LEVELS=${ZSTD_LEVELS:-default}
MESSAGES=${MESSAGES:-}
UNITS=${UNITS:-1}

work=$(mktemp -d)
sink_pid=
cleanup() {
    if [ -n "$sink_pid" ]; then kill "$sink_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
dir=${JOURNAL_DIR:-$work/journal}
mkdir -p "$dir"
if ! ls "$dir"/*.journal >/dev/null 2>&1; then
    echo "Writing $N entries of $UNITS unit(s) into $dir (systemd-journal-remote)…" >&2
    python3 bench/journal/generate.py "$N" "$UNITS" ${MESSAGES:+"$MESSAGES"} | /lib/systemd/systemd-journal-remote --output="$dir/bench.journal" -
fi

swift build -c release --product apsio-bench-ingest >&2
bench="$(swift build -c release --show-bin-path)/apsio-bench-ingest"
reader=
if [ "$UNITS" -gt 1 ]; then
    swift build -c release --product apsio-bench-journal >&2
    reader="$(swift build -c release --show-bin-path)/apsio-bench-journal"
fi

"$bench" sink > "$work/sink.out" &
sink_pid=$!
for _ in $(seq 100); do grep -q port= "$work/sink.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^port=//p' "$work/sink.out")

if [ -n "${CALLGRIND:-}" ]; then
    . bench/callgrind/env.sh
    callgrind_setup "$CALLGRIND" "$work/callgrind"
    units=$(for u in $(seq 0 $((UNITS - 1))); do printf 'bench%s.service,' "$u"; done)
    units=${units%,}
    matches=$(for u in $(seq 0 $((UNITS - 1))); do printf '_SYSTEMD_UNIT=bench%s.service ' "$u"; done)
    # Each run counts its whole life, from an empty state: the same work for every build.
    count() {
        local out=$1; shift
        LD_PRELOAD=$CALLGRIND_PRELOAD "$CALLGRIND_VALGRIND" --tool=callgrind --callgrind-out-file="$out" "$@" 2>"$out.log" >/dev/null \
            || { cat "$out.log" >&2; exit 1; }
        echo "$(basename "$out"): $(sed -n 's/^==[0-9]*== Collected : //p' "$out.log") instructions" >&2
    }
    count "$work/journalctl.cg" journalctl -D "$dir" -o export $matches
    set -- this "$bench"
    for build in ${BEFORE:-}; do
        case "$build" in *=*) set -- "$@" "${build%%=*}" "${build#*=}" ;; *) set -- "$@" before "$build" ;; esac
    done
    runs=()
    while [ $# -gt 0 ]; do
        rm -rf "$work/state"
        count "$work/$1.cg" "$2" run --journal-dir "$dir" --unit "$units" --backend "http://127.0.0.1:$port" \
            --state-dir "$work/state" --expect "$N" --gzip-level "${LEVELS%% *}"
        runs+=("$1" "$work/$1.cg")
        shift 2
    done
    echo "journal: $N entries of $UNITS unit(s); instructions, each stage inclusive:"
    # Earlier builds first, so that a pair reads before, after.
    ordered=()
    for ((i = ${#runs[@]} - 2; i >= 0; i -= 2)); do ordered+=("${runs[i]}" "${runs[i + 1]}"); done
    python3 bench/ingest/stages.py "$CALLGRIND_ANNOTATE" --journalctl "$work/journalctl.cg" "${ordered[@]}"
    exit 0
fi

echo "machine: $(nproc) CPUs, $(uname -r), $(journalctl --version | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "journal: $(du -sh "$dir" | cut -f1) in $(ls "$dir" | wc -l) file(s)"
python3 bench/ingest/measure.py --dir "$dir" --bench "$bench" --port "$port" --entries "$N" --rounds "$ROUNDS" \
    --work "$work" --units "$UNITS" ${reader:+--reader "$reader"} --levels $LEVELS --redact-rules $REDACT_RULES --encodings $ENCODINGS \
    --compressions $COMPRESSIONS --zstd-levels $ZSTD_LEVELS \
    $(for build in ${BEFORE:-}; do printf -- '--before %s ' "$build"; done) \
    $(for build in ${READER_BEFORE:-}; do printf -- '--reader-before %s ' "$build"; done)
