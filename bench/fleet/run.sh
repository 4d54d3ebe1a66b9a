#!/usr/bin/env bash
# Fleet benchmark: apsio-bench-fleet's devices, live sessions, viewers and policy fetches against
# one backend instance on loopback (the in-memory hub), measured from outside: the backend's CPU
# seconds (from /proc) over the measured window, its RssAnon, and the generator's figures.
# Reports hellos per CPU-second of backend, memory per 1,000 devices, and the fan-out from a
# device's frames POST to the viewer's event (p50/p99).
#
#   bench/fleet/run.sh                          # 10 apps x 100 devices, 50 live, 1 viewer each
#   APPS=5 DEVICES_PER_APP=100 LIVE=50 VIEWERS_PER_LIVE=1 DURATION=60 INTERVAL=15 bench/fleet/run.sh
#   POLICY_PER_SECOND=166 bench/fleet/run.sh    # 10,000 boxes x 5 apps at refresh_s 300
#   LIVE=0 POLICY_PER_SECOND=0 bench/fleet/run.sh  # hellos alone: what a hello costs
# The backend allows 256 connections: the quiet devices share 32, each live device holds two, each
# viewer one, the policy fetches up to 32.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/swift-env.sh

APPS=${APPS:-10}
DEVICES_PER_APP=${DEVICES_PER_APP:-100}
LIVE=${LIVE:-50}
VIEWERS_PER_LIVE=${VIEWERS_PER_LIVE:-1}
DURATION=${DURATION:-60}
INTERVAL=${INTERVAL:-15}
POLICY_PER_SECOND=${POLICY_PER_SECOND:-166}
LINES=${LINES:-50}

swift build -c release --product apsio-devbackend >&2
swift build -c release --product apsio-bench-fleet >&2
bin="$(swift build -c release --show-bin-path)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'bench-password\n' | "$bin/apsio-devbackend" --accounts "$work/accounts" --add-user bench:admin --iterations 1000 >&2

echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/fleet/measure.py --bin "$bin" --work "$work" --apps "$APPS" --devices-per-app "$DEVICES_PER_APP" \
    --live "$LIVE" --viewers-per-live "$VIEWERS_PER_LIVE" --seconds "$DURATION" --interval "$INTERVAL" \
    --policy-per-second "$POLICY_PER_SECOND" --lines "$LINES"
