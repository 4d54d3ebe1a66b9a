#!/usr/bin/env bash
# Live latency: from a journal entry of the watched app appended to the files apsiod reads
# (`--journal-dir`) to that line arriving at the backend in a live `frames` body, measured from
# outside. Its floor is the one-second frames interval (spec 16.5: uploads at most once a second).
# APPS apps (default 4), each an active unit; one is watched live (a session open, one viewer),
# the others idle; with STUCK=1 one more app whose own backend answers 503 to every /v1/logs and
# which has BACKLOG entries (default 5000) to send, so it is far behind the whole time. Lines of the
# watched app go at RATE a second (default 5) for SECONDS_ (default 60) after WARMUP (default 10).
# Prints the lines written, those missing, latency p50/p90/p99/max in ms, and the frames interval.
# Each line goes at a random point of its 1/RATE slot (seeded): on the slot's edge, 5 lines a second
# against one body a second would sample only five phases of the frames clock. A line's write time
# is read once its journal-remote run returned; apsiod may read the entry before that process has
# exited, so the smallest latency can come out a few ms below zero.
#
#   bench/live/run.sh
#   APSIOD=.build/release/apsiod APPS=4 STUCK=1 SECONDS_=60 bench/live/run.sh
#       # a given build, not built here (apsioctl is taken from APSIOCTL, or next to it, or .build)
#   BEFORE=path/to/an/earlier/apsiod ROUNDS=3 bench/live/run.sh
#       # that build and this one alternated in the same rounds, side by side with ratios
#   DUMP=/var/tmp/live bench/live/run.sh
#       # also writes each measured line's number, write start, write end and arrival
#       # (monotonic seconds) to /var/tmp/live.1, .2, ... (one file per measurement)
#
# The host is the simulated one of the tests: a journal directory written by
# systemd-journal-remote, unit state on python-dbusmock's systemd, and a loopback backend
# (bench/live/measure.py) that lists the watched install as a tester and answers the live channel
# as Tests/ApsioTestSupport/ScriptedLiveBackend.swift does. The writer and the backend are one
# process, so a line's write time and its arrival are read from the same clock. No figure is
# checked against anything: this prints them.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/private-bus.sh

APPS=${APPS:-4}
STUCK=${STUCK:-0}
BACKLOG=${BACKLOG:-5000}
DURATION=${SECONDS_:-60}
WARMUP=${WARMUP:-10}
RATE=${RATE:-5}
# The Debian python: another python3 earlier in PATH may lack the dbus module dbusmock needs.
PY=/usr/bin/python3

if [ -n "${APSIOD:-}" ]; then
    bin=$(cd "$(dirname "$APSIOD")" && pwd)
    apsiod=$APSIOD
else
    . scripts/swift-env.sh
    # The build the package ships: the Swift runtime linked statically, as packaging/build-deb.sh makes it.
    swift build -c release --static-swift-stdlib --product apsiod >&2
    swift build -c release --static-swift-stdlib --product apsioctl >&2
    bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"
    apsiod=$bin/apsiod
fi
# apsioctl turns allow-live on through the control socket, as an operator does.
find_ctl() {
    local dir=$1
    for candidate in "${APSIOCTL:-}" "$dir/apsioctl" .build/release/apsioctl .build/debug/apsioctl; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
    echo "no apsioctl found: set APSIOCTL=path/to/apsioctl" >&2
    exit 1
}
ctl=$(find_ctl "$bin")

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    sleep 0.2
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# A private system bus with systemd's mock.
private_bus_config "$work"
dbus-daemon --config-file="$work/bus.conf" --nofork --print-address=1 > "$work/bus.address" 2> "$work/bus.err" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/bus.address" ] && break; sleep 0.1; done
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus.sock"
$PY -m dbusmock --system --template systemd > "$work/mock.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status org.freedesktop.systemd1 >/dev/null 2>&1 && break
    sleep 0.1
done

