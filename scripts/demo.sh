#!/usr/bin/env bash
# The demo in one command (`make demo`): builds what it needs, starts a demo service that logs a
# few lines a second (an occasional warning and error), apsiod watching it with live inspection
# allowed, and apsio-devbackend on loopback with a demo account listing apsiod's install as a
# tester; prints the viewer's address and the account. Ctrl-C stops everything it started, by pid.
#
# With systemd running, the demo service is a transient unit (systemd-run). Without it (a
# container, a CI machine) the host is simulated as the tests simulate it: the service's output
# goes into a journal directory through systemd-journal-remote, and the unit's state comes from
# python-dbusmock on a private system bus. Either way the service is a real process, the unit's
# MainPID. The demo says which host it uses.
#
# With --front nginx, the production path of docs/nginx.md instead: Debian's nginx on
# https://127.0.0.1:PORT (a certificate made for the demo), configured from the shipped example
# (packaging/examples/nginx-apsio-backend.conf), in front of apsio-backend instances that run
# without --dev and publish nginx's origin; /v1/logs goes to a collector stand-in (an
# apsio-devbackend used as the OTLP sink only). apsiod trusts the demo's certificate alone.
#
# Usage: scripts/demo.sh [--port PORT] [--bin DIR] [--info FILE] [--front nginx [--instances N]]
#   --port PORT   where the backend (or nginx) listens on 127.0.0.1 (default $DEMO_PORT, else 8787)
#   --bin DIR     use the built apsiod, apsioctl, apsio-devbackend and apsio-backend in DIR: no
#                 install, no build
#   --info FILE   once everything is up, write the viewer's address, the account, the install id
#                 and the service's pid to FILE as NAME=VALUE lines (for the browser test)
#   --front nginx nginx in front of the backend instances, as above
#   --instances N how many instances behind nginx (default 3); more than one share their state
#                 in a redis-server the demo starts on a private socket
# DEMO_DEVICE=scripted shows the viewer with the scripted test device of Tests/Browser, which
# invents what it sends, instead of apsiod.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
. "$root/scripts/private-bus.sh"

port=${DEMO_PORT:-8787}
bin=""
info=""
front=""
instances=""
while [ $# -gt 0 ]; do
    case "$1" in
        --port) port=${2:?--port needs a port}; shift 2 ;;
        --bin) bin=$(cd "${2:?--bin needs a directory}" && pwd); shift 2 ;;
        --info) info=${2:?--info needs a file}; shift 2 ;;
        --front) front=${2:?--front needs nginx}; shift 2 ;;
        --instances) instances=${2:?--instances needs a number}; shift 2 ;;
        --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
device=${DEMO_DEVICE:-apsiod}
case "$device" in
    apsiod | scripted) ;;
    *) echo "demo.sh: DEMO_DEVICE=$device: use apsiod (the default) or scripted" >&2; exit 2 ;;
esac
case "$front" in
    "" | nginx) ;;
    *) echo "demo.sh: --front $front: only nginx is known" >&2; exit 2 ;;
esac
[ -n "$front" ] || [ -z "$instances" ] || { echo "demo.sh: --instances needs --front nginx" >&2; exit 2; }
[ -n "$instances" ] || instances=$([ -n "$front" ] && echo 3 || echo 1)
[[ $instances =~ ^[1-9][0-9]?$ ]] || { echo "demo.sh: --instances $instances: give 1 to 99" >&2; exit 2; }

if [ -z "$bin" ]; then
    scripts/install-deps.sh
    . scripts/swift-env.sh
    echo "Building apsio-devbackend, apsio-backend, apsiod and apsioctl…"
    for product in apsio-devbackend apsio-backend apsiod apsioctl; do swift build --product "$product" >/dev/null; done
    bin=$(swift build --show-bin-path)
fi
programs=(apsiod apsioctl apsio-devbackend)
[ -z "$front" ] || programs+=(apsio-backend)
for program in "${programs[@]}"; do
    [ -x "$bin/$program" ] || { echo "demo.sh: $bin/$program is not built" >&2; exit 1; }
done
if [ -n "$front" ]; then
    [ -x /usr/sbin/nginx ] || { echo "demo.sh: --front nginx needs Debian's nginx (scripts/install-deps.sh)" >&2; exit 1; }
