#!/usr/bin/env bash
# How long journald's note that it dropped a unit's lines (MESSAGE_ID=a596d6fe…, N_DROPPED=) takes
# to reach the backend as apsiod's record for it: from just before systemd-journal-remote writes
# the note into the journal file (as journald would) to the moment a batch holding the record
# arrives. ROUNDS notes (default 20), one at a time, each with a new
# count; the median and the largest against the 2 s the record is owed in.
#
#   bench/journald-drop/run.sh
#   BIN=.build/debug ROUNDS=10 bench/journald-drop/run.sh   # a build already made
#
# The host is the simulated one of the tests: a journal directory written by
# systemd-journal-remote, unit state on python-dbusmock's systemd, a loopback backend.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/swift-env.sh
. scripts/private-bus.sh

ROUNDS=${ROUNDS:-20}
if [ -z "${BIN:-}" ]; then
    # The build the package ships: the Swift runtime linked statically, as packaging/build-deb.sh makes it.
    swift build -c release --static-swift-stdlib --product apsiod >&2
    BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)"
fi

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

start_private_bus "$work"
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
    org.freedesktop.DBus.Mock AddMockUnit s "noisy.service" >/dev/null 2>&1 || true

python3 -u bench/journald-drop/backend.py > "$work/backend.out" &
pids+=($!)
for _ in $(seq 100); do grep -q port= "$work/backend.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^port=//p' "$work/backend.out")

mkdir -p "$work/journal" "$work/etc/apps.d" "$work/state" "$work/run"
printf '[Indicator]\nMotdFile=\nAnnounceTerminals=no\n' > "$work/etc/apsiod.conf"
printf '[App]\nUnit=noisy.service\nBackend=http://127.0.0.1:%s\nAppKey=apsio_app_drop_bench\nConsent=granted\nEncoding=json\n' \
    "$port" > "$work/etc/apps.d/noisy.conf"

# One line of the unit first, so that the journal file exists when apsiod opens it.
entry() { # UNIT-LINE or NOTE COUNT
    python3 - "$@" <<'PY'
import sys, time
now = int(time.time() * 1e6)
head = f"__REALTIME_TIMESTAMP={now}\n__MONOTONIC_TIMESTAMP={now}\n_BOOT_ID=6c1f0b4e2a9d4c7e8b3f5a1d2e4c6b80\n"
if sys.argv[1] == "line":
    mark = sys.argv[2] if len(sys.argv) > 2 else "0"
    sys.stdout.write(head + f"_SYSTEMD_UNIT=noisy.service\n_TRANSPORT=journal\nPRIORITY=6\nMESSAGE=bench line {mark}\n\n")
else:
    count = sys.argv[2]
    sys.stdout.write(head + "_SYSTEMD_UNIT=systemd-journald.service\n_TRANSPORT=driver\nPRIORITY=6\n"
                     "SYSLOG_IDENTIFIER=systemd-journald\nMESSAGE_ID=a596d6fe7bfa4994828e72309e95d61e\n"
                     f"MESSAGE=Suppressed {count} messages from noisy.service\nN_DROPPED={count}\n"
                     "OBJECT_SYSTEMD_UNIT=noisy.service\n\n")
PY
}
entry line | /lib/systemd/systemd-journal-remote --output="$work/journal/system.journal" - 2>/dev/null

"$BIN/apsiod" --config-dir "$work/etc" --state-dir "$work/state" --runtime-dir "$work/run" \
    --journal-dir "$work/journal" --log-level warning 2> "$work/apsiod.err" &
pids+=($!)
# Serving once its first line arrived at the sink's port: the policy was read and ingest runs.
sleep 3

# The time from just before WHAT (line or note) numbered COUNT is written to its arrival.
latency() {
    local what=$1 count=$2 text written arrived=""
    text=$(entry "$what" "$count")
    # Taken before the write: what is measured includes systemd-journal-remote's own run, so it
    # is an upper bound of the time from the note in the file to the record at the backend.
    written=$(python3 -c 'import time; print(f"{time.monotonic():.6f}")')
    printf '%s\n\n' "$text" | /lib/systemd/systemd-journal-remote --output="$work/journal/system.journal" - 2>/dev/null
    for _ in $(seq 1000); do
        arrived=$(sed -n "s/^arrived $count //p" "$work/backend.out")
        [ -n "$arrived" ] && break
        sleep 0.01
    done
    [ -n "$arrived" ] || { echo "the $what $count never arrived" >&2; cat "$work/apsiod.err" >&2; exit 1; }
    python3 -c "print(f'{max(0.0, $arrived - $written):.3f}')"
}

echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
# A note and one of the unit's own lines in each round, alternated: the line is the baseline.
notes=()
lines=()
for round in $(seq "$ROUNDS"); do
    notes+=("$(latency note $((1000 + round)))")
    sleep 0.3
    lines+=("$(latency line $((5000 + round)))")
    sleep 0.3
done
python3 - "${#notes[@]}" "${notes[@]}" "${lines[@]}" <<'PY'
import statistics, sys
count = int(sys.argv[1])
notes = [float(v) for v in sys.argv[2:2 + count]]
lines = [float(v) for v in sys.argv[2 + count:]]
def say(name, values):
    return f"{name}: median {statistics.median(values):.3f} s, largest {max(values):.3f} s, smallest {min(values):.3f} s"
print(say(f"journald's note to the backend ({count} notes)", notes) + " (owed within 2 s)")
print(say(f"the unit's own line to the backend ({count} lines)", lines))
print(f"note / line, medians: {statistics.median(notes) / max(statistics.median(lines), 1e-6):.2f}x")
PY