# One invocation for every unit: the journal's _SYSTEMD_INVOCATION_ID matches the unit's.
invocation=0123456789abcdef0123456789abcdef
invocation_bytes=$(echo "$invocation" | sed 's/../0x& /g' | xargs printf '%d ')
mock() {
    busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.systemd1 "$@" >/dev/null
}
# Each unit with the properties real systemd has and the template leaves out (as
# Tests/ApsioTestSupport/SystemdMock.swift adds them), then active and running: the watched
# app's channel opens only while its unit is active.
add_unit() {
    local unit=$1 path="/org/freedesktop/systemd1/unit/${1//[.-]/_}"
    mock /org/freedesktop/systemd1 org.freedesktop.DBus.Mock AddMockUnit s "$unit"
    mock "$path" org.freedesktop.DBus.Mock AddProperty ssv org.freedesktop.systemd1.Unit SubState s dead
    mock "$path" org.freedesktop.DBus.Mock AddProperty ssv org.freedesktop.systemd1.Unit FreezerState s running
    # shellcheck disable=SC2086
    mock "$path" org.freedesktop.DBus.Mock AddProperty ssv org.freedesktop.systemd1.Unit InvocationID ay 16 $invocation_bytes
    mock "$path" org.freedesktop.DBus.Mock AddProperty ssv org.freedesktop.systemd1.Service MainPID u 0
    mock "$path" org.freedesktop.DBus.Mock AddProperty ssv org.freedesktop.systemd1.Service ControlGroup s ""
    mock "$path" org.freedesktop.DBus.Mock UpdateProperties 'sa{sv}' org.freedesktop.systemd1.Unit 2 \
        ActiveState s active SubState s running
}
watched=live0
apps=("$watched")
for i in $(seq 1 $((APPS - 1))); do apps+=("idle$i"); done
[ "$STUCK" = 1 ] && apps+=(stuck)
for app in "${apps[@]}"; do add_unit "$app.service"; done

# The journal: one line per unit, and the stuck app's backlog, written once before any
# measurement. Every measurement starts from a fresh state directory, so the stuck app (StartAt=head)
# has the whole backlog to send each time, and the watched one (StartAt=now) only the new lines.
mkdir -p "$work/journal"
$PY - "$BACKLOG" "$STUCK" "$invocation" "${apps[@]}" <<'PY' | /lib/systemd/systemd-journal-remote --output="$work/journal/system.journal" - >/dev/null 2>"$work/journal-remote.err"
import sys, time
backlog, stuck, invocation, apps = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3], sys.argv[4:]
boot = open("/proc/sys/kernel/random/boot_id").read().strip().replace("-", "")
now, mono = int(time.time() * 1e6), int(time.monotonic() * 1e6)
n = 0
def entry(unit, message):
    global n
    n += 1
    sys.stdout.write(f"__REALTIME_TIMESTAMP={now - 10_000_000 + n}\n__MONOTONIC_TIMESTAMP={mono - 10_000_000 + n}\n"
                     f"_BOOT_ID={boot}\n_SYSTEMD_UNIT={unit}\n_SYSTEMD_INVOCATION_ID={invocation}\n_PID=4242\n"
                     f"_TRANSPORT=stdout\nPRIORITY=6\nMESSAGE={message}\n\n")
for app in apps:
    entry(f"{app}.service", "started")
for i in range(backlog if stuck else 0):
    entry("stuck.service", f"backlog line {i} of the stuck app, waiting for its backend to come back")
PY

configure() {
    local dir=$1 port=$2 stuck_port=$3
    mkdir -p "$dir/etc/apps.d" "$dir/state" "$dir/run"
    printf '[Indicator]\nMotdFile=\nAnnounceTerminals=no\n' > "$dir/etc/apsiod.conf"
    for app in "${apps[@]}"; do
        local backend="http://127.0.0.1:$port" key="apsio_app_live_bench_idle" extra=""
        case $app in
            "$watched") key="apsio_app_live_bench_watched" ;;
            stuck) backend="http://127.0.0.1:$stuck_port" key="apsio_app_live_bench_stuck" extra="StartAt=head\n" ;;
        esac
        printf "[App]\nUnit=%s.service\nName=com.example.%s\nVersion=1.0.0\nBackend=%s\nAppKey=%s\nConsent=granted\n$extra" \
            "$app" "$app" "$backend" "$key" > "$dir/etc/apps.d/$app.conf"
    done
}

