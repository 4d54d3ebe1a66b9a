#!/usr/bin/env bash
# The viewer in a real headless Chromium against the demo (scripts/demo.sh) with the real apsiod
# watching the demo service (Tests/Browser/viewer_test.py), then the fleet test: 50 scripted test
# devices on the fleet page, three of them watched together. Leaves a PNG of the page under
# .build/browser-test and prints its path; the fleet test's failures go to .build/browser-test-fleet.
#
# Usage: scripts/test-browser.sh [--front nginx [--instances N]] [--fleet N] [--docs DIR]
#   --front nginx   both through nginx in front of apsio-backend instances on one Redis
#                   (docs/nginx.md); the pages go under .build/browser-test-nginx and
#                   .build/browser-test-fleet-nginx
#   --fleet N       the fleet test's number of devices (default 50; 0 skips it)
#   --docs DIR      where the tests save the pictures of docs/viewer.md: the demo test
#                   viewer-highlight.png and viewer-context.png, the fleet test viewer-lag.png,
#                   viewer-fleet.png, viewer-watch.png and
#                   viewer-watch-merged.png (docs/ for the pictures of the documentation)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/swift-env.sh

artifacts=.build/browser-test
fleet_artifacts=.build/browser-test-fleet
args=()
fleet=50
docs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --front)
            artifacts=.build/browser-test-${2:?--front needs nginx}
            fleet_artifacts=.build/browser-test-fleet-$2
            args+=("$1" "$2")
            shift 2 ;;
        --instances) args+=("$1" "${2:?--instances needs a number}"); shift 2 ;;
        --fleet) fleet=${2:?--fleet needs a number}; shift 2 ;;
        --docs) docs=(--docs "$(cd "${2:?--docs needs a directory}" && pwd)"); shift 2 ;;
        *) echo "test-browser.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
for product in apsio-devbackend apsio-backend apsiod apsioctl; do swift build --product "$product"; done
bin=$(swift build --show-bin-path)
/usr/bin/python3 Tests/Browser/viewer_test.py --demo scripts/demo.sh --bin "$bin" --artifacts "$artifacts" "${docs[@]}" "${args[@]}"
if [ "$fleet" -gt 0 ]; then
    exec /usr/bin/python3 Tests/Browser/viewer_test.py --fleet "$fleet" --bin "$bin" --artifacts "$fleet_artifacts" \
        "${docs[@]}" "${args[@]}"
fi