fi

name=demo                      # the app file's name: apsioctl's name for the app
app=com.example.demo           # the records' service.name; the backend's app
unit=apsio-demo.service
app_key=apsio_app_demo_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
user=demo
password=$(od -An -N9 -tx1 /dev/urandom | tr -d ' \n')
tester=demo-box
base="http://127.0.0.1:$port"
[ -z "$front" ] || base="https://127.0.0.1:$port"

work=$(mktemp -d "${TMPDIR:-/tmp}/apsio-demo.XXXXXX")
pids=()
apsiod_pid=""
transient_unit=""
cleanup() {
    trap - EXIT INT TERM
    echo
    echo "Stopping the demo…"
    if [ -n "$transient_unit" ]; then systemctl stop "$transient_unit" 2>/dev/null || true; fi
    # apsiod first, so it ends a live session with the backend still there to hear it; then the
    # rest, newest first.
    local i
    [ -n "$apsiod_pid" ] && stop_pid "$apsiod_pid"
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop_pid "${pids[i]}"; done
    rm -rf "$work"
}
stop_pid() {
    kill -TERM "$1" 2>/dev/null || return 0
    for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null || true
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

# Stops the demo with what a process said last.
fail() { # fail MESSAGE LOG
    echo "demo.sh: $1" >&2
    [ -f "$2" ] && tail -n 20 "$2" | sed 's/^/  | /' >&2
    exit 1
}

mkdir -p "$work/config/apps.d" "$work/state" "$work/runtime" "$work/journal"
cat >"$work/config/apsiod.conf" <<CONF
[Indicator]
MotdFile=$work/runtime/motd
AnnounceTerminals=no
CONF
cat >"$work/config/apps.d/$name.conf" <<CONF
[App]
Unit=$unit
Name=$app
Version=1.0.0
Backend=$base
AppKey=$app_key
Consent=granted
CONF
ctl=("$bin/apsioctl" --runtime-dir "$work/runtime" --state-dir "$work/state" --config-dir "$work/config")

# The certificate nginx serves: made for this demo, for 127.0.0.1, and the only one apsiod trusts
# (OpenSSL's SSL_CERT_FILE), so that the daemon checks nginx's certificate as on a real box.
device_env=()
if [ -n "$front" ]; then
    mkdir -p "$work/tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$work/tls/live.key" -out "$work/tls/live.pem" \
        >"$work/tls/openssl.log" 2>&1 || fail "openssl could not make the demo's certificate" "$work/tls/openssl.log"
    device_env=(SSL_CERT_FILE="$work/tls/live.pem")
    # What a browser is told to accept for this one key (Chromium's --ignore-certificate-errors-spki-list).
    spki=$(openssl x509 -in "$work/tls/live.pem" -pubkey -noout | openssl pkey -pubin -outform der \
        | openssl dgst -sha256 -binary | base64)
fi

# --- the demo service: a real process, the unit's MainPID ------------------------------------------
# Named demo-service, so its process shows under that name (comm is the script's file name).
# Each line starts with the syslog priority prefix journald reads on a service's stdout.
cat >"$work/demo-service" <<'SERVICE'
#!/bin/bash
n=1000
while sleep 0.4; do
    n=$((n + 1))
    roll=$((RANDOM % 100))
    if [ $roll -lt 4 ]; then
        echo "<3>upstream inventory timed out for order $n"
    elif [ $roll -lt 15 ]; then
        echo "<4>slow query on orders took $((RANDOM % 900 + 100))ms"
    elif [ $roll -lt 25 ]; then
        echo "<6>order $n shipped"
    else
        case $((RANDOM % 3)) in
            0) echo "<6>GET /orders/$n 200 $((RANDOM % 300 + 2))ms" ;;
            1) echo "<6>POST /cart/$n/items 201 $((RANDOM % 300 + 2))ms" ;;
            *) echo "<6>GET /products/$((RANDOM % 500)) 200 $((RANDOM % 80 + 2))ms" ;;
        esac
    fi
done
SERVICE
chmod 0755 "$work/demo-service"

