#!/usr/bin/env bash
# Idle cost: apsiod serving APPS configured apps (default 50) that nobody watches, for SECONDS
# (default 60) after a warm-up: resident memory, CPU time and wake-ups per second of the daemon,
# next to the same daemon serving one app in the same run (the ratio says what each app costs).
#
#   bench/idle/run.sh
#   APPS=20 SECONDS_=30 bench/idle/run.sh
#   BEFORE=path/to/an/earlier/apsiod ROUNDS=3 bench/idle/run.sh
#       # that build and this one, APPS apps each, alternated in the same rounds: the ratio says
#       # what a change costs when idle
#
# The host is the simulated one of the tests: a journal directory written by
# systemd-journal-remote, unit state on python-dbusmock's systemd, and a loopback backend that
# answers the policy (no live object: nobody can watch) and accepts logs.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/swift-env.sh
. scripts/private-bus.sh

APPS=${APPS:-50}
DURATION=${SECONDS_:-60}
WARMUP=${WARMUP:-10}

# The build the package ships: the Swift runtime linked statically, as packaging/build-deb.sh makes it.
swift build -c release --static-swift-stdlib --product apsiod >&2
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# A private system bus with systemd's mock and one active unit per app.
start_private_bus "$work"

# The backend: a policy without a live object, and a sink for logs.
python3 bench/idle/backend.py > "$work/backend.out" &
pids+=($!)
for _ in $(seq 100); do grep -q port= "$work/backend.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^port=//p' "$work/backend.out")

mkdir -p "$work/journal"
python3 - "$APPS" <<'PY' | /lib/systemd/systemd-journal-remote --output="$work/journal/system.journal" - >/dev/null
import sys, time
apps = int(sys.argv[1])
now = int(time.time() * 1e6)
for i in range(apps):
    sys.stdout.write(f"__REALTIME_TIMESTAMP={now + i}\n__MONOTONIC_TIMESTAMP={i + 1}\n_BOOT_ID=6c1f0b4e2a9d4c7e8b3f5a1d2e4c6b80\n"
                     f"_SYSTEMD_UNIT=idle{i}.service\nPRIORITY=6\nMESSAGE=started\n\n")
PY

configure() {
    local count=$1 dir=$2
    mkdir -p "$dir/etc/apps.d" "$dir/state" "$dir/run"
    printf '[Indicator]\nMotdFile=\nAnnounceTerminals=no\n' > "$dir/etc/apsiod.conf"
    for i in $(seq 0 $((count - 1))); do
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
            org.freedesktop.DBus.Mock AddMockUnit s "idle$i.service" >/dev/null 2>&1 || true
        printf '[App]\nUnit=idle%d.service\nBackend=http://127.0.0.1:%s\nAppKey=apsio_app_idle_bench\nConsent=granted\n' \
            "$i" "$port" > "$dir/etc/apps.d/idle$i.conf"
    done
}

measure() {
    local count=$1 binary=${2:-$bin/apsiod} dir="$work/run-$1-$RANDOM"
    configure "$count" "$dir"
    "$binary" --config-dir "$dir/etc" --state-dir "$dir/state" --runtime-dir "$dir/run" \
        --journal-dir "$work/journal" --log-level warning 2> "$dir/apsiod.err" &
    local pid=$!
    pids+=($pid)
    sleep "$WARMUP"
    python3 bench/idle/sample.py "$pid" "$DURATION" "$count"
    kill -TERM "$pid"
    wait "$pid" || true
}

echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "idle for ${DURATION}s after ${WARMUP}s of warm-up; nobody watching"

if [ -n "${BEFORE:-}" ]; then
    rounds=()
    for round in $(seq "${ROUNDS:-3}"); do
        rounds+=("before $(measure "$APPS" "$BEFORE")")
        rounds+=("after $(measure "$APPS")")
        echo "round $round: ${rounds[-2]}"
        echo "round $round: ${rounds[-1]}"
    done
    python3 - "${rounds[@]}" <<'PY'
import statistics, sys
runs = {"before": [], "after": []}
for line in sys.argv[1:]:
    words = line.split()
    runs[words[0]].append(dict(part.split("=") for part in words[2:]))
for key in ("rss_mib", "pss_mib", "rss_anon_mib", "cpu_pct", "wakeups_per_s", "fds", "inotify_watches"):
    if any(key not in run for side in runs.values() for run in side):
        continue
    before = statistics.median(float(run[key]) for run in runs["before"])
    after = statistics.median(float(run[key]) for run in runs["after"])
    spread = lambda side: f"{min(float(r[key]) for r in runs[side])}-{max(float(r[key]) for r in runs[side])}"
    ratio = f"{after / before:.2f}x" if before > 0 else "n/a"
    print(f"{key}: before {before:g} ({spread('before')}), after {after:g} ({spread('after')}), after/before {ratio}")
PY
    exit 0
fi

one=$(measure 1)
many=$(measure "$APPS")
echo "$one"
echo "$many"
python3 - "$one" "$many" <<'PY'
import sys
def parse(line):
    return dict(part.split("=") for part in line.split()[1:])
one, many = parse(sys.argv[1]), parse(sys.argv[2])
def ratio(key):
    # No CPU tick counted in the interval is a zero, not a ratio.
    base = float(one[key])
    return f"{float(many[key]) / base:.2f}x" if base > 0 else "n/a (1 app measured 0)"
print(f"ratio {many['apps']} apps / 1 app: rss {ratio('rss_mib')}, pss {ratio('pss_mib')}, "
      f"anon {ratio('rss_anon_mib')}, cpu {ratio('cpu_pct')}, wakeups {ratio('wakeups_per_s')}")
PY
