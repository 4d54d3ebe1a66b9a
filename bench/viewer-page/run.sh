#!/usr/bin/env bash
# The live view page under load: 8 scripted boxes at 50 lines a second each, watched together in a
# headless Chromium for DURATION seconds; the page's long tasks (PerformanceObserver 'longtask')
# and its memory (the JS heap and DOM nodes through DevTools) over the run (docs/performance.md,
# "The live view page"). A measurement: it prints figures and asserts none.
#
#   bench/viewer-page/run.sh                        # 600 s, the panels view
#   DURATION=120 VIEW=merged bench/viewer-page/run.sh
#   BOXES=8 RATE=50 SAMPLE_EVERY=30 bench/viewer-page/run.sh
#   PROFILE=10 DURATION=30 bench/viewer-page/run.sh   # first, where 10 s of the page's time went
#
# The backend is the debug apsio-devbackend the browser test uses: what is measured is the page.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/swift-env.sh
swift build --product apsio-devbackend >&2
bin="$(swift build --show-bin-path)"
exec /usr/bin/python3 bench/viewer-page/measure.py --bin "$bin" --seconds "${DURATION:-600}" --view "${VIEW:-grid}" \
    --boxes "${BOXES:-8}" --rate "${RATE:-50}" --sample-every "${SAMPLE_EVERY:-30}" --profile "${PROFILE:-0}"
