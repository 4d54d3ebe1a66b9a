#!/usr/bin/env bash
# The demo in one command (`make demo`): builds what it needs, starts apsio-devbackend on loopback
# with a demo account, a demo service that logs a few lines a second (an occasional warning and
# error), and apsiod watching it with live inspection allowed; prints the viewer's address and the
# account. Ctrl-C stops everything it started, by pid.
#
# With systemd running, the demo service is a transient unit (systemd-run). Without it (a
# container, a CI machine) the host is simulated as the tests simulate it: the journal is a
# directory that systemd-journal-remote writes, and the unit's state comes from python-dbusmock on
# a private system bus. The demo says which on screen.
#
# Environment: DEMO_PORT (default 8787), DEMO_DEVICE=scripted to show the viewer with the scripted
# test device of Tests/Browser instead of apsiod.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scripts/install-deps.sh
. scripts/swift-env.sh

port=${DEMO_PORT:-8787}
app=com.example.demo
unit=apsio-demo.service
app_key=apsio_app_demo_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
user=demo
password=$(od -An -N9 -tx1 /dev/urandom | tr -d ' \n')
tester=demo-box
base="http://127.0.0.1:$port"

echo "Building apsio-devbackend, apsiod and apsioctl…"
for product in apsio-devbackend apsiod apsioctl; do swift build --product "$product" >/dev/null; done
bin=$(swift build --show-bin-path)

work=$(mktemp -d "${TMPDIR:-/tmp}/apsio-demo.XXXXXX")
pids=()
transient_unit=""
cleanup() {
    trap - EXIT INT TERM
    echo
    echo "Stopping the demo…"
    [ -n "$transient_unit" ] && systemctl stop "$transient_unit" 2>/dev/null || true
    local i
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill -TERM "${pids[i]}" 2>/dev/null || true; done
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        for _ in $(seq 50); do kill -0 "${pids[i]}" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "${pids[i]}" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
    local seconds=$1
    shift
    for _ in $(seq $((seconds * 10))); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}

mkdir -p "$work/config/apps.d" "$work/state" "$work/runtime" "$work/journal"
cat >"$work/config/apsiod.conf" <<CONF
[Indicator]
MotdFile=$work/runtime/motd
AnnounceTerminals=no
CONF
cat >"$work/config/apps.d/demo.conf" <<CONF
[App]
Unit=$unit
Name=$app
Backend=$base
AppKey=$app_key
Consent=granted
CONF

