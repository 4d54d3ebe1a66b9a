#!/usr/bin/env bash
# Fleet benchmark: apsio-bench-fleet's devices, live sessions, viewers and policy fetches against
# the release apsio-backend on loopback, in one run: the in-memory hub on one instance (the
# baseline), then the hub on Redis (a private redis-server on a unix socket) on one instance and
# on three. With several instances the generator sends each device request to the next instance
# in turn, so a device's hello and its `next` land on different ones (DEVICES=spread), or each
# device's to one instance (DEVICES=sticky, as the nginx example's hash on the live token sends
# them); each person's viewer requests stick to one instance (VIEWERS=sticky, as the nginx
# example's hash on the credential sends them), or go in turn too (VIEWERS=spread). Measured from outside: CPU seconds
# (from /proc) of every instance and of redis-server over the measured window, RssAnon, and the
# generator's figures. Reports hellos per CPU-second of backend and Redis together, Redis's CPU,
# memory per 1,000 devices, and the fan-out from a device's frames POST to the viewer's event
# (p50/p99), each against the in-memory hub of the same run.
#
#   bench/fleet/run.sh                                  # memory:1 redis:1 redis:3, every load
#   CONFIGURATIONS="memory:1" LOADS="hellos mixed" bench/fleet/run.sh
#   CONFIGURATIONS="memory:1 cluster:3" KILL_MASTER_AT=20 bench/fleet/run.sh
#                                   # on a Redis Cluster (3 masters, a replica each, on loopback
#                                   # ports), a master killed 20 s into each load's window
#   DURATION=60 INTERVAL=15 APPS=50 DEVICES_PER_APP=100 bench/fleet/run.sh
#   ROUNDS=3 LOADS="hellos mixed" bench/fleet/run.sh
#                                   # all of it three times, backward every other round, and the
#                                   # medians of the ratios each round gives: the machine drifts by
#                                   # a fifth from run to run, a ratio within a round much less
#   PROFILE=/tmp/fleet-perf LOADS=hellos bench/fleet/run.sh
#                                   # perf record -g of the instances over each window, one file
#                                   # each (perf report -i /tmp/fleet-perf/redis-1-hellos.data);
#                                   # the CPU figures then include perf's own sampling
#   CALLGRIND=/path/to/valgrind/bin INTERVAL=60 LOADS=hellos CONFIGURATIONS="redis:1 redis:3" bench/fleet/run.sh
#                                   # the instances and Redis under callgrind (bench/callgrind/README.md),
#                                   # counting over each window: instructions a hello, which do not
#                                   # drift with the machine as CPU time does (a hello costs about
#                                   # 50 times as long, so fewer a second: a longer INTERVAL; the
#                                   # floor with nobody there, counted over IDLE_SECONDS before
#                                   # each window, is then taken at the default load's rate;
#                                   # KEEP=DIR keeps the dumps for callgrind_annotate)
#   PIN=1 bench/fleet/run.sh        # the instances on every CPU but the first, Redis and the
#                                   # generator on the first: the load does not share the
#                                   # instances' cores and caches
#
# The loads, each on a fresh redis-server and fresh instances:
#   hellos  the devices' hellos alone: what a hello costs
#   mixed   + LIVE live devices with VIEWERS_PER_LIVE viewers each, POLICY_PER_SECOND policy fetches
#           (166/s: 10,000 boxes x 5 apps at refresh_s 300)
#   crowd   CROWD_LIVE live devices (1,000) with one viewer each, and the policy fetches
#   crowd:N the same with N live devices: what this machine carries, where 1,000 overload it
# A load that needs more than the 256 connections a backend allows by default is run only when
# apsio-backend has --max-connections; the Redis configurations only when it has --redis.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/swift-env.sh

CONFIGURATIONS=${CONFIGURATIONS:-memory:1 redis:1 redis:3}
LOADS=${LOADS:-hellos mixed crowd:200 crowd}
APPS=${APPS:-50}
DEVICES_PER_APP=${DEVICES_PER_APP:-100}
LIVE=${LIVE:-50}
VIEWERS_PER_LIVE=${VIEWERS_PER_LIVE:-1}
CROWD_LIVE=${CROWD_LIVE:-1000}
DURATION=${DURATION:-45}
INTERVAL=${INTERVAL:-15}
POLICY_PER_SECOND=${POLICY_PER_SECOND:-166}
LINES=${LINES:-50}
MAX_CONNECTIONS=${MAX_CONNECTIONS:-8192}
KILL_MASTER_AT=${KILL_MASTER_AT:-0}
VIEWERS=${VIEWERS:-sticky}
DEVICES=${DEVICES:-spread}
ROUNDS=${ROUNDS:-1}
PROFILE=${PROFILE:-}
PIN=${PIN:-}
CALLGRIND=${CALLGRIND:-}
IDLE_SECONDS=${IDLE_SECONDS:-5}
KEEP=${KEEP:-}

case " $CONFIGURATIONS " in
*redis*|*cluster*) command -v redis-server >/dev/null || { echo "redis-server is not installed (apt-get install redis-server)" >&2; exit 1; } ;;
esac

swift build -c release --product apsio-backend >&2
swift build -c release --product apsio-bench-fleet >&2
bin="$(swift build -c release --show-bin-path)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$CALLGRIND" ]; then
    . bench/callgrind/env.sh
    callgrind_setup "$CALLGRIND" "$work/callgrind"
fi
printf 'bench-password\n' | "$bin/apsio-backend" --accounts "$work/accounts" --add-user bench:admin --iterations 1000 >&2

echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $(redis-server --version 2>/dev/null | cut -d' ' -f1-3)"
python3 bench/fleet/measure.py --bin "$bin" --work "$work" --configurations "$CONFIGURATIONS" --loads "$LOADS" \
    --apps "$APPS" --devices-per-app "$DEVICES_PER_APP" --live "$LIVE" --viewers-per-live "$VIEWERS_PER_LIVE" \
    --crowd-live "$CROWD_LIVE" --seconds "$DURATION" --interval "$INTERVAL" \
    --policy-per-second "$POLICY_PER_SECOND" --lines "$LINES" --max-connections "$MAX_CONNECTIONS" \
    --kill-master-at "$KILL_MASTER_AT" --viewers "$VIEWERS" --devices "$DEVICES" --rounds "$ROUNDS" --profile "$PROFILE" ${PIN:+--pin} ${CALLGRIND:+--callgrind} --idle-seconds "$IDLE_SECONDS" ${KEEP:+--keep "$KEEP"}
echo "machine after: load $(cut -d' ' -f1-3 /proc/loadavg)"
