#!/usr/bin/env bash
# The fleet page with a thousand boxes: how long the first snapshot of GET /api/fleet/events takes
# and weighs, and what the changes weigh afterwards (docs/performance.md, "The fleet page").
#
#   bench/fleet-page/run.sh                     # 10 apps x 100 devices, the in-memory hub
#   REDIS_INSTANCES=3 bench/fleet-page/run.sh   # three instances on one private redis-server
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/swift-env.sh
swift build -c release --product apsio-backend >&2
swift build -c release --product apsio-bench-fleet >&2
bin="$(swift build -c release --show-bin-path)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'bench-password\n' | "$bin/apsio-backend" --accounts "$work/accounts" --add-user bench:admin --iterations 1000 >&2
python3 bench/fleet-page/measure.py --bin "$bin" --work "$work" --apps "${APPS:-10}" \
    --devices-per-app "${DEVICES_PER_APP:-100}" --interval "${INTERVAL:-15}" --seconds "${DURATION:-45}" \
    --redis-instances "${REDIS_INSTANCES:-0}"