# --- the demo service -------------------------------------------------------------------------
messages=("GET /orders/\$n 200" "POST /cart/\$n/items 201" "GET /health 200" "order \$n shipped")
demo_line() { # prints "PRIORITY MESSAGE" for line number $1
    local n=$1 roll=$((RANDOM % 100))
    if [ $roll -lt 4 ]; then echo "3 upstream inventory timed out for order $n"
    elif [ $roll -lt 15 ]; then echo "4 slow query on orders took $((RANDOM % 900 + 100))ms"
    else echo "6 $(eval echo "${messages[RANDOM % ${#messages[@]}]}") $((RANDOM % 300 + 2))ms"; fi
}

apsiod_env=()
apsiod_args=(--config-dir "$work/config" --state-dir "$work/state" --runtime-dir "$work/runtime")
if [ -d /run/systemd/system ] && [ "${DEMO_DEVICE:-}" != scripted ]; then
    mode="this machine's systemd: $unit is a transient unit, apsiod reads the system journal"
    transient_unit=$unit
    systemd-run --unit="$unit" --collect --quiet -p SyslogIdentifier=demo-service /bin/bash -c '
        n=1000
        while sleep 0.4; do
            n=$((n + 1)); roll=$((RANDOM % 100))
            if [ $roll -lt 4 ]; then echo "<3>upstream inventory timed out for order $n"
            elif [ $roll -lt 15 ]; then echo "<4>slow query on orders took $((RANDOM % 900 + 100))ms"
            else echo "<6>GET /orders/$n 200 $((RANDOM % 300 + 2))ms"; fi
        done'
else
    mode="a simulated host (no systemd running): a journal directory written by systemd-journal-remote, unit state from python-dbusmock on a private bus"
    # The journal: systemd-journal-remote appends each export-format entry from a pipe.
    mkfifo "$work/journal.fifo"
    /lib/systemd/systemd-journal-remote --output="$work/journal/demo.journal" - <"$work/journal.fifo" &
    pids+=($!)
    invocation=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    boot=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    (
        exec 3>"$work/journal.fifo"
        n=1000
        while sleep 0.4; do
            n=$((n + 1))
            read -r priority message <<<"$(demo_line $n)"
            printf '__REALTIME_TIMESTAMP=%s\n__MONOTONIC_TIMESTAMP=%s\n_BOOT_ID=%s\n_SYSTEMD_UNIT=%s\n_SYSTEMD_INVOCATION_ID=%s\n_PID=%s\n_COMM=demo-service\n_TRANSPORT=stdout\nSYSLOG_IDENTIFIER=demo-service\nPRIORITY=%s\nMESSAGE=%s\n\n' \
                "$(date +%s%6N)" "$(cut -d' ' -f1 /proc/uptime | tr -d .)0000" "$boot" "$unit" "$invocation" \
                "$BASHPID" "$priority" "$message" >&3
        done
    ) &
    service_pid=$!
    pids+=($service_pid)

    # The system bus, with systemd's mock on it.
    cat >"$work/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path=$work/bus.sock</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/>
<allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/></policy></busconfig>
CONF
    dbus-daemon --config-file="$work/bus.conf" --nofork >"$work/bus.log" 2>&1 &
    pids+=($!)
    export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus.sock"
    wait_for 30 test -S "$work/bus.sock"
    /usr/bin/python3 -m dbusmock --system --template systemd >/dev/null 2>&1 &
    pids+=($!)
    mock() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.systemd1 "$@"; }
    wait_for 30 busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status org.freedesktop.systemd1
    mock /org/freedesktop/systemd1 org.freedesktop.DBus.Mock AddMockUnit s "$unit" >/dev/null
    path=/org/freedesktop/systemd1/unit/${unit//[.-]/_}
    invocation_bytes=$(echo "$invocation" | sed 's/../0x& /g')
    mock "$path" org.freedesktop.DBus.Mock AddProperty ssv org.freedesktop.systemd1.Unit SubState s running >/dev/null
    mock "$path" org.freedesktop.DBus.Mock AddProperty ssv org.freedesktop.systemd1.Unit FreezerState s running >/dev/null
    # shellcheck disable=SC2086
    mock "$path" org.freedesktop.DBus.Mock AddProperty ssv org.freedesktop.systemd1.Unit InvocationID ay 16 $invocation_bytes >/dev/null
    mock "$path" org.freedesktop.DBus.Mock AddProperty ssv org.freedesktop.systemd1.Service MainPID u "$service_pid" >/dev/null
    mock "$path" org.freedesktop.DBus.Mock AddProperty ssv org.freedesktop.systemd1.Service ControlGroup s "" >/dev/null
    mock "$path" org.freedesktop.DBus.Mock UpdateProperties 'sa{sv}' org.freedesktop.systemd1.Unit 1 ActiveState s active >/dev/null
    apsiod_args+=(--journal-dir "$work/journal")
fi

# --- apsiod, or the scripted test device while apsiod cannot serve ----------------------------
ctl=("$bin/apsioctl" --runtime-dir "$work/runtime" --state-dir "$work/state" --config-dir "$work/config")
install=""
device="apsiod"
if [ "${DEMO_DEVICE:-}" != scripted ]; then
    "${ctl[@]}" allow-live on "$app" || echo "warning: 'apsioctl allow-live on' failed (above)" >&2
    "$bin/apsiod" "${apsiod_args[@]}" >"$work/apsiod.log" 2>&1 &
    apsiod_pid=$!
    pids+=($apsiod_pid)
    # The installation id is made the first time apsiod serves the app; the tester entry needs it.
    for _ in $(seq 300); do
        kill -0 "$apsiod_pid" 2>/dev/null || break
        install=$("${ctl[@]}" --json apps 2>/dev/null | /usr/bin/python3 -c '
import json, sys
def find(value):
    if isinstance(value, dict):
        if value.get("name") == sys.argv[1] and value.get("installation_id"):
            return value["installation_id"]
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            found = find(item)
            if found:
                return found
try:
    print(find(json.load(sys.stdin)) or "")
except ValueError:
    pass' "$app" || true)
        [ -n "$install" ] && break
        sleep 0.1
    done
    if [ -z "$install" ]; then
        echo "apsiod is not serving: $(tail -n 3 "$work/apsiod.log" | tr '\n' ' ')" >&2
        kill -TERM "$apsiod_pid" 2>/dev/null || true
        device="scripted"
    fi
else
    device="scripted"
fi
if [ "$device" = scripted ]; then
    install=$(cat /proc/sys/kernel/random/uuid)
fi

# --- the development backend --------------------------------------------------------------------
printf '%s\n' "$password" | "$bin/apsio-devbackend" --accounts "$work/accounts.txt" --add-user "$user:admin" >/dev/null
"$bin/apsio-devbackend" --dev --listen "127.0.0.1:$port" --live-origin "$base" --app "$app:$app_key" \
    --tester "$tester:$install" --interval 15 --accounts "$work/accounts.txt" >"$work/backend.log" 2>&1 &
backend_pid=$!
pids+=($backend_pid)
if ! wait_for 60 grep -q "listening on" "$work/backend.log"; then
    echo "apsio-devbackend did not start: $(cat "$work/backend.log")" >&2
    exit 1
fi

if [ "$device" = apsiod ]; then
    # apsiod asked for its policy before the backend listened: ask again now.
    "${ctl[@]}" reload >/dev/null 2>&1 || true
else
    /usr/bin/python3 "$root/Tests/Browser/scripted_device.py" --backend "$base" --app-key "$app_key" \
        --install "$install" --tester "$tester" &
    pids+=($!)
fi

cat <<BANNER

  Apsio live demo
  ---------------
  Viewer:    $base/
  Sign in:   user "$user", password "$password"
  Host:      $mode
  Device:    $(if [ "$device" = apsiod ]; then echo "apsiod watching $unit (live inspection allowed)"; else echo "the SCRIPTED TEST DEVICE (Tests/Browser/scripted_device.py): invented lines, not apsiod"; fi)
  Install:   $install (listed as tester "$tester")
  Files:     $work

  Open the viewer, sign in, and open the device: the session starts at its next hello.
  Press Ctrl-C to stop everything the demo started.

BANNER

# `wait` returns at once when a signal comes, so a plain `kill -INT` of this script stops it too.
while kill -0 "$backend_pid" 2>/dev/null; do
    sleep 1 &
    wait $! || true
done
echo "apsio-devbackend stopped: $(tail -n 3 "$work/backend.log")" >&2
exit 1
