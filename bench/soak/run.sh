#!/usr/bin/env bash
# Soak: the release apsiod serving a few apps for a long while against a backend that flaps, with
# units restarting, reloads every few seconds, live sessions opening and closing, and journal
# lines flowing at a steady rate. Samples the daemon's memory, descriptors, threads and CPU; at
# the end checks that every journal entry's log.record.uid was accepted by the backend at least
# once (exit 1 if any is missing) and prints the first and last minute side by side with each
# figure's slope over the run. Not run by CI (scripts/test.sh): it takes half an hour.
#
#   nice -n 10 bench/soak/run.sh                 # 3 apps, 30 minutes
#   SOAK_MINUTES=2 bench/soak/run.sh             # a quick look (the flapping schedule shrinks to fit)
#
# Knobs: SOAK_MINUTES (30), SOAK_APPS (3), SOAK_RATE (journal lines a second an app, 20),
# SOAK_SAMPLE_S (5), SOAK_RELOAD_S (5), SOAK_RESTART_S (mean seconds between restarts of a unit,
# 90), SOAK_ROTATE_MIN (minutes between journal rotations; default a third of the run),
# SOAK_DRAIN_S (longest wait for the queue to drain at the end, 360), SOAK_FLAP_SCALE (the
# flapping schedule's time scale; default 1, or less for a run too short for one cycle),
# SOAK_SEED (1), SOAK_KEEP=1 (keep the journal, state and every uid accepted).
#
# The host is the simulated one of the tests (TESTING.md): journal files written by
# systemd-journal-remote, units on python-dbusmock's systemd on a private bus, a backend on
# 127.0.0.1. Everything lives in one mktemp directory; the machine's /etc, /var/lib/apsio and
# /run/apsio are never touched. The report and the samples (CSV) stay in that directory, whose
# path is printed; the bulky parts go when the run ends.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/swift-env.sh
. scripts/private-bus.sh

MINUTES=${SOAK_MINUTES:-30}
APPS=${SOAK_APPS:-3}
SEED=${SOAK_SEED:-1}
PY=/usr/bin/python3  # Debian's: another python3 on PATH may lack the dbus module dbusmock needs

# The build the package ships: the Swift runtime linked statically, as packaging/build-deb.sh makes it.
swift build -c release --static-swift-stdlib --product apsiod >&2
swift build -c release --static-swift-stdlib --product apsioctl >&2
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"

work=$(mktemp -d -t apsio-soak.XXXXXX)
chmod 755 "$work"
# Every process of this run inherits the marker, so the cleanup stops a pid only while it is still
# one of ours (a pid written down earlier may belong to another process by then).
export APSIO_SOAK_RUN="$work"
pids=()
ours() { [ -r "/proc/$1/environ" ] && tr '\0' '\n' < "/proc/$1/environ" 2>/dev/null | grep -qxF "APSIO_SOAK_RUN=$work"; }
soak=
cleanup() {
    local pid
    # soak.py first, given the time to stop what it started (apsiod with SIGTERM, the journal
    # writer, the watcher); then the bus, mock and backend; then anything still ours.
    if [ -n "$soak" ] && ours "$soak"; then
        kill -TERM "$soak" 2>/dev/null || true
        for _ in $(seq 300); do ours "$soak" || break; sleep 0.1; done
    fi
    for pid in "${pids[@]}"; do ours "$pid" && kill -TERM "$pid" 2>/dev/null || true; done
    sleep 0.5
    for pid in $(cat "$work/pids" 2>/dev/null) "${pids[@]}" $soak; do
        ours "$pid" && kill -KILL "$pid" 2>/dev/null || true
    done
    if [ "${SOAK_KEEP:-0}" != 1 ]; then
        rm -rf "$work/journal" "$work/state" "$work/run" "$work/etc" "$work/bus.sock" "$work/backend/accepted.txt"
    fi
    echo "soak files: $work" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A private system bus with systemd's mock.
private_bus_config "$work"
dbus-daemon --config-file="$work/bus.conf" --nofork --print-address=1 > "$work/bus.address" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/bus.address" ] && break; sleep 0.1; done
bus="unix:path=$work/bus.sock"
export DBUS_SYSTEM_BUS_ADDRESS="$bus"
"$PY" -m dbusmock --system --template systemd > "$work/mock.log" 2>&1 &
pids+=($!)
for i in $(seq 101); do
    busctl --address="$bus" status org.freedesktop.systemd1 >/dev/null 2>&1 && break
    [ "$i" -le 100 ] || { echo "the systemd mock did not come up:" >&2; cat "$work/mock.log" >&2; exit 1; }
    sleep 0.1
done

# The backend's port is below the ephemeral range (32768 and up), so that while the backend is
# not listening (the refused phase) no client socket of the machine is given it.
port=$("$PY" -c '
import random, socket
for _ in range(200):
    port = random.randint(20000, 32000)
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
    print(port)
    break
')
# The flapping schedule (60 s healthy, then a 455 s cycle) at full length from 9 minutes on;
# shorter runs get it shrunk so that they still meet every phase once.
scale=${SOAK_FLAP_SCALE:-$("$PY" -c "print(min(1.0, $MINUTES * 60 / 515))")}
mkdir -p "$work/backend"

# The apps' names and keys, as soak.py writes them into the app files.
app_args=()
"$PY" -c "
import uuid
for i in range($APPS):
    print(f'soak{i}=apsio_app_soak_{i}_' + uuid.uuid4().hex[:12])
" > "$work/app-keys"
while read -r pair; do app_args+=(--app "$pair"); done < "$work/app-keys"

"$PY" bench/soak/backend.py --port "$port" --state-dir "$work/state" --out "$work/backend" \
    --scale "$scale" --seed "$SEED" "${app_args[@]}" > "$work/backend/out.log" 2> "$work/backend/err.log" &
backend=$!
pids+=($backend)
for i in $(seq 101); do
    grep -q port= "$work/backend/out.log" 2>/dev/null && break
    [ "$i" -le 100 ] || { echo "the backend did not start:" >&2; cat "$work/backend/err.log" >&2; exit 1; }
    sleep 0.1
done

echo "soak: $APPS apps for $MINUTES min, backend on 127.0.0.1:$port (flapping scale $scale), work in $work" >&2
status=0
"$PY" bench/soak/soak.py --work "$work" --apsiod "$bin/apsiod" --apsioctl "$bin/apsioctl" --bus "$bus" \
    --backend-out "$work/backend" --backend-pid "$backend" --port "$port" --app-keys "$work/app-keys" \
    --apps "$APPS" --minutes "$MINUTES" --rate "${SOAK_RATE:-20}" --sample-s "${SOAK_SAMPLE_S:-5}" \
    --reload-s "${SOAK_RELOAD_S:-5}" --restart-s "${SOAK_RESTART_S:-90}" --rotate-min "${SOAK_ROTATE_MIN:-0}" \
    --drain-s "${SOAK_DRAIN_S:-360}" --seed "$SEED" &
soak=$!
wait "$soak" || status=$?
exit "$status"
