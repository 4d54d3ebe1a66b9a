#!/usr/bin/env bash
# The viewer in a real headless Chromium against the demo (scripts/demo.sh) with the real apsiod
# watching the demo service (Tests/Browser/viewer_test.py). Leaves a PNG of the page under
# .build/browser-test and prints its path.
#
# Usage: scripts/test-browser.sh [--front nginx [--instances N]]
#   --front nginx   through the demo's nginx in front of apsio-backend instances (docs/nginx.md);
#                   the page goes under .build/browser-test-nginx
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/swift-env.sh

artifacts=.build/browser-test
args=("$@")
while [ $# -gt 0 ]; do
    case "$1" in
        --front) artifacts=.build/browser-test-${2:?--front needs nginx}; shift 2 ;;
        --instances) shift 2 ;;
        *) echo "test-browser.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
for product in apsio-devbackend apsio-backend apsiod apsioctl; do swift build --product "$product"; done
bin=$(swift build --show-bin-path)
exec /usr/bin/python3 Tests/Browser/viewer_test.py --demo scripts/demo.sh --bin "$bin" --artifacts "$artifacts" "${args[@]}"