# One measurement: a fresh backend and state, the daemon started, live allowed for the watched app,
# and measure.py's figures once it is done, as one line of key=value words in $result. Not run in
# a $(...) subshell: the pids it starts must reach the trap.
round_number=0
measure() {
    local binary=$1 ctl=$2
    round_number=$((round_number + 1))
    local dir="$work/run-$round_number"
    mkdir -p "$dir"
    $PY bench/live/measure.py --state-dir "$dir/state" --journal-dir "$work/journal" --watched "$watched" \
        --invocation "$invocation" --seconds "$DURATION" --warmup "$WARMUP" --rate "$RATE" ${DUMP:+--dump "$DUMP.$round_number"} > "$dir/measure.out" &
    local mpid=$!
    pids+=($mpid)
    for _ in $(seq 100); do grep -q port= "$dir/measure.out" 2>/dev/null && break; sleep 0.1; done
    local port stuck_port
    port=$(sed -n 's/^port=\([0-9]*\) .*/\1/p' "$dir/measure.out")
    stuck_port=$(sed -n 's/.*stuck_port=\([0-9]*\)/\1/p' "$dir/measure.out")
    configure "$dir" "$port" "$stuck_port"
    local dirs=(--config-dir "$dir/etc" --state-dir "$dir/state" --runtime-dir "$dir/run")
    "$binary" "${dirs[@]}" --journal-dir "$work/journal" --log-level warning 2> "$dir/apsiod.err" &
    local pid=$!
    pids+=($pid)
    # `status` needs the daemon on its socket (`apps` does not: it reads the files): allow-live
    # then goes to the running daemon, as an operator's would.
    for _ in $(seq 300); do "$ctl" "${dirs[@]}" --json status >/dev/null 2>&1 && break; sleep 0.1; done
    "$ctl" "${dirs[@]}" allow-live on "$watched" >/dev/null
    local status=0
    wait "$mpid" || status=$?
    # Where the stuck app stands at the end: the backlog should still be waiting.
    "$ctl" "${dirs[@]}" --json status > "$dir/status.json" 2>/dev/null || true
    local standing
    standing=$($PY - "$dir/status.json" "$watched" <<'PY'
import json, sys
try:
    apps = {app["name"]: app for app in json.load(open(sys.argv[1]))["apps"]}
except (OSError, ValueError, KeyError):
    sys.exit(0)
watched, stuck = apps.get(sys.argv[2], {}), apps.get("stuck")
words = [f"viewers={watched.get('viewers')}"]
if stuck:
    words += [f"stuck_queued={stuck['ingest']['queued_records']}", f"stuck_sent={stuck['ingest']['sent_records']}"]
print(" ".join(words))
PY
)
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" || true
    if [ "$status" != 0 ]; then
        echo "measurement failed ($status): $(tail -1 "$dir/measure.out")" >&2
        tail -20 "$dir/apsiod.err" >&2
        exit 1
    fi
    result="apps=$APPS stuck=$STUCK $(tail -1 "$dir/measure.out") $standing"
}

echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "apps: $APPS ($watched watched, $((APPS - 1)) idle)$([ "$STUCK" = 1 ] && echo ", + stuck with a backlog of $BACKLOG behind 503s")"
echo "lines: $RATE a second for ${DURATION}s after ${WARMUP}s of warm-up, one journal-remote run each"

if [ -n "${BEFORE:-}" ]; then
    before_ctl=$(find_ctl "$(cd "$(dirname "$BEFORE")" && pwd)")
    rounds=()
    for round in $(seq "${ROUNDS:-3}"); do
        measure "$BEFORE" "$before_ctl"
        rounds+=("before $result")
        echo "round $round: ${rounds[-1]}"
        measure "$apsiod" "$ctl"
        rounds+=("after $result")
        echo "round $round: ${rounds[-1]}"
    done
    $PY - "${rounds[@]}" <<'PY'
import statistics, sys
runs = {"before": [], "after": []}
for line in sys.argv[1:]:
    words = line.split()
    runs[words[0]].append(dict(part.split("=", 1) for part in words[1:]))
print("| figure | before (median, range) | after (median, range) | after/before |")
print("|---|---:|---:|---:|")
for key in ("lines", "missing", "p50_ms", "p90_ms", "p99_ms", "max_ms", "interval_p50_ms", "interval_min_ms",
            "interval_max_ms", "lines_per_body"):
    values = {side: [float(run[key]) for run in runs[side]] for side in runs}
    before, after = statistics.median(values["before"]), statistics.median(values["after"])
    ratio = f"{after / before:.2f}x" if before > 0 else "n/a"
    spread = lambda side: f"{min(values[side]):g}-{max(values[side]):g}"
    print(f"| {key} | {before:g} ({spread('before')}) | {after:g} ({spread('after')}) | {ratio} |")
PY
    exit 0
fi

measure "$apsiod" "$ctl"
echo "$result"