apsiod_args=(--config-dir "$work/config" --state-dir "$work/state" --runtime-dir "$work/runtime")
service_pid=""
if [ -d /run/systemd/system ]; then
    host="this machine's systemd: $unit is a transient unit, apsiod reads the system journal"
    transient_unit=$unit
    # A demo killed before it could clean up leaves its unit running: replace it.
    systemctl stop "$unit" 2>/dev/null || true
    systemd-run --unit="$unit" --collect --quiet -p SyslogIdentifier=demo-service "$work/demo-service"
    service_pid=$(systemctl show -p MainPID --value "$unit")
else
    host="a simulated host (no systemd running): $unit's output reaches a journal directory through systemd-journal-remote, its state comes from python-dbusmock on a private bus"
    mkfifo "$work/service.fifo" "$work/journal.fifo"
    # The service writes to a pipe, as a service's stdout is a stream to journald.
    "$work/demo-service" >"$work/service.fifo" &
    service_pid=$!
    pids+=("$service_pid")
    # journald's part: each line becomes an entry of the unit, in the export format that
    # systemd-journal-remote appends to the journal file.
    boot=$(tr -d '-' </proc/sys/kernel/random/boot_id)
    invocation=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    /lib/systemd/systemd-journal-remote --output="$work/journal/demo.journal" - <"$work/journal.fifo" \
        >"$work/journal-remote.log" 2>&1 &
    pids+=($!)
    (
        while IFS= read -r line; do
            priority=6
            if [[ $line =~ ^\<([0-7])\>(.*)$ ]]; then
                priority=${BASH_REMATCH[1]}
                line=${BASH_REMATCH[2]}
            fi
            read -r uptime _ </proc/uptime
            printf '__REALTIME_TIMESTAMP=%s\n__MONOTONIC_TIMESTAMP=%s\n_BOOT_ID=%s\n_SYSTEMD_UNIT=%s\n_SYSTEMD_INVOCATION_ID=%s\n_PID=%s\n_COMM=demo-service\n_TRANSPORT=stdout\nSYSLOG_IDENTIFIER=demo-service\nPRIORITY=%s\nMESSAGE=%s\n\n' \
                "$(date +%s%6N)" "${uptime/./}0000" "$boot" "$unit" "$invocation" "$service_pid" "$priority" "$line"
        done
    ) <"$work/service.fifo" >"$work/journal.fifo" &
    pids+=($!)

    # The system bus, with systemd's mock on it.
    private_bus_config "$work"
    dbus-daemon --config-file="$work/bus.conf" --nofork >"$work/bus.log" 2>&1 &
    pids+=($!)
    export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus.sock"
    wait_for 30 test -S "$work/bus.sock" || fail "dbus-daemon did not start" "$work/bus.log"
    /usr/bin/python3 -m dbusmock --system --template systemd >"$work/dbusmock.log" 2>&1 &
    pids+=($!)
    mock() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.systemd1 "$@" >/dev/null; }
    wait_for 30 busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status org.freedesktop.systemd1 ||
        fail "python-dbusmock did not start" "$work/dbusmock.log"
    mock /org/freedesktop/systemd1 org.freedesktop.DBus.Mock AddMockUnit s "$unit"
    path=/org/freedesktop/systemd1/unit/${unit//[.-]/_}
    read -ra invocation_bytes <<<"$(echo "$invocation" | sed 's/../0x& /g')"
    property() { mock "$path" org.freedesktop.DBus.Mock AddProperty ssv "$@"; }
    property org.freedesktop.systemd1.Unit SubState s running
    property org.freedesktop.systemd1.Unit FreezerState s running
    property org.freedesktop.systemd1.Unit InvocationID ay 16 "${invocation_bytes[@]}"
    property org.freedesktop.systemd1.Service MainPID u "$service_pid"
    # The cgroup systemd would give the unit. It does not exist here (nothing made it), so apsiod
    # finds no cgroup.procs and reads the MainPID's /proc entries for the frame and the footprint.
    property org.freedesktop.systemd1.Service ControlGroup s "/system.slice/$unit"
    mock "$path" org.freedesktop.DBus.Mock UpdateProperties 'sa{sv}' org.freedesktop.systemd1.Unit 1 ActiveState s active
    apsiod_args+=(--journal-dir "$work/journal")
fi

# --- apsiod, after the operator allowed live inspection ---------------------------------------------
install=""
if [ "$device" = apsiod ]; then
    "${ctl[@]}" allow-live on "$name"
    env "${device_env[@]}" "$bin/apsiod" "${apsiod_args[@]}" >"$work/apsiod.log" 2>&1 &
    apsiod_pid=$!
    pids+=("$apsiod_pid")
    # apsiod makes the installation id the first time it serves the app; the team lists that id
    # as a tester, reading it from `apsioctl apps` as an operator would.
    for _ in $(seq 600); do
        kill -0 "$apsiod_pid" 2>/dev/null || fail "apsiod stopped" "$work/apsiod.log"
        install=$("${ctl[@]}" --json apps 2>/dev/null | /usr/bin/python3 -c '
import json, sys
try:
    apps = json.load(sys.stdin).get("apps") or []
except ValueError:
    apps = []
print(next((a.get("installation_id") or "" for a in apps if a.get("name") == sys.argv[1]), ""))' "$name" || true)
        [ -n "$install" ] && break
        sleep 0.1
    done
    [ -n "$install" ] || fail "apsiod did not make an installation id for $name within 60 seconds" "$work/apsiod.log"
else
    install=$(cat /proc/sys/kernel/random/uuid)
fi

# --- the backend ------------------------------------------------------------------------------------
printf '%s\n' "$password" | "$bin/apsio-devbackend" --accounts "$work/accounts.txt" --add-user "$user:admin" >/dev/null
# The processes the demo lives with, as PID|NAME|LOG: when one stops, the demo stops.
watched=()
# Waits until the backend started as PID has said where it listens in LOG.
wait_listening() { # NAME PID LOG [HINT]
    for _ in $(seq 600); do
        grep -q "listening on" "$3" && return 0
        kill -0 "$2" 2>/dev/null || fail "$1 stopped${4:+ ($4)}" "$3"
        sleep 0.1
    done
    fail "$1 did not listen within 60 seconds" "$3"
}
listening_port() { sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\);.*/\1/p' "$1" | head -n 1; }

front_text=""
if [ -z "$front" ]; then
    "$bin/apsio-devbackend" --dev --listen "127.0.0.1:$port" --live-origin "$base" --app "$app:$app_key" \
        --tester "$tester:$install" --interval 15 --accounts "$work/accounts.txt" >"$work/backend.log" 2>&1 &
    pids+=($!)
    watched+=("$!|apsio-devbackend|$work/backend.log")
    wait_listening apsio-devbackend $! "$work/backend.log" "is port $port taken? DEMO_PORT or --port changes it"
else
    # More than one instance: their shared hub, in a redis-server of the demo's own on a private
    # socket, without persistence.
    redis_args=()
    if [ "$instances" -gt 1 ]; then
        redis-server --port 0 --unixsocket "$work/redis.sock" --unixsocketperm 700 --save '' --appendonly no \
            --dir "$work" --daemonize no --logfile "$work/redis.log" &
        pids+=($!)
        watched+=("$!|redis-server|$work/redis.log")
        wait_for 30 test -S "$work/redis.sock" || fail "redis-server did not start" "$work/redis.log"
        redis_args=(--redis "$work/redis.sock")
    fi
    # The instances as in production: no --dev, nginx's https origin as their live origin. Their
    # configuration directory is the demo's (empty): the flags say everything.
    mkdir -p "$work/backend/apps.d"
    addresses=()
    for i in $(seq "$instances"); do
        "$bin/apsio-backend" --config "$work/backend" --listen 127.0.0.1:0 --live-origin "$base" \
            --app "$app:$app_key" --tester "$tester:$install" --interval 15 --accounts "$work/accounts.txt" \
            "${redis_args[@]}" >"$work/instance-$i.log" 2>&1 &
        pids+=($!)
        watched+=("$!|apsio-backend instance $i|$work/instance-$i.log")
        wait_listening "apsio-backend instance $i" $! "$work/instance-$i.log"
        addresses+=("127.0.0.1:$(listening_port "$work/instance-$i.log")")
    done
    # The collector gateway's stand-in: its OTLP sink keeps what nginx sends to /v1/logs, and
    # its /api/ingest shows it. No device opens a live channel to it.
    "$bin/apsio-devbackend" --dev --listen 127.0.0.1:0 --live-origin http://127.0.0.1 --app "$app:$app_key" \
        --accounts "$work/accounts.txt" >"$work/collector.log" 2>&1 &
    pids+=($!)
    watched+=("$!|the collector stand-in|$work/collector.log")
    wait_listening "the collector stand-in" $! "$work/collector.log"
    collector="127.0.0.1:$(listening_port "$work/collector.log")"

    upstreams=()
    for address in "${addresses[@]}"; do upstreams+=(--instance "$address"); done
    "$root/scripts/nginx-front-conf.sh" --prefix "$work/nginx" --port "$port" --cert "$work/tls/live.pem" \
        --key "$work/tls/live.key" "${upstreams[@]}" --collector "$collector" 2>"$work/nginx.log" \
        || fail "the nginx configuration could not be written" "$work/nginx.log"
    /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -g 'daemon off;' \
        >>"$work/nginx.log" 2>&1 &
    nginx_pid=$!
    pids+=("$nginx_pid")
    watched+=("$nginx_pid|nginx|$work/nginx/error.log")
    # nginx says so once it listens and its workers run.
    for _ in $(seq 300); do
        grep -q "start worker process" "$work/nginx/error.log" 2>/dev/null && break
        kill -0 "$nginx_pid" 2>/dev/null || fail "nginx stopped (is port $port taken? DEMO_PORT or --port changes it)" "$work/nginx/error.log"
        sleep 0.1
    done
    kill -0 "$nginx_pid" 2>/dev/null && grep -q "start worker process" "$work/nginx/error.log" \
        || fail "nginx did not start within 30 seconds" "$work/nginx/error.log"
    front_text="nginx on $base ($work/nginx/apsio-backend.conf) in front of $instances apsio-backend instance(s); /v1/logs to the collector stand-in at http://$collector/api/ingest. The certificate is the demo's own: the browser asks to accept it"
fi

if [ "$device" = apsiod ]; then
    # apsiod asked for its policy before the backend listened and now waits to ask again: reload
    # asks at once.
    "${ctl[@]}" reload >/dev/null
    device_text="apsiod watching $unit, main pid $service_pid (live inspection allowed)"
else
    env "${device_env[@]}" /usr/bin/python3 "$root/Tests/Browser/scripted_device.py" --backend "$base" --app-key "$app_key" \
        --install "$install" --tester "$tester" &
    pids+=($!)
    device_text="the SCRIPTED TEST DEVICE (Tests/Browser/scripted_device.py): invented lines, not apsiod"
fi

if [ -n "$info" ]; then
    {
        printf 'base=%s\nuser=%s\npassword=%s\ninstall=%s\nservice_pid=%s\napp=%s\nwork=%s\n' \
            "$base" "$user" "$password" "$install" "$service_pid" "$app" "$work"
        [ -z "$front" ] || printf 'front=%s\nspki=%s\ncollector=%s\ninstances=%s\naccess_log=%s\n' \
            "$front" "$spki" "$collector" "${addresses[*]}" "$work/nginx/access.log"
    } >"$info.tmp"
    mv "$info.tmp" "$info"
fi
cat <<BANNER

  Apsio live demo
  ---------------
  Viewer:    $base/
  Sign in:   user "$user", password "$password"
  Host:      $host
  Device:    $device_text
  Install:   $install (listed as tester "$tester")
  Files:     $work
${front_text:+  Front:     $front_text
}  On the box: $bin/apsioctl --runtime-dir $work/runtime status

  Open the viewer, sign in, and open the device: its session starts at its next hello (within
  15 seconds). Press Ctrl-C to stop everything the demo started.

BANNER

# `wait` returns at once when a signal comes, so a plain `kill -TERM` of this script stops it too.
while :; do
    for entry in "${watched[@]}"; do
        IFS='|' read -r watched_pid watched_name watched_log <<<"$entry"
        kill -0 "$watched_pid" 2>/dev/null || fail "$watched_name stopped" "$watched_log"
    done
    if [ "$device" = apsiod ] && ! kill -0 "$apsiod_pid" 2>/dev/null; then fail "apsiod stopped" "$work/apsiod.log"; fi
    sleep 1 &
    wait $! || true
done
